// Operation sequences in the simulator (algorithms/sequence.hpp) and as a scenario key (run.sequence): the
// operations' times, view-based I/O's cached writes paid at close, views shipped once per open, the
// computation between writes, and the keys a sequence replaces. One SimGrid engine per TEST_CASE.
#include <catch2/catch.hpp>

#include "config/workload.hpp"
#include "scenario_text.hpp"
#include "sim/simulate.hpp"
#include "tests/result_phase.hpp"

using namespace ciosim;
using test::contains;

namespace {

RunSpec spec(const std::string& algorithm, const std::string& sequence) {
  RunSpec s;
  s.algorithm = algorithm;
  s.ranks = 4;
  s.platform.name = "test";
  s.platform.nodes = 4;
  s.platform.pvfs.io_servers = 2;
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  s.workload.nx = 16384;  // 64 KiB of 4-byte entries
  s.workload.bx = 64;
  s.sequence = sequence;
  return s;
}

constexpr auto* phase = &test::phase_of;

double sum(const std::vector<double>& v) {
  double t = 0;
  for (const double x : v) t += x;
  return t;
}

}  // namespace

TEST_CASE("view-based through a sequence: writes fill the cache, the close pays the file system",
          "[sim][sequence][view-based]") {
  const RunResult r = sim::simulate(spec("view-based", "open (compute:0.5 write next)*3 close"));
  REQUIRE(r.file_verified);
  REQUIRE(r.operations.size() == 11);
  CHECK(r.operations[0].name == "open");
  CHECK(r.operations[10].name == "close");
  // Each rank on a node of its own: 0.5 s of computation is 0.5 s.
  CHECK(r.operations[1].name == "compute");
  CHECK(r.operations[1].time_s == Approx(0.5).epsilon(1e-9));
  // The writes make no file request: their time is messages and copies into the cached buffers.
  CHECK(sum(phase(r, "write").rank_filesystem_s) == 0.0);
  CHECK(sum(phase(r, "flush").rank_filesystem_s) > 0.0);
  CHECK(r.bytes_file == 3 * 16384 * 4);
  const double close = r.operations[10].time_s;
  for (std::size_t i = 2; i < 10; i += 3) CHECK(r.operations[i].time_s < close);
  // The views travel once, at the open: one Allgather of the view sizes per rank, not one per step.
  CHECK(r.calls.at("allgather") == 4);
}

TEST_CASE("view-based: a second open ships the views again", "[sim][sequence][view-based]") {
  const RunResult r = sim::simulate(spec("view-based", "open write close open read close"));
  REQUIRE(r.file_verified);
  CHECK(r.calls.at("allgather") == 8);
  // The read after a reopen misses the (dropped) cache: it reads the file.
  CHECK(r.calls.at("file_read") > 0);
}

TEST_CASE("view-based: a read in the same open file is served from the cache (collperf's CB)",
          "[sim][sequence][view-based]") {
  const RunResult r = sim::simulate(spec("view-based", "open write read close"));
  REQUIRE(r.file_verified);
  CHECK(r.calls.at("file_read") == 0);
}

TEST_CASE("view-based: calls on part of the view read a block they write in part, once",
          "[sim][sequence][view-based]") {
  // 4 ranks, Bx = 64 (256-byte chunks), blocks of 1 KiB: block b holds chunk row b, one chunk of each rank.
  // Each rank holds 4096 entries, 64 chunks; write/3 cuts them after entries 1365 and 2730, i.e. inside
  // chunk 21 (entry 21 of it) and chunk 42 (entry 42): the first call writes block 21 in part, so its miss
  // reads the block first; the second finds it cached and writes it on, then misses block 42 in part; the
  // third finds 42 cached. Two reads in all; each block then goes back whole, one write per block.
  RunSpec s = spec("view-based", "open (write/3)*3 close open (read/4)*4 close");
  s.hints.vb_buffer_size = 1024;
  const RunResult r = sim::simulate(s);
  REQUIRE(r.file_verified);  // the file, and every read in parts, as the steps hold them
  const auto& write = phase(r, "write");
  CHECK(write.calls.at("file_read") == 2);
  CHECK(write.calls.count("file_write") == 0);  // the pool (64 buffers) holds every block
  CHECK(phase(r, "flush").calls.at("file_write") == 64);
  CHECK(r.bytes_file == 16384 * 4);
  // Each of the 7 calls: every rank sends its interval to the 3 aggregators other than itself.
  CHECK(r.calls.at("isend") >= 7 * 4 * 3);
  CHECK(r.calls.count("alltoall") == 1);
  CHECK(r.calls.at("alltoall") == 0);
  // A technique that writes the whole view in every call says so, before simulating.
  CHECK_THROWS_WITH(sim::simulate(spec("two-phase", "open (write/2)*2 close")),
                    Catch::Contains("accesses a rank's whole view in every call (valid: view-based)"));
}

TEST_CASE("two-phase through a sequence: every write is a whole collective call at its step",
          "[sim][sequence][two-phase]") {
  const RunResult one = sim::simulate(spec("two-phase", "open write next write next write close"));
  REQUIRE(one.file_verified);
  // Each call of modern ROMIO's write_all makes two Allgathers (offsets, then the interleave test) per rank.
  CHECK(one.calls.at("allgather") == 3 * 2 * 4);
  CHECK(one.bytes_file == 3 * 16384 * 4);
  double writes = 0;
  for (const auto& o : one.operations)
    if (o.name == "write") writes += o.time_s;
  CHECK(writes > 0);
}

TEST_CASE("two-phase through a sequence: the aggregators once per open, the names once per run",
          "[sim][sequence][two-phase]") {
  // As ROMIO: MPI_File_open broadcasts the rank map (cb_nodes, then the rank list: two Bcasts) at every
  // open; the processor names are gathered (a Gather of their lengths, a Gatherv of the names) at the
  // communicator's first open only, and cached on it. A write_all selects nothing: it ends with the error
  // agreement, an Allreduce with several aggregators (4 hosts: "*:1" takes all 4 ranks).
  const RunResult r =
      sim::simulate(spec("two-phase", "open (write next)*3 close open (write next)*2 (read next)*2 close"));
  REQUIRE(r.file_verified);
  CHECK(r.calls.at("gather") == 4);                 // one per rank, the first open's
  CHECK(r.calls.at("gatherv") == 4);                // likewise
  CHECK(r.calls.at("bcast") == 2 * 2 * 4);          // two per open and rank
  CHECK(r.calls.at("allreduce") == 5 * 4 + 7 * 4);  // the 5 writes' error agreement; every call's ntimes max
  CHECK(r.calls.at("allgather") == 7 * 2 * 4);      // 5 writes and 2 reads, two each
}

TEST_CASE("run.sequence as a scenario key: compute:workload, and the keys it replaces",
          "[config][sequence]") {
  const std::string btio = R"(name = "s"
[run]
algorithm = "two-phase"
ranks = 4
platform = "quickstart"
sequence = "open (compute:workload write next)*2 close"
[workload]
kind = "btio"
class = "S"
element_size = 8
)";
  const config::Scenario s = config::parse_scenario(btio, "s.toml", test::scenario_options());
  REQUIRE(s.runs.size() == 1);
  CHECK(s.runs[0].sequence == "open (compute:workload write next)*2 close");
  CHECK(s.runs[0].workload_compute_s == btio_compute_s(s.runs[0].workload, 4));
  CHECK(s.runs[0].workload_compute_s > 0);

  const std::string plain = R"(name = "s"
[run]
algorithm = "block"
ranks = 4
platform = "quickstart"
[workload]
nx = 4096
)";
  CHECK(contains(test::scenario_error(plain, {"run.sequence=open compute:workload write close"}),
                 "workload block-cyclic defines no computation"));
  CHECK(contains(test::scenario_error(plain, {"run.sequence=open write close", "run.iterations=3"}),
                 "repeat the writes in the sequence, e.g. (write)*3"));
  CHECK(contains(test::scenario_error(plain, {"run.sequence=open write close", "run.access=read"}),
                 "put the reads in the sequence"));
  CHECK(contains(test::scenario_error(plain, {"run.sequence=open read close", "run.algorithm=iec"}),
                 "technique iec has no read path, and run.sequence reads"));
  CHECK(
      contains(test::scenario_error(plain, {"run.sequence=open wrte close"}), "unknown operation \"wrte\""));
  CHECK(test::scenario_error(plain, {"run.sequence=open write close"}).empty());
}
