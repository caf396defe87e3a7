// View-based collective I/O (García Blas, Isaila, Singh, Carretero, "View-based collective I/O for
// MPI-IO", CCGrid 2008) in the simulator: view shipping, the static block ownership, the LRU pool and
// write-on-close against closed forms, the cache across calls (a read after a write in the same open
// file), and its MPI calls beside two-phase's on a block3d point (the paper's Table II contrast). Real
// SimGrid runs through the Process seam; the sessions are driven here as the operation-sequence driver
// will drive them. One engine per TEST_CASE (forks for two).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>

#include "algorithms/technique.hpp"
#include "algorithms/view_based/view_based.hpp"
#include "config/workload.hpp"
#include "sim/simulate.hpp"
#include "sim_fork.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

/// P ranks on P nodes, block-cyclic x of nx 4-byte entries in chunks of bx.
RunSpec spec(int ranks, std::int64_t nx, std::int64_t bx) {
  RunSpec s = test::block_cyclic_spec("view-based", nx, bx, ranks);
  s.platform.pvfs.stripe_size = 64;
  return s;
}

/// Call counts and bytes of every rank at the marks the body takes, summed over ranks after the run.
struct Marks {
  std::vector<std::vector<Counters>> at;  ///< [mark][rank]
  Marks(int nmarks, int ranks)
      : at(static_cast<std::size_t>(nmarks), std::vector<Counters>(static_cast<std::size_t>(ranks))) {}
  void take(int mark, const Process& p) {
    at[static_cast<std::size_t>(mark)][static_cast<std::size_t>(p.rank())] = p.counters();
  }
  std::int64_t calls(int mark, Call c) const {
    std::int64_t n = 0;
    for (const Counters& k : at[static_cast<std::size_t>(mark)]) n += k.count(c);
    return n;
  }
  std::int64_t written(int mark) const {
    std::int64_t n = 0;
    for (const Counters& k : at[static_cast<std::size_t>(mark)]) n += k.bytes_written;
    return n;
  }
};

/// One open file: set_view(0), three writes, a read with no close in between (the paper's "CB" case),
/// close. Counters are taken after set_view (0), the first write (1), the third (2), the read (3) and
/// close (4); the file and every rank's read are checked.
struct CachedRun {
  Marks m{5, 4};
  int reads_ok = 0;
  bool file_ok = false;
};
CachedRun write_three_times_then_read(const RunSpec& s) {
  const Distribution d = make_distribution(s.workload, s.ranks);
  const TechniqueInput in{&d, 4, "x.dat", 1, s.hints, 0};
  CachedRun out;
  out.m = Marks(5, s.ranks);
  std::vector<char> read_ok(static_cast<std::size_t>(s.ranks), 0);
  sim::run_with(
      s,
      [&](Process& p) {
        const std::vector<std::byte> local = make_local_data(d, p.rank(), 4);
        auto session = view_based::make_session(p, in);
        session->set_view(0);
        out.m.take(0, p);
        for (int i = 0; i < 3; ++i) {
          session->write(local);
          out.m.take(i == 0 ? 1 : 2, p);
        }
        std::vector<std::byte> back(local.size());
        session->read(back);
        read_ok[static_cast<std::size_t>(p.rank())] = back == local;
        out.m.take(3, p);
        session->close();
        out.m.take(4, p);
      },
      [&](const filesystem::FileStore& f) {
        out.file_ok = f.bytes() == expected_file(d, FileLayout::Logical, 4);
      });
  out.reads_ok = static_cast<int>(std::count(read_ok.begin(), read_ok.end(), 1));
  return out;
}

}  // namespace

TEST_CASE("view-based: set_view ships each rank's view once to every aggregator", "[sim][view-based]") {
  // 4 ranks, 2 aggregators (ranks 0 and 2): one Allgather of the view sizes, then every rank sends its
  // view to each aggregator but itself (P*A - A = 6 messages), each aggregator receives P - 1.
  RunSpec s = spec(4, 1024, 16);
  s.hints.vb_aggregators = 2;
  const Distribution d = make_distribution(s.workload, s.ranks);
  const TechniqueInput in{&d, 4, "x.dat", 1, s.hints, 0};
  Marks m(1, 4);
  sim::run_with(s, [&](Process& p) {
    auto session = view_based::make_session(p, in);
    session->set_view(0);
    m.take(0, p);
    session->close();
  });
  CHECK(m.calls(0, Call::Allgather) == 4);
  CHECK(m.calls(0, Call::Isend) == 6);
  CHECK(m.calls(0, Call::Irecv) == 6);
  CHECK(m.calls(0, Call::Waitall) == 4);
  CHECK(m.calls(0, Call::Alltoall) == 0);
  // A block-cyclic view is one tuple replicated: 7 words = 56 bytes per message, 8 for the Allgather.
  const std::int64_t sent_by_rank1 = m.at[0][1].bytes_sent;
  CHECK(sent_by_rank1 == 8 + 2 * 56);
}

TEST_CASE("view-based: set_view is charged the datatype's every tuple, which its code walks",
          "[sim][view-based]") {
  // Bx = 1 on 2 ranks: each rank's datatype is one 1-entry tuple replicated 4096 times. make_view lists
  // all 4096 storage pieces (to learn that memory order is file order), then the one-tuple view is
  // serialized; every rank aggregates, so each also maps both ranks' views (one tuple each). Measured on
  // real MPI before this charge: set_view 10.8 ms at 16 MiB, Bx = 1, predicted 0.
  const RunSpec s = spec(2, 8192, 1);
  const Distribution d = make_distribution(s.workload, s.ranks);
  const RunResult r = sim::run_with(s, [&](Process& p) {
    auto session = view_based::make_session(p, TechniqueInput{&d, 4, "x.dat", 1, s.hints, 0});
    session->set_view(0);
    session->close();
  });
  const PhaseTime* set_view = nullptr;
  for (const PhaseTime& ph : r.phases)
    if (ph.name == "set_view") set_view = &ph;
  REQUIRE(set_view);
  const Datatype& mine = d.per_rank[1];
  REQUIRE(mine.all_tuples() == 4096);
  const double tuples = static_cast<double>(mine.all_tuples() + 1 + 2);
  CHECK(set_view->rank_cpu_s.at(1) == Approx(tuples * s.platform.tuple_cost_s));
}

TEST_CASE("view-based: writes stay cached until close when the pool holds every block", "[sim][view-based]") {
  // 4 KiB file, blocks of 256 bytes: 16 blocks, 8 per aggregator (ranks 0 and 2); every block holds one
  // 16-entry chunk of each rank, so each rank touches all 16 blocks in every write.
  RunSpec s = spec(4, 1024, 16);
  s.hints.vb_aggregators = 2;
  s.hints.vb_buffer_size = 256;
  const CachedRun r = write_three_times_then_read(s);
  const Marks& m = r.m;
  CHECK(r.file_ok);
  CHECK(r.reads_ok == 4);
  // Writes: nothing reaches the file system. Per write, each rank tells each other aggregator its view
  // interval and sends it its 8 pieces (64 bytes each) coalesced into one network buffer: ranks 1 and 3
  // to both aggregators, ranks 0 and 2 to the other one: 6 intervals + 6 data messages, all received
  // non-blocking (the data as it arrives, one Waitany per message).
  CHECK(m.calls(2, Call::Isend) - m.calls(0, Call::Isend) == 3 * 12);
  CHECK(m.calls(2, Call::Irecv) - m.calls(0, Call::Irecv) == 3 * 12);
  CHECK(m.calls(2, Call::Waitany) == 3 * 6);
  CHECK(m.calls(2, Call::Recv) == 0);
  // The read finds every block in the cache: no file read; 6 read requests travel to the aggregators,
  // which answer each with one coalesced message; the readers copy each answer in as it arrives.
  CHECK(m.calls(3, Call::FileRead) == 0);
  CHECK(m.calls(3, Call::Isend) - m.calls(2, Call::Isend) == 6 + 6);
  CHECK(m.calls(3, Call::Irecv) - m.calls(2, Call::Irecv) == 6 + 6);
  CHECK(m.calls(3, Call::Waitany) - m.calls(2, Call::Waitany) == 6);
  // Close writes each block once, contiguously: 16 writes, the whole file.
  CHECK(m.calls(4, Call::FileWrite) == 16);
  CHECK(m.written(4) == 4096);
}

TEST_CASE("view-based: a pool smaller than the data evicts least recently used buffers",
          "[sim][view-based]") {
  // As above with a pool of two 256-byte buffers. Each aggregator visits its 8 blocks in order in every
  // call, so LRU misses every time: the first write evicts 8 - 2 blocks, the next two 8 each; the read in
  // the same open file then misses all 8 (reading each block) and evicts the 2 dirty ones left; close has
  // nothing dirty left. Every block reaches the file once per write: 3 * 16 writes.
  RunSpec s = spec(4, 1024, 16);
  s.hints.vb_aggregators = 2;
  s.hints.vb_buffer_size = 256;
  s.hints.vb_pool_size = 512;
  const CachedRun r = write_three_times_then_read(s);
  const Marks& m = r.m;
  CHECK(r.file_ok);
  CHECK(r.reads_ok == 4);
  CHECK(m.calls(1, Call::FileWrite) == 2 * (8 - 2));
  CHECK(m.written(1) == 2 * (8 - 2) * 256);
  CHECK(m.calls(2, Call::FileWrite) == 2 * (6 + 8 + 8));
  CHECK(m.calls(3, Call::FileRead) == 2 * 8);
  CHECK(m.calls(3, Call::FileWrite) == 2 * (22 + 2));
  CHECK(m.calls(4, Call::FileWrite) == 3 * 16);
  CHECK(m.written(4) == 3 * 4096);
}

TEST_CASE("view-based: a read of a partly written cached block reads the file and keeps the newer bytes",
          "[sim][view-based]") {
  // One aggregator, blocks of 64 bytes, a 512-byte file of 0xAA. A write through views displaced by 32
  // bytes leaves block 0 with only [32, 64) valid and dirty; a read through views at displacement 0 needs
  // [0, 64) of it: the block is read from the file and the dirty bytes laid over it. Blocks 1-3 are hits.
  RunSpec s = spec(2, 64, 8);
  s.hints.vb_aggregators = 1;
  s.hints.vb_buffer_size = 64;
  const Distribution d = make_distribution(s.workload, s.ranks);
  const TechniqueInput in{&d, 4, "x.dat", 1, s.hints, 0};
  const std::vector<std::byte> initial(512, std::byte{0xAA});
  std::vector<std::byte> want_file = initial;
  const std::vector<std::byte> x = expected_file(d, FileLayout::Logical, 4);
  std::memcpy(want_file.data() + 32, x.data(), x.size());
  Marks m(2, 2);
  std::vector<char> read_ok(2, 0);
  bool file_ok = false;
  sim::run_with(
      s,
      [&](Process& p) {
        const std::vector<std::byte> local = make_local_data(d, p.rank(), 4);
        auto session = view_based::make_session(p, in);
        session->set_view(32);
        session->write(local);
        session->set_view(0);
        std::vector<std::byte> back(local.size());
        session->read(back);
        m.take(0, p);
        // What the file holds at the entries' positions once the write is applied: 0xAA before byte 32.
        std::vector<std::byte> want(local.size());
        const Datatype& dt = d.per_rank[static_cast<std::size_t>(p.rank())];
        for (std::int64_t k = 0; k < dt.size(); ++k)
          std::memcpy(want.data() + k * 4, want_file.data() + phy2log(dt, k) * 4, 4);
        read_ok[static_cast<std::size_t>(p.rank())] = back == want;
        session->close();
        m.take(1, p);
      },
      [&](const filesystem::FileStore& f) { file_ok = f.bytes() == want_file; }, &initial);
  CHECK(std::count(read_ok.begin(), read_ok.end(), 1) == 2);
  CHECK(m.calls(0, Call::FileRead) == 1);
  CHECK(m.calls(0, Call::FileWrite) == 0);
  // Close: the dirty ranges only: [32, 64) of block 0, blocks 1-3 whole, [0, 32) of block 4.
  CHECK(m.calls(1, Call::FileWrite) == 5);
  CHECK(m.written(1) == 256);
  CHECK(file_ok);
}

TEST_CASE("view-based against two-phase: MPI calls on block3d 128^3 at 8 ranks, 4 MiB buffers",
          "[sim][view-based]") {
  // The paper's Table II setting scaled down (collperf is 512^3; its buffers are 4 MiB for both). The
  // 8 MiB file is two 4 MiB blocks of 64 x-planes: ranks 0-3 hold block 0 (owner rank 0), ranks 4-7
  // block 1 (owner rank 1). View-based: 56 view messages and one Allgather at set_view; the write: the
  // 3 + 4 senders each send its owner its view interval and one data message (a 1 MiB piece fits the 4 MiB
  // network buffer; owners keep their own), received non-blocking; no Alltoall; two file writes at close.
  RunSpec s = spec(8, 0, 1);
  s.workload.kind = "block3d";
  s.workload.nx = s.workload.ny = s.workload.nz = 128;
  s.hints.cb_buffer_size = 4 << 20;
  const test::Forked vb = test::simulate_forked(s);
  s.algorithm = "two-phase";
  const test::Forked tp = test::simulate_forked(s);
  REQUIRE(vb.ok);
  REQUIRE(tp.ok);
  CHECK(vb.verified);
  CHECK(vb.file == tp.file);
  const auto n = [](const test::Forked& f, const char* c) { return f.calls.count(c) ? f.calls.at(c) : 0; };
  CHECK(n(vb, "isend") == 56 + 7 + 7);
  CHECK(n(vb, "irecv") == 56 + 7 + 7);
  CHECK(n(vb, "waitany") == 7);
  CHECK(n(vb, "recv") == 0);
  CHECK(n(vb, "allgather") == 8);
  CHECK(n(vb, "alltoall") == 0);
  CHECK(n(vb, "file_write") == 2);
  // Two-phase makes collectives on every call (two Allgathers of offsets, Alltoalls of counts and sizes).
  CHECK(n(tp, "allgather") == 16);
  CHECK(n(tp, "alltoall") > 0);
  CHECK(n(tp, "alltoall") + n(tp, "allgather") > n(vb, "alltoall") + n(vb, "allgather"));
}
