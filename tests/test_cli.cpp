// The `ciosim` command, run as a separate process (CIOSIM_BINARY): outputs, determinism, exit codes and
// one-line errors for every kind of bad input, nothing written on failure.
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_workspace.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

TEST_CASE("ciosim run writes results.json, results.csv and the effective configuration") {
  Workspace w;
  const Output r = w.run("run -q s.toml");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  const fs::path dir = w.root / "results/small";
  REQUIRE(fs::exists(dir / "results.json"));
  REQUIRE(fs::exists(dir / "results.csv"));
  REQUIRE(fs::exists(dir / "effective-config.toml"));
  CHECK(contains(r.out, "sim_time_s"));
  CHECK(contains(r.out, "workload.bx"));

  const auto j = nlohmann::json::parse(slurp(dir / "results.json"));
  CHECK(j["scenario"] == "small");
  CHECK(j["ciosim_version"].is_string());
  REQUIRE(j["runs"].size() == 4);
  const char* algos[] = {"iec", "iec", "block", "block"};
  for (int i = 0; i < 4; ++i) {
    const auto& run = j["runs"][i];
    CHECK(run["algorithm"] == algos[i]);
    CHECK(run["params"]["run.algorithm"] == algos[i]);
    CHECK(run["params"]["workload.bx"] == (i % 2 ? 4 : 1));
    CHECK(run["ranks"] == 4);
    CHECK(run["network_mpi"] == "myrinet");
    CHECK(run["network_io"] == "myrinet");
    CHECK(run["sim_time_s"].get<double>() > 0);
    CHECK(run["phases"].is_array());
    CHECK(run["calls"].is_object());
    CHECK(run["bytes"]["file"] == 4096);
    CHECK(run["file_verified"].is_boolean());
  }
  const std::string csv = slurp(dir / "results.csv");
  // One column per value (the swept run.algorithm is the algorithm column), units in the names.
  CHECK(csv.rfind("run,algorithm,workload.bx,ranks,network_mpi,network_io,sim_time_s,phase_open_s,", 0) == 0);
  CHECK(contains(csv.substr(0, csv.find('\n') + 1), ",bytes_network,bytes_file,file_verified,bottleneck\n"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
  CHECK(w.extra_entries() == std::vector<std::string>{"results"});  // no temporary directories left
  CHECK(std::vector<fs::path>(fs::directory_iterator(w.root / "results"), {}).size() == 1);
}

TEST_CASE("ciosim run is deterministic and its effective configuration reproduces the results") {
  Workspace w;
  REQUIRE(w.run("run -q s.toml --out a").code == 0);
  REQUIRE(w.run("run -q s.toml --out b").code == 0);
  CHECK(slurp(w.root / "a/results.json") == slurp(w.root / "b/results.json"));
  CHECK(slurp(w.root / "a/results.csv") == slurp(w.root / "b/results.csv"));
  CHECK(slurp(w.root / "a/effective-config.toml") == slurp(w.root / "b/effective-config.toml"));
  // The effective configuration carries the platform: it runs without the data directory.
  fs::remove_all(w.root / "data");
  const Output r = w.run("run -q a/effective-config.toml --out c");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(slurp(w.root / "a/results.json") == slurp(w.root / "c/results.json"));
  // Re-running into an existing results directory replaces ciosim's files, the other format's
  // effective configuration included, and keeps the user's.
  w.write("c/mine.txt", "a note\n");
  REQUIRE(w.run("run -q a/effective-config.toml --out c --effective-format json").code == 0);
  CHECK(fs::exists(w.root / "c/effective-config.json"));
  CHECK_FALSE(fs::exists(w.root / "c/effective-config.toml"));
  CHECK(slurp(w.root / "c/mine.txt") == "a note\n");
}

TEST_CASE("ciosim run: bad input exits 2 with one line naming the problem, and writes nothing") {
  Workspace w;
  w.write("bad.toml", std::string(kScenario) + "colour = \"red\"\n");
  struct Case {
    std::string args;
    std::vector<std::string> expect;  // parts of the message
  };
  const std::vector<Case> cases = {
      {"run bad.toml", {"workload.colour", "workload.nx"}},
      {"run s.toml --set run.algorithm=romio", {"romio", "iec", "block"}},
      {"run s.toml --set network.mpi=token-ring", {"token-ring", "myrinet", "infiniband-ddr"}},
      {"run s.toml --set run.platform=bluegene", {"bluegene", "tiny"}},
      {"run s.toml --set run.ranks=8", {"run.ranks = 8", "4 cores"}},
      {"run s.toml --set workload.nx=1000", {"point 1 of 4", "iec"}},
      {"run s.toml --set run.ranks=3", {"divisible"}},
      {"run s.toml --set workload.nx=100MiB", {"workload.nx", "integer"}},
      {"run s.toml --set workload.bogus=1", {"workload.bogus", "workload.bx"}},
      {"run missing.toml", {"missing.toml", "not found"}},
      {"run s.toml --export-file x.dat", {"--export-file", "4 points"}},
      {"run s.toml --effective-format yaml", {"yaml", "toml, json"}},
      {"run s.toml --frobnicate", {"--frobnicate"}},
      {"explode", {"explode", "run, plan, list"}},
  };
  for (const auto& c : cases) {
    const Output r = w.run(c.args);
    INFO(c.args << " -> " << r.err);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.rfind("ciosim: error: ", 0) == 0);
    for (const auto& part : c.expect) CHECK(contains(r.err, part));
    CHECK(r.out.empty());
    CHECK(w.extra_entries().empty());  // no results/ directory, no temporary files
  }
  w.write("bad.toml", "[run\nalgorithm = 'iec'\n");
  Output r = w.run("run bad.toml");
  CHECK(r.code == 2);
  CHECK(contains(r.err, "bad.toml:1"));
  CHECK(contains(r.err, "malformed TOML"));
  CHECK(w.extra_entries().empty());
  w.write("data/platforms/tiny.toml", std::string(kPlatform) + "turbo = true\n");
  r = w.run("run s.toml");
  CHECK(r.code == 2);
  CHECK(contains(r.err, "turbo"));
  CHECK(w.extra_entries().empty());
}

TEST_CASE("ciosim run refuses an output path that is not a results directory") {
  Workspace w;
  fs::create_directories(w.root / "precious");
  w.write("precious/thesis.tex", "x");
  const Output r = w.run("run -q s.toml --out precious");
  CHECK(r.code == 2);
  CHECK(contains(r.err, "precious"));
  CHECK(fs::exists(w.root / "precious/thesis.tex"));
}

TEST_CASE("ciosim run --export-file writes the simulated file of a single point") {
  Workspace w;
  const Output r =
      w.run("run -q s.toml --set run.algorithm=iec --set workload.bx=4 --export-file x.dat --out o");
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(fs::exists(w.root / "x.dat"));
  CHECK(fs::file_size(w.root / "x.dat") == 1024 * 4);  // Nx entries of 4 bytes
  CHECK(fs::exists(w.root / "o/results.json"));
  for (const auto& e : fs::directory_iterator(w.root))
    CHECK(e.path().filename().string().find("tmp") == std::string::npos);
}

TEST_CASE("ciosim plan --json prints the IEC plan of every rank") {
  Workspace w;
  const Output r = w.run("plan --nx 64 --np 4 --bx 2 --json");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["nx"] == 64);
  CHECK(j["np"] == 4);
  CHECK(j["bx"] == 2);
  REQUIRE(j["ranks"].size() == 4);
  for (int i = 0; i < 4; ++i) {
    const auto& rank = j["ranks"][i];
    CHECK(rank["rank"] == i);
    for (const char* k :
         {"alloc_offset", "buffer_entries", "phases", "pack", "pack_replicas", "pack_stride", "file_offset"})
      CHECK(rank.contains(k));
    REQUIRE(rank["phases"].size() == 2);  // log2(4)
    for (const char* k : {"partner", "recv_offset", "send", "send_replicas", "send_stride"})
      CHECK(rank["phases"][0].contains(k));
  }
  CHECK(j["ranks"][0]["phases"][0]["partner"] == 1);
  CHECK(w.run("plan --nx 64 --np 4 --bx 2 --json").out == r.out);  // deterministic
  CHECK(w.run("plan --nx 64 --np 4 --kind irregular --seed 5").code == 0);
  for (const char* bad : {"plan --nx 64 --np 3", "plan --nx 0 --np 4", "plan --nx 64 --np 4 --kind zigzag",
                          "plan --nx 60 --np 4", "plan --np 4", "plan --nx 64 --np 4 --bx x"}) {
    const Output e = w.run(bad);
    INFO(bad << " -> " << e.err);
    CHECK(e.code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    CHECK(e.out.empty());
  }
}

TEST_CASE("ciosim list names every registered choice") {
  Workspace w;
  const Output r = w.run("list");
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const char* part :
       {"iec", "block", "Citation", "myrinet", "fast-ethernet", "MB/s", "tiny", "a four-node test platform",
        "block-cyclic", "irregular", "workload.nx", "run.iterations"})
    CHECK(contains(r.out, part));
  CHECK(w.run("run --help").code == 0);
}
