// run.cpu_charge = "library": the MPI library's own MPI_File_write_all/read_all predicted as two-phase's
// calls plus ROMIO's work per piece, which its aggregators do where ciosim's code does not (a datatype built,
// committed and freed over the pieces of each round: 77 % of ROMIO's time in ADIOI_Type_create_hindexed_x
// under perf at 4-byte pieces, Open MPI 4.1's romio321). Charged at nodes.romio_piece_s per piece an
// aggregator receives (writes) or sends (reads); calibrate measures it through the library.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>

#include "config/calibration.hpp"
#include "config/point_checks.hpp"
#include "sim/simulate.hpp"
#include "tests/result_phase.hpp"
#include "tests/scenario_text.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

/// Block-cyclic Bx = 1 on 4 ranks, one per node: every entry a piece of its own, so the aggregators
/// receive (a read: send) kNx pieces in all. CPU costs other than the library's are zero or negligible.
constexpr std::int64_t kNx = 4096;

RunSpec library_spec(CpuCharge charge, Access access) {
  RunSpec s = test::block_cyclic_spec("two-phase", kNx, 1);
  s.platform.tuple_cost_s = 0;
  s.platform.memcpy_Bps = 1e15;  // copies cost femtoseconds
  s.platform.romio_piece_s = 1e-4;
  s.cpu_charge = charge;
  s.access = access;
  return s;
}

/// CPU seconds of the exchange phase, summed over the ranks.
double exchange_cpu(const RunResult& r) {
  const auto cpu = test::phase_of(r, "exchange").rank_cpu_s;
  return std::accumulate(cpu.begin(), cpu.end(), 0.0);
}

}  // namespace

TEST_CASE("the library's write: romio_piece_s per piece its aggregators receive",
          "[two-phase][library][sim]") {
  const RunResult lib = sim::simulate(library_spec(CpuCharge::library, Access::Write));
  CHECK(lib.file_verified);
  CHECK(exchange_cpu(lib) == Approx(kNx * 1e-4).epsilon(1e-6));
}

TEST_CASE("ciosim's own two-phase write is not charged the library's pieces", "[two-phase][library][sim]") {
  const RunResult own = sim::simulate(library_spec(CpuCharge::implementation, Access::Write));
  CHECK(own.file_verified);
  CHECK(exchange_cpu(own) < 1e-6);  // tuples cost 0 here: only the femtosecond copies
}

TEST_CASE("the library's read: romio_piece_s per piece its aggregators send", "[two-phase][library][sim]") {
  const RunResult lib = sim::simulate(library_spec(CpuCharge::library, Access::Read));
  CHECK(lib.file_verified);
  CHECK(exchange_cpu(lib) == Approx(kNx * 1e-4).epsilon(1e-6));
}

TEST_CASE("run.cpu_charge = library is two-phase's, on a platform that measured it", "[two-phase][library]") {
  const std::string base = R"(name = "l"
[run]
algorithm = "two-phase"
ranks = 2
platform = "quickstart"
cpu_charge = "library"
[workload]
nx = 1024
)";
  const std::string no_cost = test::scenario_error(base);
  CHECK(test::contains(no_cost, "needs nodes.romio_piece_s"));
  CHECK(test::contains(no_cost, "ciosim calibrate"));
  CHECK(test::scenario_error(base, {"nodes.romio_piece_s=2e-7"}).empty());
  const std::string iec = test::scenario_error(base, {"nodes.romio_piece_s=2e-7", "run.algorithm=iec"});
  CHECK(test::contains(iec, "two-phase"));
  const std::string lap = test::scenario_error(base, {"nodes.romio_piece_s=2e-7", "hints.lap=acn"});
  CHECK(test::contains(lap, "without LAP"));
  // Nothing of ciosim's runs the library's call on MPI: ciosim-mpi and validate refuse it.
  const config::Scenario s =
      config::parse_scenario(base, "s.toml", test::scenario_options({"nodes.romio_piece_s=2e-7"}));
  CHECK(test::contains(config::check_runs_on_mpi(s.runs.front()), "reference"));
  CHECK(config::check_runs_on_mpi(RunSpec{}).empty());
}

TEST_CASE("calibrate fits romio_piece_s from the library's write in small and large pieces", "[calibrate]") {
  // The measurements of a machine whose library spends 200 ns a piece, 2 ms in all beyond it.
  const auto stats = [](double t) { return nlohmann::json{{"median", t}, {"min", t}, {"max", t}}; };
  nlohmann::json m;
  m["library_write_all"] = {
      {"bytes", 4194304},
      {"aggregators", 1},
      {"cases",
       {{{"piece_bytes", 4}, {"pieces", 1048576}, {"seconds", stats(2e-3 + 1048576 * 2e-7)}},
        {{"piece_bytes", 65536}, {"pieces", 64}, {"seconds", stats(2e-3 + 64 * 2e-7)}}}}};
  CHECK(config::romio_piece_from_measurements(m) == Approx(2e-7));
  m["library_write_all"]["cases"][0]["seconds"] = stats(1e-3);  // faster in small pieces: noise, not a cost
  CHECK(config::romio_piece_from_measurements(m) == 0);
}
