// Sweeps that survive and sweeps beyond one machine (app/sweep.hpp, app/sweep_folder.hpp,
// app/merge_command.cpp), through the ciosim binary: -j N gives the bytes of -j 1, a sweep stopped by
// SIGINT keeps its finished points marked partial and --resume finishes it into the bytes of an
// uninterrupted run, --keep-going skips and lists every infeasible point (and without it every one is
// named), and shards merged give the bytes of the whole sweep.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "cli_workspace.hpp"

using namespace cli_test;

namespace {

/// The files of a results folder that must be identical between two ways of running one sweep.
void same_results(const fs::path& a, const fs::path& b) {
  INFO(a.string() + " vs " + b.string());
  for (const char* f : {"results.json", "results.csv", "effective-config.toml", "points/sweep.json"}) {
    INFO(f);
    REQUIRE(fs::exists(a / f));
    CHECK(slurp(a / f) == slurp(b / f));
  }
  // ciosim's point records (a user's file there is not one).
  const auto records = [](const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir / "points"))
      if (e.path().filename().string().rfind("point-", 0) == 0) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  };
  REQUIRE(records(a) == records(b));
  CHECK(!records(a).empty());
  for (const auto& n : records(a)) CHECK(slurp(a / "points" / n) == slurp(b / "points" / n));
}

std::vector<std::string> hidden(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string()[0] == '.') out.push_back(e.path().filename().string());
  return out;
}

}  // namespace

TEST_CASE("ciosim run -j 2 writes the bytes of -j 1", "[cli][sweep]") {
  Workspace w;
  REQUIRE(w.run("run -q s.toml --out a -j 1").code == 0);
  const Output r = w.run("run s.toml --out b -j 2");
  INFO(r.err);
  REQUIRE(r.code == 0);
  same_results(w.root / "a", w.root / "b");
  CHECK(contains(r.err, "4 of 4 points done"));
  CHECK(contains(r.err, "elapsed"));
  CHECK(contains(r.err, "left"));  // the estimate of the time left, while points remain
  for (const std::string bad : {"0", "-1", "257"}) {
    const Output e = w.run("run -q s.toml --out c -j " + bad);
    CHECK(e.code == 2);
    CHECK(contains(e.err, "must be 1 to 256"));
  }
  CHECK(!fs::exists(w.root / "c"));
}

TEST_CASE("a sweep stopped by SIGINT keeps its finished points, and --resume finishes it", "[cli][sweep]") {
  Workspace w;
  // Point 2 takes seconds (List I/O, 16 MiB, Bx = 1: 65,536 list requests); points 1 and 3 are instant.
  // SIGINT once point 1 is saved.
  const std::string sweep =
      "s.toml --set run.algorithm=list-io --set workload.bx=1 --set workload.nx=[1024,4194304,2048] -j 1";
  const std::string cmd = "cd '" + w.root.string() + "' && CIOSIM_DATA_DIR='" + (w.root / "data").string() +
                          "' exec '" + CIOSIM_BINARY + "' run -q " + sweep + " --out r >/dev/null 2>&1";
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const fs::path first = w.root / "r/points/point-000001.json";
  for (int i = 0; i < 400 && !fs::exists(first); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  REQUIRE(fs::exists(first));
  REQUIRE(::kill(pid, SIGINT) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);

  // A consistent partial result, marked partial; no staging file left anywhere.
  const auto j = nlohmann::json::parse(slurp(w.root / "r/results.json"));
  CHECK(j["partial"] == true);
  CHECK(j["points_done"] == 1);
  CHECK(j["points_total"] == 3);
  REQUIRE(j["runs"].size() == 1);
  CHECK(j["runs"][0]["params"]["workload.nx"] == 1024);
  CHECK(fs::exists(w.root / "r/results.partial.csv"));
  CHECK(!fs::exists(w.root / "r/results.csv"));
  CHECK(hidden(w.root).empty());
  CHECK(hidden(w.root / "r").empty());
  CHECK(!fs::exists(w.root / "r/points/point-000002.json"));

  // A file of the user's in the folder survives; --resume refuses another configuration, naming the key.
  w.write("r/notes.txt", "mine\n");
  w.write("r/points/mine.txt", "mine too\n");
  const Output other = w.run("run -q " + sweep + " --out r --resume --set workload.element_size=8");
  CHECK(other.code == 2);
  CHECK(std::count(other.err.begin(), other.err.end(), '\n') == 1);
  CHECK(contains(other.err, "workload.element_size"));
  const Output shard = w.run("run -q " + sweep + " --out r --resume --shard 1/2");
  CHECK(shard.code == 2);
  CHECK(contains(shard.err, "holds the whole sweep, this run is shard 1/2"));

  const Output resumed = w.run("run " + sweep + " --out r --resume");
  INFO(resumed.err);
  REQUIRE(resumed.code == 0);
  CHECK(contains(resumed.err, "1 of 3 points already done"));
  CHECK(!contains(resumed.err, "[1/3]"));  // point 1 is not simulated again
  CHECK(contains(resumed.err, "[2/3]"));
  CHECK(!fs::exists(w.root / "r/results.partial.csv"));
  REQUIRE(w.run("run -q " + sweep + " --out whole").code == 0);
  same_results(w.root / "whole", w.root / "r");
  CHECK(slurp(w.root / "r/notes.txt") == "mine\n");
  CHECK(slurp(w.root / "r/points/mine.txt") == "mine too\n");
  // A complete folder resumes to itself, with nothing simulated.
  const Output again = w.run("run " + sweep + " --out r --resume");
  CHECK(again.code == 0);
  CHECK(!contains(again.err, "[2/3]"));
  same_results(w.root / "whole", w.root / "r");
}

TEST_CASE("infeasible points: every one is named, and --keep-going skips and lists them", "[cli][sweep]") {
  Workspace w;
  // The tiny platform has 4 cores: 7 of the 9 rank counts cannot run.
  const std::string sweep =
      "s.toml --set run.algorithm=block --set workload.bx=1 --set run.ranks=[2,5,6,7,8,4,9,10,11]";
  const Output refused = w.run("run -q " + sweep + " --out r");
  CHECK(refused.code == 2);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  CHECK(contains(refused.err, "7 of 9 points cannot run"));
  for (const char* p : {"point 2 of 9", "point 3 of 9", "point 4 of 9", "point 5 of 9", "point 7 of 9"})
    CHECK(contains(refused.err, p));
  CHECK(contains(refused.err, "and 2 more"));
  CHECK(!fs::exists(w.root / "r"));

  const Output dry = w.run("run " + sweep + " --dry-run --keep-going");
  CHECK(dry.code == 0);
  CHECK(contains(dry.out, "2 points valid, 7 skipped"));
  CHECK(contains(dry.out, "skipped point 9 of 9 ("));
  CHECK(contains(dry.out, "run.ranks=11"));

  const Output kept = w.run("run -q " + sweep + " --out r --keep-going");
  INFO(kept.err);
  REQUIRE(kept.code == 0);
  for (const char* p : {"point 2 of 9", "point 3 of 9", "point 4 of 9", "point 5 of 9", "point 7 of 9",
                        "point 8 of 9", "point 9 of 9"})
    CHECK(contains(kept.err, p));
  CHECK(contains(kept.err, "skipped 7 points"));
  const auto j = nlohmann::json::parse(slurp(w.root / "r/results.json"));
  REQUIRE(j["runs"].size() == 2);
  CHECK(j["runs"][1]["ranks"] == 4);
  REQUIRE(j["skipped"].size() == 7);
  CHECK(contains(j["skipped"][6]["point"].get<std::string>(), "point 9 of 9"));
  CHECK(contains(j["skipped"][6]["reason"].get<std::string>(), "exceeds the 4 cores"));
}

TEST_CASE("shards merged give the bytes of the whole sweep", "[cli][sweep]") {
  Workspace w;
  REQUIRE(w.run("run -q s.toml --out whole").code == 0);
  for (int i = 1; i <= 3; ++i)
    REQUIRE(w.run("run -q s.toml --shard " + std::to_string(i) + "/3 --out s" + std::to_string(i)).code == 0);
  // Shard 1 of 3 holds points 1 and 4, and says which shard it is.
  const auto j1 = nlohmann::json::parse(slurp(w.root / "s1/results.json"));
  CHECK(j1["shard"]["index"] == 1);
  CHECK(j1["shard"]["count"] == 3);
  REQUIRE(j1["runs"].size() == 2);
  CHECK(j1["runs"][1]["algorithm"] == "block");
  CHECK(j1["runs"][1]["params"]["workload.bx"] == 4);

  const Output m = w.run("merge merged s3 s1 s2");
  INFO(m.err);
  REQUIRE(m.code == 0);
  same_results(w.root / "whole", w.root / "merged");

  const Output missing = w.run("merge m2 s1 s3");
  CHECK(missing.code == 2);
  CHECK(contains(missing.err, "shard 2/3 missing"));
  const Output twice = w.run("merge m2 s1 s2 s3 s2");
  CHECK(twice.code == 2);
  CHECK(contains(twice.err, "shard 2/3 given twice"));
  REQUIRE(w.run("run -q s.toml --shard 2/3 --out t2 --set workload.bx=[1,8]").code == 0);
  const Output foreign = w.run("merge m2 s1 t2 s3");
  CHECK(foreign.code == 2);
  CHECK(contains(foreign.err, "workload.bx"));
  const Output whole = w.run("merge m2 whole");
  CHECK(whole.code == 2);
  CHECK(contains(whole.err, "holds a whole sweep, not a shard"));
  CHECK(!fs::exists(w.root / "m2"));
  for (const std::string bad : {"0/3", "4/3", "1/0", "x", "1/", "2"}) {
    INFO(bad);
    const Output e = w.run("run -q s.toml --out bad --shard " + bad);
    CHECK(e.code == 2);
    CHECK(contains(e.err, "--shard"));
  }
  CHECK(!fs::exists(w.root / "bad"));
}

TEST_CASE("a shard's CSV rows carry the points' numbers in the whole sweep, and merge carries the timelines",
          "[cli][sweep]") {
  Workspace w;
  REQUIRE(w.run("run -q s.toml --out whole --timeline chrome,paje").code == 0);
  for (int i = 1; i <= 2; ++i)
    REQUIRE(w.run("run -q s.toml --shard " + std::to_string(i) + "/2 --out s" + std::to_string(i) +
                  " --timeline chrome,paje")
                .code == 0);
  // Shard 2 of 2 holds points 2 and 4: its rows say 2 and 4, as its timelines' names do.
  const auto first_column = [&](const fs::path& csv) {
    std::istringstream in(slurp(csv));
    std::string line;
    std::getline(in, line);
    std::set<std::string> runs;
    while (std::getline(in, line)) runs.insert(line.substr(0, line.find(',')));
    return runs;
  };
  CHECK(first_column(w.root / "s2/results.csv") == std::set<std::string>{"2", "4"});
  CHECK(first_column(w.root / "s2/phases.csv") == std::set<std::string>{"2", "4"});
  CHECK(fs::exists(w.root / "s2/timeline-2.json"));
  CHECK(fs::exists(w.root / "s2/timeline-4.paje"));
  REQUIRE(w.run("merge merged s1 s2").code == 0);
  same_results(w.root / "whole", w.root / "merged");
  CHECK(slurp(w.root / "whole/phases.csv") == slurp(w.root / "merged/phases.csv"));
  for (int p = 1; p <= 4; ++p)
    for (const char* ext : {".json", ".paje"}) {
      const std::string name = "timeline-" + std::to_string(p) + ext;
      INFO(name);
      CHECK(slurp(w.root / "merged" / name) == slurp(w.root / "whole" / name));
    }
}

TEST_CASE("points that differ only in network.mpi are one simulation when it made no MPI call",
          "[cli][sweep]") {
  Workspace w;
  // block and list-io send no MPI message: their fast-ethernet points take the myrinet points' results;
  // iec and two-phase exchange data, so theirs are simulated (and differ).
  const std::string sweep =
      "s.toml --set run.algorithm=[block,list-io,iec,two-phase] --set network.mpi=[myrinet,fast-ethernet]";
  const Output r = w.run("run " + sweep + " --out a -j 2");
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(w.run("run -q " + sweep + " --out b --no-reuse").code == 0);
  same_results(w.root / "a", w.root / "b");
  // The sweep is algorithm x network x bx: block's points 1-4, list-io's 5-8.
  for (const char* said : {"[3/16] block", "[4/16] block", "[7/16] list-io", "[8/16] list-io"}) {
    INFO(said);
    CHECK(contains(r.err, std::string(said)));
  }
  CHECK(contains(r.err,
                 "network.mpi=fast-ethernet, workload.bx=1: the simulation of point 1 (it made no MPI "
                 "call, and the two differ only in network.mpi)"));
  CHECK(contains(r.err, "the simulation of point 6 "));
  CHECK(!contains(r.err, "the simulation of point 9 "));   // iec
  CHECK(!contains(r.err, "the simulation of point 13 "));  // two-phase
  const auto runs = nlohmann::json::parse(slurp(w.root / "a/results.json")).at("runs");
  REQUIRE(runs.size() == 16);
  CHECK(runs[2].at("network_mpi") == "fast-ethernet");
  CHECK(runs[2].at("sim_time_s") == runs[0].at("sim_time_s"));
  CHECK(runs[10].at("sim_time_s") != runs[8].at("sim_time_s"));  // iec over Fast Ethernet is slower
  // --resume after the twins were saved: the rest still reuse them.
  fs::remove(w.root / "a/points/point-000004.json");
  fs::remove(w.root / "a/points/point-000008.json");
  const Output again = w.run("run " + sweep + " --out a --resume");
  INFO(again.err);
  REQUIRE(again.code == 0);
  CHECK(contains(again.err, "the simulation of point 2 "));
  CHECK(contains(again.err, "the simulation of point 6 "));
  same_results(w.root / "a", w.root / "b");
}
