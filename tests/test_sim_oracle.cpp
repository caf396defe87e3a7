// One oracle across all techniques: every technique that lays x out in its logical order writes the
// identical file, byte for byte, and every technique with a read path reads each rank's entries back, for
// block-cyclic, block3d, irregular and STEM-II (stem2) distributions whose sizes do not divide evenly by
// the ranks, the aggregators, the collective buffer or the stripe, and under several hint settings. Each
// point is one simulation in a forked child (sim_fork.hpp).
#include <catch2/catch.hpp>
#include <set>

#include "algorithms/technique.hpp"
#include "config/workload.hpp"
#include "sim_fork.hpp"

using namespace ciosim;

namespace {

struct Variant {
  std::string algorithm;
  std::string label;
  IoHints hints;
  int phases = 0;  ///< run.phases (multiple-phase; 0 = all)
};

std::vector<Variant> variants() {
  std::vector<Variant> out;
  for (const TechniqueInfo& t : techniques()) out.push_back({t.name, "defaults", IoHints{}});
  IoHints h;
  h.cb_nodes = 1;
  h.cb_buffer_size = 100;  // many rounds, windows cutting entries in two
  out.push_back({"two-phase", "cb_nodes=1 cb_buffer_size=100", h});
  h = IoHints{};
  h.cb_nodes = 3;
  h.striping_unit = 64;
  h.cb_buffer_size = 128;
  out.push_back({"two-phase", "cb_nodes=3 striping_unit=64 cb_buffer_size=128", h});
  h = IoHints{};
  h.version = RomioVersion::Y2007;
  h.cb_buffer_size = 96;
  out.push_back({"two-phase", "2007 cb_buffer_size=96", h});
  h = IoHints{};
  h.cb_config_list = "*:2";
  h.cb_buffer_size = 50;
  out.push_back({"two-phase", "cb_config_list=*:2 cb_buffer_size=50", h});
  h = IoHints{};
  h.cb_write = CbMode::Disable;
  h.cb_read = CbMode::Disable;
  h.listio_batch = 3;
  out.push_back({"two-phase", "romio_cb_write/read=disable listio_batch=3", h});
  h = IoHints{};
  h.cb_write = CbMode::Enable;
  h.cb_read = CbMode::Enable;
  out.push_back({"two-phase", "romio_cb_write/read=enable", h});
  h = IoHints{};
  h.listio_batch = 5;
  out.push_back({"list-io", "listio_batch=5", h});
  h = IoHints{};
  h.cb_buffer_size = 100;
  out.push_back({"gathered", "cb_buffer_size=100", h});
  out.push_back({"multiple-phase", "run.phases=1", IoHints{}, 1});
  h = IoHints{};
  h.vb_buffer_size = 100;  // blocks cutting entries in two
  h.vb_pool_size = 200;    // two buffers: LRU evictions in every call
  h.vb_aggregators = 3;
  out.push_back({"view-based", "vb_buffer_size=100 vb_pool_size=200 vb_aggregators=3", h});
  h = IoHints{};
  h.vb_buffer_size = 64;
  h.vb_aggregators = 1;
  out.push_back({"view-based", "vb_buffer_size=64 vb_aggregators=1", h});
  return out;
}

RunSpec base(const WorkloadSpec& w, int ranks, int nodes) {
  RunSpec s;
  s.ranks = ranks;
  s.workload = w;
  s.platform.name = "test";
  s.platform.nodes = nodes;
  s.platform.cores_per_node = (ranks + nodes - 1) / nodes;
  s.platform.cpu_cores = s.platform.cores_per_node;  // a core per rank
  s.platform.pvfs.io_servers = 3;
  s.platform.pvfs.stripe_size = 64;  // many pieces per request, split across servers
  s.platform.pvfs.flow_buffer = 64;
  s.network_mpi = "myrinet";
  s.network_io = "fast-ethernet";
  return s;
}

/// Runs every variant that can run the workload, writing and reading; checks every file and read. Returns
/// the techniques that ran.
std::set<std::string> oracle(const WorkloadSpec& w, int ranks, int nodes) {
  std::set<std::string> ran;
  const Distribution d = make_distribution(w, ranks);
  const std::vector<std::byte> logical = expected_file(d, FileLayout::Logical, w.element_size);
  int logical_writers = 0;
  for (const Variant& v : variants()) {
    const TechniqueInfo& t = technique(v.algorithm);
    if (!t.check(d).empty()) continue;
    ran.insert(v.algorithm);
    RunSpec s = base(w, ranks, nodes);
    s.algorithm = v.algorithm;
    s.hints = v.hints;
    s.phases = v.phases;
    INFO(v.algorithm << " (" << v.label << ")");
    const test::Forked wr = test::simulate_forked(s);
    REQUIRE(wr.ok);
    CHECK(wr.verified);
    if (t.layout == FileLayout::Logical) {
      CHECK(wr.file == logical);
      ++logical_writers;
    }
    // The same technique through an operation sequence: two steps written (the second one step further),
    // synced, closed, reopened and read back (a technique without a read path: written only). Every step
    // must land where the sequence puts it, with the values of its step.
    RunSpec seq = s;
    seq.sequence = t.read || t.session ? "open write next write sync close open read next read close"
                                       : "open write next write close";
    const test::Forked sq = test::simulate_forked(seq);
    INFO("sequence: " << sq.error);
    REQUIRE(sq.ok);
    CHECK(sq.verified);
    std::vector<std::byte> two = expected_file(d, t.layout, w.element_size);
    const std::vector<std::byte> second =
        expected_file(d, t.layout, w.element_size, static_cast<std::int64_t>(two.size()) / w.element_size);
    two.insert(two.end(), second.begin(), second.end());
    CHECK(sq.file == two);
    if (!t.read) continue;
    s.access = Access::Read;
    const test::Forked rd = test::simulate_forked(s);
    INFO("read: " << rd.error);
    REQUIRE(rd.ok);
    CHECK(rd.verified);
  }
  CHECK(logical_writers >= 4);  // two-phase, list-io, independent, gathered (and iec when it can)
  return ran;
}

/// The stem2 oracle: every technique that can lay the array out runs; multiple-phase and sequential must.
void stem2_oracle(const WorkloadSpec& w, int ranks, int nodes) {
  const std::set<std::string> ran = oracle(w, ranks, nodes);
  CHECK(ran.count("multiple-phase") == 1);
  CHECK(ran.count("sequential") == 1);
  CHECK(ran.count("two-phase") == 1);
  CHECK(ran.count("independent") == 1);
}

}  // namespace

TEST_CASE("oracle: block-cyclic, sizes that divide neither the aggregators nor the buffers",
          "[sim][oracle]") {
  WorkloadSpec w;
  w.kind = "block-cyclic";
  w.nx = 4 * 3 * 7;  // 336 bytes: 3 aggregators, buffers of 50/96/100/128 and 64-byte stripes all cut it
  w.bx = 3;
  oracle(w, 4, 4);
}

TEST_CASE("oracle: block-cyclic that IEC can run too, two ranks per host", "[sim][oracle]") {
  WorkloadSpec w;
  w.kind = "block-cyclic";
  w.nx = 512;
  w.bx = 2;
  oracle(w, 8, 4);
}

TEST_CASE("oracle: block3d with uneven blocks (5x7x3 over 2x2x2)", "[sim][oracle]") {
  WorkloadSpec w;
  w.kind = "block3d";
  w.nx = 5;
  w.ny = 7;
  w.nz = 3;
  oracle(w, 8, 4);
}

TEST_CASE("oracle: block3d where some ranks hold nothing (2x4x4 over 3x2x2)", "[sim][oracle]") {
  WorkloadSpec w;
  w.kind = "block3d";
  w.nx = 2;
  w.ny = 4;
  w.nz = 4;
  oracle(w, 12, 6);
}

TEST_CASE("oracle: irregular distribution with 8-byte entries", "[sim][oracle]") {
  WorkloadSpec w;
  w.kind = "irregular";
  w.nx = 4 * 4 * 9;
  w.seed = 7;
  w.element_size = 8;
  oracle(w, 4, 2);
}

TEST_CASE("oracle: explicit lists, one rank storing its entries out of file order", "[sim][oracle]") {
  // Rank 3 of the Fig. 11 example stores entries 11, 2, 13, 6: its buffer is not in file order, so
  // two-phase packs its sends (ADIOI_Fill_send_buffer) and unpacks its reads (ADIOI_Fill_user_buffer).
  WorkloadSpec w;
  w.kind = "lists";
  w.nx = 16;
  w.file = std::string(CIOSIM_SOURCE_DIR) + "/scenarios/data/fig11-lists.toml";
  oracle(w, 4, 4);
}

TEST_CASE("oracle: stem2 (the STEM-II array of Multiple-Phase Collective I/O), Ny divisible by the ranks",
          "[sim][oracle][stem2]") {
  WorkloadSpec w;
  w.kind = "stem2";
  w.nx = 3;
  w.ny = 8;
  w.nz = 4;
  w.nl = 2;
  w.nchem = 1;
  stem2_oracle(w, 4, 4);
}

TEST_CASE("oracle: stem2 with uneven y blocks (Ny = 7 over 4 ranks) and an odd plane count",
          "[sim][oracle][stem2]") {
  WorkloadSpec w;
  w.kind = "stem2";
  w.nx = 3;
  w.ny = 7;
  w.nz = 5;
  w.nl = 1;
  w.nchem = 2;
  stem2_oracle(w, 4, 2);
}

TEST_CASE("oracle: stem2 with more ranks than y rows (Ny = 5 over 8 ranks)", "[sim][oracle][stem2]") {
  WorkloadSpec w;
  w.kind = "stem2";
  w.nx = 2;
  w.ny = 5;
  w.nz = 3;
  w.nl = 2;
  w.nchem = 1;
  w.element_size = 8;
  stem2_oracle(w, 8, 4);
}
