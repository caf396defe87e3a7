// results.json against its shipped schema (docs/results.schema.json): what `run` (with an operation
// sequence, elided payloads and a point that cannot run), a shard, `merge`, `advise` and `validate` (the
// simulated and the real runs) write all conform, and the schema's checker (tests/json_schema.hpp) finds
// what does not. The schema lists every key (additionalProperties false): a key added without being
// documented there fails here.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_workspace.hpp"
#include "config/results.hpp"
#include "tests/json_schema.hpp"

using namespace cli_test;
using ciosim::testing::schema_errors;

namespace {

nlohmann::json schema() {
  return nlohmann::json::parse(slurp(fs::path(CIOSIM_SOURCE_DIR) / "docs" / "results.schema.json"));
}

/// The schema's complaints about results file `f` (none when it conforms), one per line.
std::string complaints(const fs::path& f) {
  REQUIRE(fs::exists(f));
  std::string out;
  for (const std::string& e : schema_errors(schema(), nlohmann::json::parse(slurp(f)))) out += e + "\n";
  return out;
}

}  // namespace

TEST_CASE(
    "results schema: the checker finds a missing key, a wrong type, an undocumented key, a newer version",
    "[results][schema]") {
  const nlohmann::json s = schema();
  nlohmann::json ok = {
      {"schema_version", 1}, {"ciosim_version", "x"}, {"scenario", "s"}, {"runs", nlohmann::json::array()}};
  CHECK(schema_errors(s, ok).empty());
  nlohmann::json run = {{"algorithm", "iec"},
                        {"params", {{"workload.bx", 4}}},
                        {"ranks", 4},
                        {"network_mpi", "m"},
                        {"network_io", "m"},
                        {"sim_time_s", 0.5},
                        {"phases", {{{"name", "write"}, {"time_s", 0.25}}}},
                        {"calls", {{"send", 3}}},
                        {"bytes", {{"network", 1}, {"file", 2}}},
                        {"file_verified", true}};
  ok["runs"].push_back(run);
  CHECK(schema_errors(s, ok).empty());
  nlohmann::json bad = ok;
  bad["runs"][0].erase("sim_time_s");  // neither clock's time
  CHECK(schema_errors(s, bad) ==
        std::vector<std::string>{"$.runs[0]: matches none of anyOf "
                                 "[{\"required\":[\"sim_time_s\"]},{\"required\":[\"measured_time_s\"]}]"});
  bad = ok;
  bad["runs"][0]["phases"][0]["time_s"] = "0.25";
  CHECK(schema_errors(s, bad) ==
        std::vector<std::string>{"$.runs[0].phases[0].time_s: is string, not \"number\""});
  bad = ok;
  bad["runs"][0]["colour"] = "red";
  CHECK(schema_errors(s, bad) ==
        std::vector<std::string>{"$.runs[0].colour: a key the schema does not list"});
  bad = ok;
  bad["schema_version"] = 2;
  CHECK(schema_errors(s, bad) == std::vector<std::string>{"$.schema_version: 2 is not 1"});
  // ciosim's own reader refuses a version it does not read, naming it.
  try {
    (void)ciosim::config::parse_results_json(bad.dump(), "r/results.json");
    FAIL("a results.json of schema version 2 was read");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("r/results.json: results.json of schema version 2; this ciosim reads "
                                     "version 1") != std::string::npos);
  }
}

TEST_CASE("results schema: run, a shard, merge and advise write results.json as the schema says",
          "[results][schema][cli]") {
  Workspace ws;
  // Operations (a sequence), a point that cannot run (skipped with --keep-going), elided payloads.
  REQUIRE(ws.run("run -q s.toml --out seq --set run.algorithm=[two-phase,view-based] --set "
                 "\"run.sequence=open write sync close\"")
              .code == 0);
  CHECK(slurp(ws.root / "seq/results.json").find("\"operations\": [") != std::string::npos);
  CHECK(complaints(ws.root / "seq/results.json").empty());
  REQUIRE(ws.run("run -q s.toml --out skip --keep-going --set run.ranks=[4,8]").code == 0);
  CHECK(slurp(ws.root / "skip/results.json").find("\"skipped\": [") != std::string::npos);
  CHECK(complaints(ws.root / "skip/results.json").empty());
  REQUIRE(ws.run("run -q s.toml --out elided --set run.payload=elided --set run.algorithm=two-phase").code ==
          0);
  const std::string elided = slurp(ws.root / "elided/results.json");
  CHECK(elided.find("\"payload\": \"elided\"") != std::string::npos);
  CHECK(complaints(ws.root / "elided/results.json").empty());
  for (int i = 1; i <= 2; ++i)
    REQUIRE(ws.run("run -q s.toml --shard " + std::to_string(i) + "/2 --out s" + std::to_string(i)).code ==
            0);
  CHECK(slurp(ws.root / "s1/results.json").find("\"shard\": {") != std::string::npos);
  CHECK(complaints(ws.root / "s1/results.json").empty());
  REQUIRE(ws.run("merge merged s1 s2").code == 0);
  CHECK(complaints(ws.root / "merged/results.json").empty());
  REQUIRE(ws.run("advise s.toml -q --set workload.bx=1 --out adv --budget 4").code == 0);
  CHECK(complaints(ws.root / "adv/results.json").empty());
  CHECK(slurp(ws.root / "merged/results.json").rfind("{\n  \"schema_version\": 1,\n", 0) == 0);
}

#ifdef CIOSIM_MPI_BINARY
TEST_CASE("results schema: validate's simulated and real runs' results.json as the schema says",
          "[results][schema][cli][mpi]") {
  Workspace ws;
  const Output v = ws.run(
      "validate s.toml -n 2 --repeat 1 -q --out v --set run.algorithm=[two-phase,list-io] "
      "--set workload.bx=4");
  INFO(v.out + v.err);
  REQUIRE(v.code == 0);
  CHECK(complaints(ws.root / "v/results.json").empty());
  CHECK(complaints(ws.root / "v/mpi-results.json").empty());
}
#endif
