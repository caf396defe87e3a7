// The LAP aggregator assignment (hints.lap = acn | avn; Filgueira et al., VECPAR 2008) end to end in the
// simulator on the mesh workload: the chosen host aggregates each file domain (seen in the call trace),
// the MPI calls of aggregation_interval, the VECPAR stage names, and one oracle across techniques (every
// technique writes the identical file on a mesh whose size the hosts do not divide). Each simulation runs
// in a forked child (sim_fork.hpp).
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "algorithms/common/distribution.hpp"
#include "algorithms/common/trace.hpp"
#include "algorithms/technique.hpp"
#include "config/workload.hpp"
#include "sim_fork.hpp"

using namespace ciosim;

namespace {

/// A temporary partition file; removed at scope exit.
struct PartitionFile {
  std::string path;
  explicit PartitionFile(const std::vector<int>& owner) {
    char name[] = "/tmp/ciosim-mesh-XXXXXX";
    const int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
    std::ofstream out(path);
    for (int r : owner) out << r << "\n";
  }
  ~PartitionFile() { std::remove(path.c_str()); }
};

RunSpec mesh_spec(const std::string& partition, std::int64_t nodes, std::int64_t load, int ranks, int hosts) {
  RunSpec s;
  s.algorithm = "two-phase";
  s.ranks = ranks;
  s.workload.kind = "mesh";
  s.workload.nx = nodes;
  s.workload.partition = partition;
  s.workload.load = load;
  s.platform.name = "test";
  s.platform.nodes = hosts;
  s.platform.cores_per_node = (ranks + hosts - 1) / hosts;
  s.platform.cpu_cores = s.platform.cores_per_node;
  s.platform.pvfs.io_servers = 2;
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  return s;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Per rank: the file offsets it wrote with write_at (the aggregators' window writes).
std::vector<std::set<std::int64_t>> writes_by_rank(const Trace& t) {
  std::vector<std::set<std::int64_t>> out(t.size());
  for (std::size_t r = 0; r < t.size(); ++r)
    for (const TraceEvent& e : t[r])
      if (e.kind == Call::FileWrite) out[r].insert(e.a);
  return out;
}

}  // namespace

TEST_CASE("LAP: the host holding an interval's data aggregates its file domain", "[sim][lap]") {
  // 8 mesh nodes on 4 hosts of one rank; interval k (nodes 2k, 2k+1) is all on rank (k+1) mod 4.
  // ACN and AVN both choose interval k -> host (k+1) mod 4; ROMIO's default gives file domain k to rank k.
  // With 16 floats per node a domain is 2 * 64 = 128 bytes, written in one window at offset 128k.
  const PartitionFile part({1, 1, 2, 2, 3, 3, 0, 0});
  for (const char* lap : {"none", "acn", "avn"}) {
    RunSpec s = mesh_spec(part.path, 8, 16, 4, 4);
    s.hints.lap = lap_criterion_from_name(lap);
    char name[] = "/tmp/ciosim-trace-XXXXXX";
    const int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    s.trace_file = name;
    const test::Forked r = test::simulate_forked(s);
    INFO("hints.lap = " << lap << ": " << r.error);
    REQUIRE(r.ok);
    CHECK(r.verified);
    const Trace t = parse_trace(slurp(name));
    std::remove(name);
    REQUIRE(t.size() == 4);
    const auto writes = writes_by_rank(t);
    for (int k = 0; k < 4; ++k) {
      const int agg = s.hints.lap == LapCriterion::None ? k : (k + 1) % 4;
      CHECK(writes[static_cast<std::size_t>(agg)] == std::set<std::int64_t>{128 * k});
    }
    std::set<std::string> phases;
    for (const TraceEvent& e : t[0]) phases.insert(e.phase);
    if (s.hints.lap == LapCriterion::None) {
      CHECK(phases.count("metadata_exchange") == 1);
      CHECK(phases.count("st3_lap") == 0);
    } else {
      // Every stage in which rank 0 calls MPI or the file system, under its VECPAR name.
      for (const char* st : {"st3_lap", "aggregators", "st2_offsets_exchange", "st6_metadata_exchange",
                             "st7_exchange", "st8_write", "sync"})
        CHECK(phases.count(st) == 1);
      for (const char* romio : {"offsets_exchange", "metadata_exchange", "exchange", "write"})
        CHECK(phases.count(romio) == 0);
    }
  }
}

TEST_CASE("LAP: aggregation_interval's calls, every iteration, and the stage phases", "[sim][lap]") {
  // 6 ranks on 3 hosts (2 per host), 2 iterations. Per iteration the LAP makes Gather + Gatherv (names),
  // Bcast (host count), 5 Send/Recv of the counts to rank 0, Bcast of the rank list, of the length and of
  // the string; the open adds Bcast of cb_nodes and of the rank list, and gathers the names at the first
  // open only (ROMIO caches them).
  std::vector<int> owner;
  for (int i = 0; i < 30; ++i) owner.push_back((i * 7 + i / 4) % 6);
  const PartitionFile part(owner);
  RunSpec s = mesh_spec(part.path, 30, 4, 6, 3);
  s.hints.lap = LapCriterion::Acn;
  s.iterations = 2;
  const RunResult r = sim::simulate(s);
  CHECK(r.file_verified);
  CHECK(r.calls.at("send") == 2 * 5);
  CHECK(r.calls.at("recv") == 2 * 5);
  CHECK(r.calls.at("gather") == 6 * (2 + 1));
  CHECK(r.calls.at("gatherv") == 6 * (2 + 1));
  CHECK(r.calls.at("bcast") == 6 * 2 * (4 + 2));
  std::vector<std::string> names;
  for (const PhaseTime& p : r.phases) names.push_back(p.name);
  for (const char* st : {"st1_offsets", "st2_offsets_exchange", "st3_lap", "st4_file_domains", "st5_requests",
                         "st6_metadata_exchange", "st7_exchange", "st8_write"}) {
    INFO(st);
    CHECK(std::count(names.begin(), names.end(), st) == 1);
  }
  for (const char* romio : {"offsets", "offsets_exchange", "file_domains", "requests", "metadata_exchange",
                            "exchange", "write"}) {
    INFO(romio);
    CHECK(std::count(names.begin(), names.end(), romio) == 0);
  }
}

TEST_CASE("oracle: every technique writes the identical file on a mesh, with and without LAP",
          "[sim][oracle][lap]") {
  // 37 mesh nodes (3 hosts do not divide them: the last interval is longer, ROMIO's last domain shorter),
  // 6 ranks on 3 hosts, 3 floats per node, owners in runs of uneven length.
  std::vector<int> owner;
  for (int i = 0; i < 37; ++i) owner.push_back((i / 3 + (i % 5 == 0 ? 2 : 0)) % 6);
  const PartitionFile part(owner);
  const WorkloadSpec w = mesh_spec(part.path, 37, 3, 6, 3).workload;
  const Distribution d = make_distribution(w, 6);
  REQUIRE(check_partition(d).empty());
  const std::vector<std::byte> logical = expected_file(d, FileLayout::Logical, w.element_size);
  struct Variant {
    std::string algorithm, label;
    IoHints hints;
  };
  std::vector<Variant> variants;
  for (const TechniqueInfo& t : techniques()) variants.push_back({t.name, "defaults", IoHints{}});
  IoHints vb;
  vb.vb_buffer_size = 50;  // blocks cutting nodes in two; two buffers per pool: evictions
  vb.vb_pool_size = 100;
  vb.vb_aggregators = 4;
  variants.push_back({"view-based", "vb_buffer_size=50 vb_pool_size=100 vb_aggregators=4", vb});
  for (LapCriterion c : {LapCriterion::Acn, LapCriterion::Avn}) {
    IoHints h;
    h.lap = c;
    variants.push_back({"two-phase", "lap", h});
    h.cb_buffer_size = 50;  // windows cutting nodes in two
    variants.push_back({"two-phase", "lap cb_buffer_size=50", h});
    h.version = RomioVersion::Y2007;
    variants.push_back({"two-phase", "lap 2007 cb_buffer_size=50", h});
  }
  int logical_writers = 0, lap_runs = 0;
  for (const Variant& v : variants) {
    const TechniqueInfo& t = technique(v.algorithm);
    if (!t.check(d).empty()) continue;
    RunSpec s = mesh_spec(part.path, 37, 3, 6, 3);
    s.algorithm = v.algorithm;
    s.hints = v.hints;
    INFO(v.algorithm << " (" << v.label << ", lap " << lap_criterion_name(v.hints.lap) << ")");
    const test::Forked wr = test::simulate_forked(s);
    INFO(wr.error);
    REQUIRE(wr.ok);
    CHECK(wr.verified);
    if (t.layout == FileLayout::Logical) {
      CHECK(wr.file == logical);
      ++logical_writers;
      if (v.hints.lap != LapCriterion::None) ++lap_runs;
    }
    if (!t.read || v.hints.lap != LapCriterion::None) continue;  // LAP applies to writes only
    s.access = Access::Read;
    const test::Forked rd = test::simulate_forked(s);
    INFO("read: " << rd.error);
    REQUIRE(rd.ok);
    CHECK(rd.verified);
  }
  CHECK(lap_runs == 6);
  CHECK(logical_writers >= 4 + 6);  // two-phase, list-io, independent, gathered, and the LAP variants
}

TEST_CASE("LAP worked example end to end: mesh1 on 8 hosts, AVN, each domain written by the host chosen",
          "[sim][lap]") {
  // The worked example of docs/two-phase.md: interval -> host 1 2 6 7 0 3 4 5. 47,200 nodes / 8 hosts =
  // 5,900: ROMIO's domains coincide with the intervals; with one float per node each is 23,600 bytes, one
  // window.
  RunSpec s =
      mesh_spec(std::string(CIOSIM_SOURCE_DIR) + "/scenarios/data/bips3d/mesh1/asignacion8", 47200, 1, 8, 8);
  s.hints.lap = LapCriterion::Avn;
  char name[] = "/tmp/ciosim-trace-XXXXXX";
  const int fd = ::mkstemp(name);
  REQUIRE(fd >= 0);
  ::close(fd);
  s.trace_file = name;
  const RunResult r = sim::simulate(s);
  CHECK(r.file_verified);
  const Trace t = parse_trace(slurp(name));
  std::remove(name);
  REQUIRE(t.size() == 8);
  const auto writes = writes_by_rank(t);
  const std::vector<int> host = {1, 2, 6, 7, 0, 3, 4, 5};
  for (int k = 0; k < 8; ++k) {
    INFO("interval " << k);
    CHECK(writes[static_cast<std::size_t>(host[static_cast<std::size_t>(k)])] ==
          std::set<std::int64_t>{23600 * k});
  }
}
