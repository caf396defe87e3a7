// The configuration of the Multiple-Phase Collective I/O additions: run.phases (declared once, range
// checked per point against the rank count, ignored by the techniques that do not use it), the stem2
// workload keys and the Table 1 presets, and the shipped stem2-sl1 scenario.
#include <catch2/catch.hpp>
#include <filesystem>

#include "config/params.hpp"
#include "config/scenario.hpp"
#include "config/workload.hpp"
#include "tests/scenario_text.hpp"

namespace fs = std::filesystem;
using namespace ciosim;
using namespace ciosim::config;

namespace {

const char* kStem2 = R"(name = "s"
[run]
algorithm = "multiple-phase"
ranks = 16
platform = "uc3m-2007"
[workload]
kind = "stem2"
nx = 6
ny = 61
nz = 4
nl = 2
nchem = 3
)";

LoadOptions opt(std::vector<std::string> sets = {}) {
  return test::scenario_options(std::move(sets));
}

std::string error_of(const std::string& text, std::vector<std::string> sets = {}) {
  return test::scenario_error(text, std::move(sets));
}

using test::contains;

}  // namespace

TEST_CASE("run.phases and the stem2 keys are declared once, with their defaults", "[config][stem2]") {
  const auto params = parameters();
  CHECK(param(params, "run.phases").default_text() == "0");
  CHECK(param(params, "workload.nl").default_text() == "1");
  CHECK(param(params, "workload.nchem").default_text() == "1");
  CHECK(param(params, "workload.preset").choices == std::vector<std::string>{"none", "sl1", "sl2", "sl3"});
  CHECK(contains(param(params, "workload.nchem").help, "not run.phases"));
}

TEST_CASE("stem2 extents and run.phases reach the RunSpec; presets are Table 1", "[config][stem2]") {
  Scenario s = parse_scenario(kStem2, "s.toml", opt({"run.phases=[1,4]"}));
  REQUIRE(s.runs.size() == 2);
  CHECK(s.runs[0].phases == 1);
  CHECK(s.runs[1].phases == 4);
  CHECK(s.runs[0].workload.nl == 2);
  CHECK(s.runs[0].workload.nchem == 3);
  CHECK(s.runs[0].workload.ny == 61);
  const std::string preset =
      "[run]\nalgorithm = \"two-phase\"\nranks = 16\nplatform = \"uc3m-2007\"\n"
      "[workload]\nkind = \"stem2\"\npreset = [\"sl1\", \"sl2\", \"sl3\"]\n";
  s = parse_scenario(preset, "p.toml", opt());
  REQUIRE(s.runs.size() == 3);
  const WorkloadSpec& sl1 = s.runs[0].workload;
  CHECK(sl1.nx * sl1.ny * sl1.nz * sl1.nl * sl1.nchem * 4 == 37'507'680);  // 35.7 MiB
  CHECK(s.runs[1].workload.nchem == 6);                                    // SL2: Nph = 6
  CHECK(s.runs[2].workload.nx == 92);                                      // SL3: Nx = 92
  // The effective configuration reproduces the runs.
  const Scenario again = parse_scenario(effective_config_toml(s), "e.toml", opt());
  REQUIRE(again.runs.size() == 3);
  CHECK(again.runs[2].workload.nx == 92);
}

TEST_CASE("bad run.phases and stem2 input are one-line errors naming the valid choices", "[config][stem2]") {
  std::string e = error_of(kStem2, {"run.phases=5"});
  CHECK(contains(e, "valid: 1..4"));
  CHECK(e.find('\n') == std::string::npos);
  CHECK(contains(error_of(kStem2, {"run.phases=31"}), "in [0, 30]"));
  CHECK(contains(error_of(kStem2, {"run.ranks=12"}), "power-of-two"));  // before simulating
  CHECK(contains(error_of(kStem2, {"workload.preset=sl1"}), "both given"));
  CHECK(contains(error_of(kStem2, {"workload.preset=sl4"}), "sl1, sl2, sl3"));
  CHECK(contains(error_of(kStem2, {"workload.kind=block-cyclic"}), "is given but workload.kind"));
  CHECK(contains(error_of(kStem2, {"run.algorithm=iec"}), "iec cannot run"));  // uneven y blocks
}

TEST_CASE("run.phases sweeps run the techniques that ignore it once", "[config][stem2]") {
  const Scenario s = parse_scenario(
      kStem2, "s.toml", opt({"run.algorithm=[independent, multiple-phase]", "run.phases=[1,2,3]"}));
  REQUIRE(s.runs.size() == 4);
  CHECK(s.runs[0].algorithm == "independent");
  for (const auto& [k, v] : s.runs[0].params) CHECK(k != "run.phases");
  for (int i = 1; i < 4; ++i) {
    CHECK(s.runs[static_cast<std::size_t>(i)].algorithm == "multiple-phase");
    CHECK(s.runs[static_cast<std::size_t>(i)].phases == i);
  }
}

TEST_CASE("the stem2-sl1 scenario: independent, multiple-phase 1..4, two-phase, sequential",
          "[config][stem2]") {
  const Scenario s = load_scenario(fs::path(CIOSIM_SOURCE_DIR) / "scenarios" / "stem2-sl1.toml", opt());
  std::vector<std::string> got;
  for (const RunSpec& r : s.runs)
    got.push_back(r.algorithm + (r.algorithm == "multiple-phase" ? std::to_string(r.phases) : ""));
  CHECK(got == std::vector<std::string>{"independent", "multiple-phase1", "multiple-phase2",
                                        "multiple-phase3", "multiple-phase4", "two-phase", "sequential"});
  CHECK(s.runs[0].ranks == 16);
  CHECK(s.runs[0].platform.pvfs.io_servers == 16);
}
