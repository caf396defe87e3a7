// ROMIO two-phase in the simulator: per-rank call counts equal the formulas that follow from ROMIO's code
// (its two-phase write, ad_write_coll.c, and its read, ad_read_coll.c; docs/two-phase.md, "Call counts
// asserted"), for one, all and some aggregators, several rounds, the 2007 structure, the independent
// fallbacks, read-modify-write; and the read returns what the write stored. One simulation per TEST_CASE.
//
// Notation: P ranks, A aggregators, M rounds (= ceil(file domain / cb_buffer_size) here, every domain
// being fully covered), Bx = 1 so that every rank has data in every window of every aggregator.
// Once per run (MPI_File_open): gather 1, gatherv 1, bcast 2. Per write_all: allgather 2; alltoall 1 + M;
// allreduce 1 + (A > 1); bcast (A == 1); isend A (+ A again in 2007) + M*A; irecv on an aggregator
// P (x2 in 2007) + M*P; waitall 1 + M; file_write M on an aggregator.
#include <catch2/catch.hpp>

#include "algorithms/common/distribution.hpp"
#include "algorithms/two_phase/two_phase.hpp"
#include "sim/simulate.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

RunSpec spec(int ranks, int nodes) {
  RunSpec s;
  s.algorithm = "two-phase";
  s.ranks = ranks;
  s.platform.name = "test";
  s.platform.nodes = nodes;
  s.platform.cores_per_node = (ranks + nodes - 1) / nodes;
  s.platform.cpu_cores = s.platform.cores_per_node;  // a core per rank
  s.platform.pvfs.io_servers = 2;
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  return s;
}

using Counts = std::vector<Counters>;

/// Runs `body` for every rank and returns each rank's counters at the end of body.
Counts run(const RunSpec& s, const std::function<void(Process&)>& body, bool* verified = nullptr,
           const Distribution* d = nullptr) {
  Counts c(static_cast<std::size_t>(s.ranks));
  sim::run_with(
      s,
      [&](Process& p) {
        body(p);
        c[static_cast<std::size_t>(p.rank())] = p.counters();
      },
      [&](const filesystem::FileStore& f) {
        if (verified && d) *verified = f.bytes() == expected_file(*d, FileLayout::Logical, 4);
      });
  return c;
}

std::function<void(Process&)> writer(const Distribution& d, const TechniqueInput& in) {
  return [&d, &in](Process& p) { two_phase::run_write(p, in, make_local_data(d, p.rank(), 4)); };
}

std::int64_t n(const Counters& c, Call k) {
  return c.count(k);
}

}  // namespace

TEST_CASE("two-phase write, one aggregator, 16 rounds: per-rank call counts", "[sim][two-phase]") {
  const Distribution d = block_cyclic(4096, 4, 1);  // 16 KiB file
  TechniqueInput in{&d, 4, "x.dat", 1, {}};
  in.hints.cb_nodes = 1;
  in.hints.cb_buffer_size = 1024;  // M = 16
  bool ok = false;
  const Counts c = run(spec(4, 4), writer(d, in), &ok, &d);
  CHECK(ok);
  for (int r = 0; r < 4; ++r) {
    INFO("rank " << r);
    const Counters& k = c[static_cast<std::size_t>(r)];
    CHECK(n(k, Call::Gather) == 1);
    CHECK(n(k, Call::Gatherv) == 1);
    CHECK(n(k, Call::Bcast) == 2 + 1);  // open + the error Bcast (cb_nodes == 1)
    CHECK(n(k, Call::Allgather) == 2);
    CHECK(n(k, Call::Alltoall) == 1 + 16);
    CHECK(n(k, Call::Allreduce) == 1);
    CHECK(n(k, Call::Isend) == 1 + 16);
    CHECK(n(k, Call::Irecv) == (r == 0 ? 4 + 16 * 4 : 0));
    CHECK(n(k, Call::Waitall) == 1 + 16);
    CHECK(n(k, Call::FileWrite) == (r == 0 ? 16 : 0));
    CHECK(n(k, Call::FileRead) == 0);
    CHECK(n(k, Call::Send) + n(k, Call::Recv) + n(k, Call::Wait) + n(k, Call::Barrier) == 0);
  }
  CHECK(c[0].bytes_written == 4096 * 4);
}

TEST_CASE("two-phase write, every rank an aggregator (one per host, the default)", "[sim][two-phase]") {
  const Distribution d = block_cyclic(4096, 4, 1);
  TechniqueInput in{&d, 4, "x.dat", 1, {}};
  in.hints.cb_buffer_size = 2048;  // file domains of 4096 bytes: M = 2
  bool ok = false;
  const Counts c = run(spec(4, 4), writer(d, in), &ok, &d);
  CHECK(ok);
  for (const Counters& k : c) {
    CHECK(n(k, Call::Bcast) == 2);
    CHECK(n(k, Call::Allreduce) == 2);
    CHECK(n(k, Call::Alltoall) == 1 + 2);
    CHECK(n(k, Call::Isend) == 4 + 2 * 4);
    CHECK(n(k, Call::Irecv) == 4 + 2 * 4);
    CHECK(n(k, Call::Waitall) == 1 + 2);
    CHECK(n(k, Call::FileWrite) == 2);
  }
}

TEST_CASE("two-phase write, some aggregators (cb_nodes = 2) and a buffer that forces 6 rounds",
          "[sim][two-phase]") {
  const Distribution d = block_cyclic(8192, 4, 1);  // 32 KiB: two domains of 16384 bytes
  TechniqueInput in{&d, 4, "x.dat", 1, {}};
  in.hints.cb_nodes = 2;
  in.hints.cb_buffer_size = 3000;  // ceil(16384 / 3000) = 6 rounds, the last one of 1384 bytes
  bool ok = false;
  const Counts c = run(spec(4, 4), writer(d, in), &ok, &d);
  CHECK(ok);
  for (int r = 0; r < 4; ++r) {
    INFO("rank " << r);
    const Counters& k = c[static_cast<std::size_t>(r)];
    const bool agg = r < 2;  // the lowest rank of node0 and node1
    CHECK(n(k, Call::Alltoall) == 1 + 6);
    CHECK(n(k, Call::Allreduce) == 2);
    CHECK(n(k, Call::Isend) == 2 + 6 * 2);
    CHECK(n(k, Call::Irecv) == (agg ? 4 + 6 * 4 : 0));
    CHECK(n(k, Call::Waitall) == 1 + 6);
    CHECK(n(k, Call::FileWrite) == (agg ? 6 : 0));
  }
}

TEST_CASE("two-phase write, 2007 structure: offsets and lengths as two messages per peer",
          "[sim][two-phase]") {
  const Distribution d = block_cyclic(4096, 4, 1);
  TechniqueInput in{&d, 4, "x.dat", 1, {}};
  in.hints.cb_buffer_size = 2048;
  in.hints.version = RomioVersion::Y2007;
  in.hints.striping_unit = 1000;  // ignored: 2007 ROMIO had no file-domain alignment
  bool ok = false;
  const Counts c = run(spec(4, 4), writer(d, in), &ok, &d);
  CHECK(ok);
  for (const Counters& k : c) {
    CHECK(n(k, Call::Isend) == 2 * 4 + 2 * 4);
    CHECK(n(k, Call::Irecv) == 2 * 4 + 2 * 4);
    CHECK(n(k, Call::Waitall) == 1 + 2);
    CHECK(n(k, Call::FileWrite) == 2);
  }
  // Rank 0's bytes: gather 4 + gatherv 6 ("node0" and its NUL) + the open's Bcasts as root 4 + 4*4 +
  // Allgathers 2*8 + Alltoall of counts 4*4 + metadata 4 peers x 256 pieces x (8 + 4) (modern: x 16) +
  // its data 4096 + round Alltoalls 2 * 4*4 + Allreduces 2*8 (ciosim's allreduce carries 8-byte values).
  CHECK(c[0].bytes_sent == 4 + 6 + 20 + 16 + 16 + 4 * 256 * 12 + 4096 + 32 + 16);
  // The same bytes by phase and kind of call: the lists apart from the data (results.json's bytes_sent).
  const auto bytes = [&](const std::string& phase, Call k) {
    const auto it = c[0].phase_bytes.find(phase);
    return it == c[0].phase_bytes.end() ? std::int64_t{0} : it->second[static_cast<std::size_t>(k)];
  };
  CHECK(bytes("aggregators", Call::Gather) == 4);
  CHECK(bytes("aggregators", Call::Gatherv) == 6);
  CHECK(bytes("aggregators", Call::Bcast) == 20);
  CHECK(bytes("offsets_exchange", Call::Allgather) == 16);
  CHECK(bytes("metadata_exchange", Call::Alltoall) == 16);
  CHECK(bytes("metadata_exchange", Call::Isend) == 4 * 256 * 12);
  CHECK(bytes("exchange", Call::Isend) == 4096);
  std::int64_t sum = 0;
  for (const auto& [phase, kinds] : c[0].phase_bytes)
    for (std::int64_t b : kinds) sum += b;
  CHECK(sum == c[0].bytes_sent);
}

TEST_CASE("two-phase with romio_cb_write = disable: no MPI call in the write, list I/O", "[sim][two-phase]") {
  const Distribution d = block_cyclic(4096, 4, 1);  // 1024 one-entry pieces per rank
  TechniqueInput in{&d, 4, "x.dat", 1, {}};
  in.hints.cb_write = CbMode::Disable;
  in.hints.listio_batch = 100;
  bool ok = false;
  const Counts c = run(spec(4, 4), writer(d, in), &ok, &d);
  CHECK(ok);
  for (const Counters& k : c) {
    CHECK(n(k, Call::FileListWrite) == (1024 + 99) / 100);
    // Only the open-time aggregator selection communicates.
    CHECK(n(k, Call::Gather) + n(k, Call::Gatherv) + n(k, Call::Bcast) == 4);
    CHECK(n(k, Call::Allgather) + n(k, Call::Alltoall) + n(k, Call::Isend) + n(k, Call::Allreduce) == 0);
  }
}

TEST_CASE("two-phase, automatic, accesses that do not interleave: one contiguous write each",
          "[sim][two-phase]") {
  const Distribution d = block_cyclic(4096, 4, 1024);  // each rank one contiguous block
  TechniqueInput in{&d, 4, "x.dat", 3, {}};            // three write_all calls
  bool ok = false;
  const Counts c = run(spec(4, 4), writer(d, in), &ok, &d);
  CHECK(ok);
  for (const Counters& k : c) {
    CHECK(n(k, Call::Allgather) == 3 * 2);  // the offsets are still exchanged to test interleaving
    CHECK(n(k, Call::FileWrite) == 3);
    CHECK(n(k, Call::Alltoall) + n(k, Call::Isend) + n(k, Call::Allreduce) == 0);
    CHECK(n(k, Call::Bcast) == 2);  // the open's, once
  }
}

TEST_CASE("two-phase read returns what two-phase wrote, and its call counts", "[sim][two-phase]") {
  // Several ranks per host: the default cb_config_list "*:1" takes the lowest rank of each host, so
  // 6 ranks on 3 hosts give the aggregators 0, 2, 4.
  const Distribution d = block_cyclic(6 * 1000, 6, 1);  // 24000 bytes: domains of 8000, M = 4
  TechniqueInput in{&d, 4, "x.dat", 1, {}};
  in.hints.cb_buffer_size = 2000;
  Counts after_write(6), after_read(6);
  std::vector<char> same(6, 0);
  const RunSpec s = spec(6, 3);
  sim::run_with(s, [&](Process& p) {
    const std::vector<std::byte> mine = make_local_data(d, p.rank(), 4);
    two_phase::run_write(p, in, mine);
    after_write[static_cast<std::size_t>(p.rank())] = p.counters();
    std::vector<std::byte> back(mine.size());
    two_phase::run_read(p, in, back);
    after_read[static_cast<std::size_t>(p.rank())] = p.counters();
    same[static_cast<std::size_t>(p.rank())] = back == mine;
  });
  for (int r = 0; r < 6; ++r) {
    INFO("rank " << r);
    const bool agg = r % 2 == 0;
    const Counters& w = after_write[static_cast<std::size_t>(r)];
    const Counters& t = after_read[static_cast<std::size_t>(r)];
    auto read = [&](Call k) { return t.count(k) - w.count(k); };
    CHECK(same[static_cast<std::size_t>(r)]);
    CHECK(n(w, Call::FileWrite) == (agg ? 4 : 0));
    // Read: another open-time selection first, without gathering the processor names again (ROMIO caches
    // them on the communicator at its first open: only the rank map's two Bcasts), the same steps 1-5, then
    // per round: Alltoall, Irecv from every aggregator, Isend (aggregators) to every rank, Waitall(recvs)
    // when any, Waitall(sends) always.
    CHECK(n(w, Call::Gather) == 1);
    CHECK(n(w, Call::Gatherv) == 1);
    CHECK(read(Call::Gather) == 0);
    CHECK(read(Call::Gatherv) == 0);
    CHECK(read(Call::Bcast) == 2);  // no error Bcast/Allreduce at the end of a read
    CHECK(read(Call::Allreduce) == 1);
    CHECK(read(Call::Allgather) == 2);
    CHECK(read(Call::Alltoall) == 1 + 4);
    CHECK(read(Call::Isend) == 3 + (agg ? 4 * 6 : 0));
    CHECK(read(Call::Irecv) == (agg ? 6 : 0) + 4 * 3);
    CHECK(read(Call::Waitall) == 1 + 4 * 2);
    CHECK(read(Call::FileRead) == (agg ? 4 : 0));
    CHECK(read(Call::FileWrite) == 0);
  }
}

TEST_CASE("two-phase write: a window with holes is read before it is written", "[sim][two-phase]") {
  // Block b of 8 entries: its first 4 entries are held by rank b % 4, the other 4 by nobody. The file has
  // holes, so every window of the single aggregator is read, patched and written.
  const Distribution d = test::half_held_blocks();
  TechniqueInput in{&d, 4, "x.dat", 1, {}};
  in.hints.cb_nodes = 1;
  in.hints.cb_buffer_size = 512;  // extent 0..2031 (508 entries): M = 4
  std::vector<std::byte> file;
  Counts c(4);
  sim::run_with(
      spec(4, 4),
      [&](Process& p) {
        two_phase::run_write(p, in, make_local_data(d, p.rank(), 4));
        c[static_cast<std::size_t>(p.rank())] = p.counters();
      },
      [&](const filesystem::FileStore& f) { file = f.bytes(); });
  CHECK(n(c[0], Call::FileRead) == 4);
  CHECK(n(c[0], Call::FileWrite) == 4);
  for (int r = 1; r < 4; ++r) CHECK(n(c[static_cast<std::size_t>(r)], Call::FileRead) == 0);
  // Held entries carry their values, holes read back as the zeros the empty file held.
  std::vector<std::byte> expect = expected_file(d, FileLayout::Logical, 4);
  for (std::int64_t e = 0; e < 508; ++e)
    if (e % 8 >= 4)
      for (int k = 0; k < 4; ++k) expect[static_cast<std::size_t>(4 * e + k)] = std::byte{0};
  expect.resize(508 * 4);
  CHECK(file == expect);
}
