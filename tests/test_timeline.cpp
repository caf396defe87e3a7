// `ciosim run --timeline`: the Chrome trace-event JSON and the Paje file of a point, checked against the
// results of the same run (each rank's phase intervals, every message's bytes against the counters), the
// Paje file through pajeng's pj_dump; and "where the time goes" (per-rank CPU, network and file-system
// time; the bottleneck line; phases.csv).
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli_workspace.hpp"
#include "config/time_use.hpp"
#include "models/activity/activity_log.hpp"

namespace fs = std::filesystem;
using namespace cli_test;
using nlohmann::json;

namespace {

// Two-phase (allgathers, alltoall, point-to-point) and Block I/O on 4 ranks.
const char* kTraced = R"(name = "traced"
[run]
algorithm = ["two-phase", "block"]
ranks = 4
platform = "tiny"
[workload]
nx = 8192
bx = 4
)";

/// Lines of pj_dump's output (CSV: kind, container, type, start, end, duration, ..., value).
std::vector<std::vector<std::string>> pj_dump(const fs::path& paje, int* code) {
  const fs::path out = paje.string() + ".dump";
  const std::string cmd = "pj_dump '" + paje.string() + "' >'" + out.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(slurp(out));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) {
      while (!c.empty() && c.front() == ' ') c.erase(c.begin());
      cells.push_back(c);
    }
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("ciosim run --timeline chrome,paje writes each point's timeline, true to its results") {
  Workspace w;
  w.write("t.toml", kTraced);
  const Output r = w.run("run -q t.toml --out out --timeline chrome --timeline paje");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const fs::path dir = w.root / "out";
  const json results = json::parse(slurp(dir / "results.json"));
  REQUIRE(results["runs"].size() == 2);
  for (int point = 1; point <= 2; ++point) {
    INFO("point " << point);
    const json& run = results["runs"][static_cast<std::size_t>(point - 1)];
    const std::string stem = "timeline-" + std::to_string(point);
    REQUIRE(fs::exists(dir / (stem + ".json")));
    REQUIRE(fs::exists(dir / (stem + ".paje")));

    // Chrome JSON: every rank's phase intervals add up to its phase times in results.json.
    const json trace = json::parse(slurp(dir / (stem + ".json")));
    std::map<int, std::string> thread_name;  // tid -> name
    std::map<std::pair<std::string, int>, double> phase_us;
    std::int64_t message_bytes = 0, sent_bytes = 0, p2p_bytes = 0, p2p_sent = 0;
    int messages = 0, disk_ops = 0, requests = 0;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "thread_name") thread_name[e["tid"].get<int>()] = e["args"]["name"];
      if (e["ph"] != "X") continue;
      const std::string cat = e["cat"];
      if (cat == "phase")
        phase_us[{e["name"].get<std::string>(), e["args"]["rank"].get<int>()}] += e["dur"].get<double>();
      if (cat == "message") {
        ++messages;
        message_bytes += e["args"]["bytes"].get<std::int64_t>();
        if (e["args"]["tag"].get<int>() >= 0) p2p_bytes += e["args"]["bytes"].get<std::int64_t>();
        CHECK(e["dur"].get<double>() >= 0);
      }
      if (cat == "call") {
        const std::string n = e["name"];
        // The calls whose bytes the counters count as sent (algorithms/common/process.hpp).
        if (n == "isend" || n == "send" || n == "bcast" || n == "gather" || n == "gatherv" ||
            n == "allgather" || n == "alltoall" || n == "allreduce")
          sent_bytes += e["args"]["bytes"].get<std::int64_t>();
        if (n == "isend" || n == "send") p2p_sent += e["args"]["bytes"].get<std::int64_t>();
      }
      if (cat == "disk") ++disk_ops;
      if (cat == "request") ++requests;
    }
    for (const auto& ph : run["phases"])
      for (std::size_t rank = 0; rank < ph["ranks"]["time_s"].size(); ++rank) {
        const double want = ph["ranks"]["time_s"][rank].get<double>();
        const double got = phase_us[{ph["name"].get<std::string>(), static_cast<int>(rank)}] / 1e6;
        INFO(ph["name"] << " rank " << rank);
        CHECK(std::abs(got - want) < 1e-9);
      }
    // Sent bytes as the counters count them; point-to-point messages carry exactly what isend/send sent.
    CHECK(sent_bytes == run["bytes"]["network"].get<std::int64_t>());
    CHECK(p2p_bytes == p2p_sent);
    if (run["algorithm"] == "two-phase") {
      CHECK(messages > 0);
      CHECK(message_bytes > 0);
    } else {
      CHECK(messages == 0);
      CHECK(run["bytes"]["network"] == 0);
    }
    CHECK(disk_ops > 0);
    CHECK(requests > 0);
    std::set<std::string> names;
    for (const auto& [tid, n] : thread_name) names.insert(n);
    for (const char* n : {"rank 0", "rank 3", "iod0 disk", "iod1 disk", "iod0 requests", "mds requests"})
      CHECK(names.count(n) == 1);

    // Paje: pj_dump parses it; containers for every rank, server and disk; one PHASE state per rank and
    // phase mark with the phase's name; one link per message.
    int code = -1;
    const auto rows = pj_dump(dir / (stem + ".paje"), &code);
    REQUIRE(code == 0);
    std::set<std::string> containers;
    std::map<std::string, int> phase_states;
    int links = 0;
    for (const auto& row : rows) {
      if (row.empty()) continue;
      if (row[0] == "Container" && row.size() > 6) containers.insert(row[6]);
      if (row[0] == "State" && row.size() > 7 && row[2] == "PHASE") ++phase_states[row[7]];
      if (row[0] == "Link") ++links;
    }
    for (const char* c : {"rank 0", "rank 1", "rank 2", "rank 3", "node0", "iod0", "iod0 disk", "iod1 disk",
                          "mds", "mds requests", "iod0 requests"})
      CHECK(containers.count(c) == 1);
    for (const auto& ph : run["phases"]) CHECK(phase_states[ph["name"].get<std::string>()] >= 4);
    CHECK(links == messages);
    // Every phase is defined with a colour (ViTE draws undefined values black), and both files name the
    // point: its algorithm and its parameters.
    const std::string paje = slurp(dir / (stem + ".paje"));
    for (const auto& ph : run["phases"]) {
      const std::string name = ph["name"].get<std::string>();
      CHECK(contains(paje, "\n3 \"PHASE:" + name + "\" PHASE \"" + name + "\" \""));
    }
    std::string identity = "algorithm=" + run["algorithm"].get<std::string>();
    for (const auto& [k, v] : run["params"].items())
      if (k != "run.algorithm")
        identity += ", " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    CHECK(paje.rfind("# ciosim point: " + identity + "\n", 0) == 0);
    CHECK(trace["otherData"]["point"] == identity);
  }
}

TEST_CASE("a timeline is deterministic, and without --timeline none is written") {
  Workspace w;
  w.write("t.toml", kTraced);
  REQUIRE(w.run("run -q t.toml --out a --timeline chrome,paje").code == 0);
  REQUIRE(w.run("run -q t.toml --out b --trace chrome,paje").code == 0);
  for (const char* f : {"results.json", "results.csv", "phases.csv", "timeline-1.json", "timeline-1.paje",
                        "timeline-2.json", "timeline-2.paje"}) {
    INFO(f);
    CHECK(slurp(w.root / "a" / f) == slurp(w.root / "b" / f));
  }
  REQUIRE(w.run("run -q t.toml --out c").code == 0);
  CHECK(!fs::exists(w.root / "c/timeline-1.json"));
  // The timeline does not change the results.
  CHECK(slurp(w.root / "c/results.json") == slurp(w.root / "a/results.json"));
  const Output bad = w.run("run -q t.toml --out d --timeline vcd");
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "unknown --timeline format \"vcd\"; valid choices: chrome, paje"));
  CHECK(!fs::exists(w.root / "d"));
}

TEST_CASE("results split every rank's phase time into CPU, network and file-system time") {
  Workspace w;
  w.write("t.toml", kTraced);
  REQUIRE(w.run("run -q t.toml --out out").code == 0);
  const json results = json::parse(slurp(w.root / "out/results.json"));
  for (const auto& run : results["runs"]) {
    double previous_start = -1;
    for (const auto& ph : run["phases"]) {
      INFO(run["algorithm"] << " " << ph["name"]);
      CHECK(ph["start_s"].get<double>() >= previous_start);  // phases in time order
      previous_start = ph["start_s"].get<double>();
      const auto& rk = ph["ranks"];
      REQUIRE(rk["time_s"].size() == 4);
      double max = 0;
      for (std::size_t r = 0; r < 4; ++r) {
        const double t = rk["time_s"][r].get<double>();
        const double sum = rk["cpu_s"][r].get<double>() + rk["network_s"][r].get<double>() +
                           rk["filesystem_s"][r].get<double>();
        // The technique's own code takes no simulated time: the three kinds cover the phase.
        CHECK(std::abs(sum - t) <= 1e-12 + 1e-9 * t);
        max = std::max(max, t);
      }
      CHECK(ph["time_s"].get<double>() == max);
    }
  }
  // Block I/O computes nothing. Writing 32 KiB, its longest phase is the open: four opens queue at the
  // metadata server's CPU.
  const auto& block = results["runs"][1];
  CHECK(block["algorithm"] == "block");
  for (const auto& ph : block["phases"])
    for (std::size_t r = 0; r < 4; ++r) CHECK(ph["ranks"]["cpu_s"][r].get<double>() == 0);
  const std::string small = block["bottleneck"];
  CHECK(small.rfind("open (", 0) == 0);
  CHECK(contains(small, "server CPUs busy"));
  CHECK(contains(small, "busiest mds cpu"));
  // Writing 4 MiB to two 40 MB/s disks, the write is the longest phase and the disks bound it.
  REQUIRE(w.run("run -q t.toml --out big --set run.algorithm=block --set workload.nx=1048576").code == 0);
  const json big = json::parse(slurp(w.root / "big/results.json"));
  const std::string line = big["runs"][0]["bottleneck"];
  INFO(line);
  CHECK(line.rfind("write (", 0) == 0);
  CHECK(contains(line, "disks busy"));
  CHECK(contains(line, "(2 of them"));
  CHECK(contains(line, "MB/s each"));
  CHECK(contains(line, "100 % in file-system calls"));

  const std::string phases = slurp(w.root / "out/phases.csv");
  CHECK(phases.rfind("run,phase,rank,time_s,cpu_s,network_s,filesystem_s,calls\n", 0) == 0);
  std::size_t rows = 0;
  for (const auto& run : results["runs"]) rows += 4 * run["phases"].size();
  CHECK(static_cast<std::size_t>(std::count(phases.begin(), phases.end(), '\n')) == rows + 1);
  CHECK(contains(phases, "\n2,write,3,"));
  // Each rank's calls in the phase: Block I/O's write is one file_write per rank, its open one file_open.
  CHECK(contains(phases, ",file_write=1\n"));
  CHECK(contains(phases, ",file_open=1\n"));
  // results.json has the same calls per phase, summed over ranks, and per rank.
  for (const auto& ph : block["phases"])
    if (ph["name"] == "write") {
      CHECK(ph["calls"]["file_write"].get<int>() == 4);
      CHECK(ph["ranks"]["calls"][3]["file_write"].get<int>() == 1);
    }
}

TEST_CASE("busy time merges overlapping operations and prorates bytes over a window") {
  ciosim::activity::Busy b;
  b.add(0, 2, 200);
  b.add(1, 3, 200);  // overlaps: one busy interval [0, 3]
  b.add(5, 6, 100);
  b.add(4, 4.5, 50);  // out of order: merged by finish()
  b.finish();
  REQUIRE(b.intervals().size() == 3);
  CHECK(b.total_busy() == Approx(4.5));
  CHECK(b.busy_within(2, 5.5) == Approx(1 + 0.5 + 0.5));
  CHECK(b.bytes_within(0, 1.5) == Approx(400 * 0.5));
  CHECK(b.bytes_within(4, 6) == Approx(150));
}

TEST_CASE("resource use does not depend on the order resources were first recorded in") {
  // Two logs with the same busy times, their disks first recorded in opposite orders: equal busy
  // fractions, and the tie for the busiest broken by the name in natural order (iod2 before iod10).
  auto use = [](const std::vector<std::string>& order) {
    ciosim::activity::Log log;
    for (const std::string& name : order) {
      const int id = log.resource(ciosim::activity::ResourceKind::Disk, name, name);
      const double share = name == "iod3 disk" ? 0.1 : 0.3;  // iod3 is busy less
      log.busy(id, 0, share, 100);
    }
    log.finish();
    ciosim::RunResult res;
    ciosim::PhaseTime p;
    p.name = "write";
    p.time_s = 1;
    p.end_s = 1;
    p.rank_time_s = {1};
    p.rank_cpu_s = {0};
    p.rank_network_s = {0};
    p.rank_filesystem_s = {1};
    res.phases.push_back(p);
    ciosim::config::describe_use(log, res);
    REQUIRE(res.phases[0].resources.size() == 1);
    return res.phases[0].resources[0];
  };
  const auto a = use({"iod10 disk", "iod3 disk", "iod2 disk", "iod0001 disk"});
  const auto b = use({"iod2 disk", "iod0001 disk", "iod3 disk", "iod10 disk"});
  CHECK(a.count == 4);
  CHECK(a.busiest == "iod0001 disk");
  CHECK(b.busiest == a.busiest);
  CHECK(a.busy_max == b.busy_max);
  CHECK(a.busy_mean == b.busy_mean);  // the same sum, in the same order: equal to the last bit
  CHECK(a.busy_mean == Approx((0.3 * 3 + 0.1) / 4));
  const auto c = use({"iod10 disk", "iod2 disk"});
  CHECK(c.busiest == "iod2 disk");
}
