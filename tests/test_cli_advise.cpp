// `ciosim advise` (app/advise_command.cpp) through the ciosim binary: its best configuration is the one
// full sweeps of the same techniques and hints with `ciosim run` find best, configurations that cannot
// serve the point are listed with their reason, and a scenario of several points is refused.
#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_workspace.hpp"

using namespace cli_test;

namespace {

constexpr const char* kPoint = "run.ranks=4 --set workload.bx=1 --set workload.nx=4096";

/// The best run of a results folder: its time and "run.algorithm=A, key=value, ..." as advise labels it
/// (the hints advise varies, in its order; two-phase's cb_nodes = 0 is its default, unlabelled).
std::pair<double, std::string> best_of(const fs::path& results) {
  const nlohmann::json j = nlohmann::json::parse(slurp(results / "results.json"));
  std::pair<double, std::string> best{std::numeric_limits<double>::infinity(), ""};
  for (const auto& r : j.at("runs")) {
    const double t = r.at("sim_time_s").get<double>();
    if (t >= best.first) continue;
    std::string label = "run.algorithm=" + r.at("algorithm").get<std::string>();
    const nlohmann::json& params = r.at("params");
    for (const char* k : {"hints.cb_config_list", "hints.cb_nodes", "hints.cb_buffer_size", "hints.lap",
                          "run.phases", "hints.vb_aggregators", "hints.vb_buffer_size"}) {
      if (!params.contains(k)) continue;
      const nlohmann::json& v = params.at(k);
      const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      if (std::string(k) != "hints.cb_nodes" || text != "0") label += std::string(", ") + k + "=" + text;
    }
    best = {t, label};
  }
  return best;
}

}  // namespace

TEST_CASE("ciosim advise: the best configuration is the one full sweeps find best", "[cli][advise]") {
  Workspace ws;
  const Output a = ws.run(std::string("advise s.toml --set ") + kPoint + " --out adv -q");
  INFO(a.err);
  REQUIRE(a.code == 0);
  CHECK(a.out.find("advice for small (4 ranks, workload block-cyclic, platform tiny)") != std::string::npos);
  CHECK(a.out.find("speed-up: over run.algorithm=two-phase") != std::string::npos);
  CHECK(a.out.find("where the time goes:") != std::string::npos);
  // Block I/O writes its own layout, not the application's file: never advised.
  CHECK(a.out.find("run.algorithm=block") == std::string::npos);

  // The same techniques and hints swept by `ciosim run`, one sweep per technique's hint.
  const std::string base = std::string("run s.toml -q --set ") + kPoint;
  struct Sweep {
    std::string sets, out;
  };
  const std::vector<Sweep> sweeps = {
      {"run.algorithm=[iec,iec-parametric,two-phase,list-io,independent,gathered,view-based,multiple-phase,"
       "sequential]",
       "all"},
      {"run.algorithm=two-phase --set hints.cb_buffer_size=[4194304,67108864]", "cb"},
      {"run.algorithm=two-phase --set hints.lap=[acn,avn]", "lap"},
      {"run.algorithm=two-phase --set hints.cb_config_list=*:* --set hints.cb_nodes=[0,2]", "cbn"},
      {"run.algorithm=multiple-phase --set run.phases=1", "mp"},
      {"run.algorithm=view-based --set hints.vb_aggregators=[1,2]", "vba"},
      {"run.algorithm=view-based --set hints.vb_buffer_size=[1048576,4194304]", "vbb"},
  };
  std::pair<double, std::string> best{std::numeric_limits<double>::infinity(), ""};
  for (const Sweep& s : sweeps) {
    const Output r = ws.run(base + " --set " + s.sets + " --out " + s.out);
    INFO(s.sets + ": " + r.err);
    REQUIRE(r.code == 0);
    const auto b = best_of(ws.root / s.out);
    if (b.first < best.first) best = b;
  }
  std::ostringstream t;
  t.setf(std::ios::fixed);
  t.precision(6);
  t << best.first;
  INFO(a.out);
  INFO("best of the sweeps: " + t.str() + " s, " + best.second);
  // advise's first line: "  1  TIME  SPEED-UP  CONFIGURATION".
  const std::string& label = best.second;
  const auto first = a.out.find("\n  1  ");
  REQUIRE(first != std::string::npos);
  const std::string line = a.out.substr(first + 1, a.out.find('\n', first + 1) - first - 1);
  CHECK(line.find(t.str()) != std::string::npos);
  CHECK(line.size() >= label.size());
  CHECK(line.substr(line.size() - label.size()) == label);
}

TEST_CASE("ciosim advise: configurations that cannot serve the point are listed, several points refused",
          "[cli][advise]") {
  Workspace ws;
  // 3 ranks: the butterfly techniques need a power of two.
  const Output a =
      ws.run("advise s.toml --set run.ranks=3 --set workload.bx=1 --set workload.nx=3072 -q --out a3");
  INFO(a.err);
  REQUIRE(a.code == 0);
  CHECK(a.out.find("cannot serve this point:\n  run.algorithm=iec: ") != std::string::npos);
  CHECK(a.out.find("run.algorithm=two-phase") != std::string::npos);

  // A scenario that names only a technique that cannot serve its point still gets its advice.
  const Output named = ws.run(
      "advise s.toml --set run.algorithm=iec --set run.ranks=3 --set workload.bx=1 --set workload.nx=3072 -q "
      "--out a4");
  INFO(named.err);
  CHECK(named.code == 0);
  CHECK(named.out.find("cannot serve this point:\n  run.algorithm=iec: ") != std::string::npos);

  const Output many = ws.run("advise s.toml -q --out a2");  // the scenario sweeps workload.bx = 1, 4
  CHECK(many.code == 2);
  CHECK(
      many.err.find("advise needs one point (any techniques); scenario small has 2 besides run.algorithm") !=
      std::string::npos);
  CHECK_FALSE(fs::exists(ws.root / "a2"));
  const Output empty = ws.run("advise s.toml --out ''");
  CHECK(empty.code == 2);
  CHECK(empty.err.find("--out is empty; give a directory") != std::string::npos);
  const Output budget = ws.run("advise s.toml --set workload.bx=1 --budget 0 --out a5");
  CHECK(budget.code == 2);
  CHECK(budget.err.find("--budget 0: the configurations tried must be 1 to 10000") != std::string::npos);
  CHECK_FALSE(fs::exists(ws.root / "a5"));
}
