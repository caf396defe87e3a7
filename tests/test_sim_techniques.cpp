// The techniques end to end in the simulator: real bytes through the modelled network and PVFS servers,
// the file verified, calls counted, timings decomposed. One SimGrid engine per TEST_CASE.
#include <catch2/catch.hpp>

#include "algorithms/iec/iec.hpp"
#include "models/network/profiles.hpp"
#include "sim/simulate.hpp"
#include "tests/result_phase.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

RunSpec spec(const std::string& algorithm, std::int64_t nx, std::int64_t bx, int ranks = 4) {
  return test::block_cyclic_spec(algorithm, nx, bx, ranks);
}

}  // namespace

TEST_CASE("IEC writes x in its original order through the simulated PVFS", "[sim][iec]") {
  const RunResult r = sim::simulate(spec("iec", 4096, 4));
  CHECK(r.file_verified);
  CHECK(r.bytes_file == 4096 * 4);
  // Per rank: 2 phases x (isend of the bundle size + isend of the bundle) in the inspector, 2 exchange
  // isends in the executor; one write_at; one open and one close.
  CHECK(r.calls.at("isend") == 4 * (2 * 2 + 2));
  CHECK(r.calls.at("irecv") == 4 * (2 * 2 + 2));
  CHECK(r.calls.at("file_write") == 4);
  CHECK(r.calls.at("file_open") == 4);
  CHECK(r.calls.at("alltoall") == 0);
  std::vector<std::string> names;
  for (const auto& p : r.phases) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"open", "inspector", "place", "exchange0", "exchange1", "pack",
                                          "write", "close"});
  double sum = 0;
  for (const auto& p : r.phases) sum += p.time_s;
  CHECK(sum >= r.sim_time_s * 0.999);  // phases are maxima over ranks: they cover the run
}

TEST_CASE("IEC exchange phases cost what the network and CPU models say", "[sim][iec]") {
  // 2 ranks: one exchange of Nx/4 entries each way, full duplex, rendezvous on Myrinet, plus packing
  // Nx/4 entries at memcpy speed (one tuple: the second half is contiguous).
  const std::int64_t nx = 1 << 20;
  const RunResult r = sim::simulate(spec("iec", nx, 1, 2));
  REQUIRE(r.file_verified);
  const double bytes = nx / 4 * 4.0;
  const auto& m = network_profile("myrinet");
  const PlatformSpec ps;
  const double expected = bytes / ps.memcpy_Bps + ps.tuple_cost_s + m.lone_message_time(bytes);
  // The phase is the max over ranks, measured from each rank's own start of the phase; the two ranks
  // leave the inspector up to one route latency apart, so the earlier one waits that much longer.
  CHECK(test::phase_time(r, "exchange0") >= expected * (1 - 1e-9));
  CHECK(test::phase_time(r, "exchange0") <= expected + 2 * m.link_latency_s + 1e-6);
}

TEST_CASE("Block I/O writes each rank's entries contiguously, rank after rank", "[sim][block]") {
  const RunResult r = sim::simulate(spec("block", 4096, 4));
  CHECK(r.file_verified);
  CHECK(r.calls.at("file_write") == 4);
  CHECK(r.calls.at("isend") == 0);
  CHECK(r.bytes_network == 0);
}

TEST_CASE("IEC handles an irregular distribution in the simulator", "[sim][iec]") {
  RunSpec s = spec("iec", 8 * 8 * 32, 1, 8);
  s.workload.kind = "irregular";
  s.workload.seed = 7;
  CHECK(sim::simulate(s).file_verified);
}

TEST_CASE("iterations repeat the executor; the inspector runs once", "[sim][iec]") {
  RunSpec s = spec("iec", 4096, 1);
  s.iterations = 3;
  const RunResult r = sim::simulate(s);
  CHECK(r.file_verified);
  CHECK(r.calls.at("file_write") == 4 * 3);
  CHECK(r.calls.at("isend") == 4 * (2 * 2 + 3 * 2));
}

TEST_CASE("a rank count IEC cannot handle is rejected before simulating", "[sim][iec]") {
  RunSpec s = spec("iec", 36 * 6, 1, 6);
  CHECK_THROWS_WITH(sim::simulate(s), Catch::Contains("power-of-two"));
}

TEST_CASE("MPI on Fast Ethernet makes IEC's exchange cost what that profile says", "[sim][iec]") {
  RunSpec s = spec("iec", 1 << 18, 1, 2);
  s.network_mpi = "fast-ethernet";
  const RunResult r = sim::simulate(s);
  REQUIRE(r.file_verified);
  const double bytes = (1 << 18) / 4 * 4.0;
  const auto& fe = network_profile("fast-ethernet");
  const double expected =
      bytes / PlatformSpec{}.memcpy_Bps + PlatformSpec{}.tuple_cost_s + fe.lone_message_time(bytes);
  CHECK(expected > network_profile("myrinet").lone_message_time(bytes) * 10);
  CHECK(test::phase_time(r, "exchange0") >= expected * (1 - 1e-9));
  CHECK(test::phase_time(r, "exchange0") <=
        expected + 2 * fe.link_latency_s + 1e-6);  // skew: see the Myrinet test
}
