// Multiple-phase and sequential end to end in the simulator on the STEM-II workload: the file verified (or
// read back), the calls each phase count makes, and the phases reported. One SimGrid engine per TEST_CASE.
#include <catch2/catch.hpp>

#include "models/network/profiles.hpp"
#include "sim/simulate.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

using test::stem2_spec;

std::vector<std::string> names(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& p : r.phases) out.push_back(p.name);
  return out;
}

}  // namespace

TEST_CASE("multiple-phase, all phases: one contiguous write per rank", "[sim][mp]") {
  const RunResult r = sim::simulate(stem2_spec("multiple-phase", 8, 0));
  CHECK(r.file_verified);
  CHECK(r.bytes_file == 5 * 13 * 4 * 3 * 2 * 4);
  CHECK(r.calls.at("isend") == 8 * 3);  // log2 8 phases, one message each way per rank
  CHECK(r.calls.at("irecv") == 8 * 3);
  CHECK(r.calls.at("file_write") == 8);
  CHECK(r.calls.at("file_list_write") == 0);
  CHECK(names(r) ==
        std::vector<std::string>{"open", "place", "exchange0", "exchange1", "exchange2", "write", "close"});
}

TEST_CASE("multiple-phase, one phase: a non-contiguous write through a file view", "[sim][mp]") {
  const RunResult r = sim::simulate(stem2_spec("multiple-phase", 8, 1));
  CHECK(r.file_verified);
  CHECK(r.calls.at("isend") == 8);
  CHECK(r.calls.at("file_write") == 0);
  CHECK(r.calls.at("file_list_write") == 8);
  CHECK(names(r) == std::vector<std::string>{"open", "place", "exchange0", "write", "close"});
}

TEST_CASE("multiple-phase rejects phases beyond log2 Np and non-power-of-two Np before simulating",
          "[sim][mp]") {
  CHECK_THROWS_WITH(sim::simulate(stem2_spec("multiple-phase", 4, 3)), Catch::Contains("valid: 1..2"));
  RunSpec s = stem2_spec("multiple-phase", 6, 0);
  CHECK_THROWS_WITH(sim::simulate(s), Catch::Contains("power-of-two"));
}

TEST_CASE("sequential: one gather at rank 0 and one contiguous write", "[sim][sequential]") {
  const RunResult r = sim::simulate(stem2_spec("sequential", 4, 0));
  CHECK(r.file_verified);
  CHECK(r.calls.at("gatherv") == 4);
  CHECK(r.calls.at("file_write") == 1);
  CHECK(r.bytes_file == 5 * 13 * 4 * 3 * 2 * 4);
  CHECK(names(r) == std::vector<std::string>{"open", "gather", "write", "close"});
}

TEST_CASE("multiple-phase reads back through the mirrored access and the phases in reverse", "[sim][mp]") {
  RunSpec s = stem2_spec("multiple-phase", 8, 2);
  s.access = Access::Read;
  const RunResult r = sim::simulate(s);
  CHECK(r.file_verified);  // every rank got its own entries back
  CHECK(r.calls.at("file_list_read") == 8);
  CHECK(r.calls.at("isend") == 8 * 2);
  CHECK(names(r) == std::vector<std::string>{"open", "read", "exchange1", "exchange0", "close"});
}
