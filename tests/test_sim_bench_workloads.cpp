// The btio and tile workloads end to end: scenario text -> RunSpec -> simulation on the cacau-2008
// platform, each file checked byte by byte (write, and read back); and the Table I count measured in a
// simulation: the bytes two-phase's ranks send in ROMIO's offset-length exchange for one BT-IO class B
// write on 25 ranks (García Blas, Isaila, Singh, Carretero, "View-based collective I/O for MPI-IO", CCGrid
// 2008, Table I), against the hand count of docs/workloads-benchmarks.md.
#include <catch2/catch.hpp>

#include "algorithms/common/bench_distributions.hpp"
#include "algorithms/two_phase/two_phase.hpp"
#include "config/scenario.hpp"
#include "config/workload.hpp"
#include "sim/simulate.hpp"
#include "tests/scenario_text.hpp"
#include "tests/sim_fork.hpp"

using namespace ciosim;
using namespace ciosim::config;

namespace {

Scenario scenario(const std::string& text) {
  return parse_scenario(text, "s.toml", test::scenario_options());
}

}  // namespace

TEST_CASE("btio class S and W: two-phase writes and reads back the solution file on cacau-2008",
          "[sim][btio]") {
  const Scenario s = scenario(R"(name = "b"
[run]
algorithm = "two-phase"
access = ["write", "read"]
ranks = [4, 9, 16]
platform = "cacau-2008"
[workload]
kind = "btio"
class = ["S", "W"]
element_size = 8
)");
  REQUIRE(s.runs.size() == 12);
  for (const RunSpec& r : s.runs) {
    INFO(r.workload.btio_class << " on " << r.ranks << (r.access == Access::Read ? " read" : " write"));
    const test::Forked f = test::simulate_forked(r);
    REQUIRE(f.error.empty());
    CHECK(f.verified);
    const std::int64_t n = btio_class(r.workload.btio_class).n;
    CHECK(static_cast<std::int64_t>(f.file.size()) == 40 * n * n * n);
    CHECK(f.sim_time_s > 0);
  }
}

TEST_CASE("tile: two-phase and independent I/O write MPI-Tile-IO's array, with a header, on cacau-2008",
          "[sim][tile]") {
  const Scenario s = scenario(R"(name = "t"
[run]
algorithm = ["two-phase", "independent"]
ranks = [4, 6]
platform = "cacau-2008"
[workload]
kind = "tile"
tile_x = 64
tile_y = 48
element_size = 8
header_bytes = [0, 256]
)");
  REQUIRE(s.runs.size() == 8);
  for (const RunSpec& r : s.runs) {
    INFO(r.algorithm << " on " << r.ranks << " header " << r.workload.header_bytes);
    const test::Forked f = test::simulate_forked(r);
    REQUIRE(f.error.empty());
    CHECK(f.verified);
    CHECK(static_cast<std::int64_t>(f.file.size()) == r.workload.header_bytes + r.ranks * 64 * 48 * 8);
  }
}

TEST_CASE(
    "Table I measured: two-phase sends 52,044 pairs = 832,704 bytes of offset-length lists for one "
    "BT-IO class B write on 25 ranks",
    "[sim][btio][two-phase]") {
  const Distribution d = btio(102, 25);
  RunSpec spec = scenario(R"(name = "t1"
[run]
algorithm = "two-phase"
ranks = 25
platform = "cacau-2008"
[workload]
kind = "btio"
class = "B"
element_size = 8
)")
                     .runs.at(0);
  TechniqueInput in{&d, 8, "x.dat", 1, spec.hints};
  std::vector<std::int64_t> list_bytes(25, 0);
  bool verified = false;
  sim::run_with(
      spec,
      [&](Process& p) {
        p.record_trace(true);
        two_phase::run_write(p, in, make_local_data(d, p.rank(), 8));
        for (const TraceEvent& e : p.trace())
          if (e.phase == "metadata_exchange" && e.kind == Call::Isend)
            list_bytes[static_cast<std::size_t>(p.rank())] += e.a;
      },
      [&](const filesystem::FileStore& f) {
        verified = f.bytes() == expected_file(d, FileLayout::Logical, 8);
      });
  CHECK(verified);
  std::int64_t total = 0;
  for (const std::int64_t b : list_bytes) total += b;
  CHECK(total == 52044 * 16);
}
