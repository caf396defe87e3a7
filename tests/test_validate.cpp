// `ciosim validate` end to end (CIOSIM_BINARY, which starts ciosim-mpi under mpirun): every registered
// technique, writing and reading, gives the same file and the same call trace and counts in simulation and
// on 4 real MPI ranks; a genuine difference (ranks grouped into hosts differently) is detected and fails;
// bad input is one line and exit status 2. Timing is reported by validate but never asserted here.
#include <stdlib.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "algorithms/technique.hpp"
#include "config/workload.hpp"

#ifdef CIOSIM_MPI_BINARY

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Output {
  int code = -1;
  std::string out, err;
};

/// A temporary directory; `run` starts ciosim in it, with no stdin (as in CI).
struct Workspace {
  fs::path root;
  Workspace() {
    std::string templ = (fs::temp_directory_path() / "ciosim-validate-XXXXXX").string();
    root = ::mkdtemp(templ.data());
  }
  ~Workspace() { fs::remove_all(root); }
  Output run(const std::string& args) const {
    const fs::path o = root / ".stdout", e = root / ".stderr";
    const std::string cmd = "cd '" + root.string() + "' && '" CIOSIM_BINARY "' " + args + " </dev/null >'" +
                            o.string() + "' 2>'" + e.string() + "'";
    const int status = std::system(cmd.c_str());
    Output r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(o);
    r.err = slurp(e);
    return r;
  }
};

const std::string kQuickstart = std::string(CIOSIM_SOURCE_DIR) + "/scenarios/quickstart.toml";
// All ranks on one simulated host, as all real ranks are on this machine: techniques that group ranks by
// host (two-phase's cb_config_list) then make the same calls. Bx = 64 keeps the simulation short.
const std::string kOneHost = " --set platform.nodes=1 --set platform.cores_per_node=4 --set workload.bx=64";

/// The registered techniques that can run quickstart's workload on 4 ranks (with a read path if `read`).
std::vector<std::string> runnable(bool read) {
  ciosim::WorkloadSpec w;
  w.nx = 1048576;
  w.bx = 64;
  const ciosim::Distribution d = ciosim::make_distribution(w, 4);
  std::vector<std::string> out;
  for (const auto& t : ciosim::techniques())
    if (t.check(d).empty() && (!read || t.read)) out.push_back(t.name);
  return out;
}

std::string list(const std::vector<std::string>& names) {
  std::string s = "[";
  for (const auto& n : names) s += (s.size() > 1 ? "," : "") + n;
  return s + "]";
}

/// Checks (a) and (b) for every point of validation.json and returns the algorithms it covered.
std::set<std::string> checked_points(const fs::path& dir) {
  const auto j = nlohmann::json::parse(slurp(dir / "validation.json"));
  std::set<std::string> seen;
  for (const auto& p : j.at("points")) {
    INFO("point " << p.at("point") << ": " << p.at("algorithm") << " " << p.at("params") << "\n"
                  << p.dump(1));
    CHECK(p.at("file").at("simulated_is_expected") == true);
    CHECK(p.at("file").at("real_is_expected") == true);
    CHECK(p.at("file").at("identical") == true);
    CHECK(p.at("file").at("simulated_run_verified") == true);
    CHECK(p.at("file").at("real_run_verified") == true);
    CHECK(p.at("trace_identical") == true);
    CHECK(p.at("calls_identical") == true);
    CHECK(p.at("passed") == true);
    seen.insert(p.at("algorithm").get<std::string>());
  }
  CHECK(j.at("passed") == true);
  return seen;
}

}  // namespace

TEST_CASE("validate: every technique writes the same file with the same calls in simulation and on MPI") {
  // The quickstart as shipped (a 4-node platform), every technique: by default the simulation places the
  // ranks as the real run did (here all on this one host), so host-grouping techniques choose alike.
  Workspace w;
  const auto names = runnable(false);
  REQUIRE(names.size() >= 2);
  const Output r = w.run("validate " + kQuickstart + " -n 4 --repeat 1 --no-reference -q --out v" +
                         " --set workload.bx=64 --set 'run.algorithm=" + list(names) + "'");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const auto seen = checked_points(w.root / "v");
  CHECK(seen == std::set<std::string>(names.begin(), names.end()));
  CHECK(r.out.find("placement: as the real run: 4 ranks on 1 host (node0: 0-3)") != std::string::npos);
  // Notes on the machine's load and calibration may appear; none on the placement, which is the real one.
  CHECK(r.out.find("note: the simulation places") == std::string::npos);
  CHECK(r.out.find("PASSED") != std::string::npos);
}

TEST_CASE("validate: the LAP path (hints.lap = acn, avn) on the mesh workload, same files and calls") {
  // scenarios/validate-lap.toml: default, ACN and AVN aggregators, 2 iterations, on 4 real ranks. One
  // machine is one host, so the LAP is 1 x 1, but all of aggregation_interval's calls (name gather, host
  // count, 3 Send/Recv of counts, rank list, length and string broadcasts) run through the MPI backend.
  Workspace w;
  const Output r = w.run("validate " + std::string(CIOSIM_SOURCE_DIR) +
                         "/scenarios/validate-lap.toml -n 4 --repeat 1 --no-reference -q --out v");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(checked_points(w.root / "v") == std::set<std::string>{"two-phase"});
  const auto j = nlohmann::json::parse(slurp(w.root / "v/validation.json"));
  std::set<std::string> laps;
  for (const auto& p : j.at("points")) laps.insert(p.at("params").dump());
  CHECK(laps.size() == 3);
  const auto sim = nlohmann::json::parse(slurp(w.root / "v/results.json"));
  REQUIRE(sim.at("runs").size() == 3);
  CHECK(sim.at("runs")[0].at("calls").at("send") == 0);      // none: no LAP
  CHECK(sim.at("runs")[1].at("calls").at("send") == 2 * 3);  // acn: P-1 count messages per iteration
  CHECK(sim.at("runs")[2].at("calls").at("send") == 2 * 3);  // avn
}

TEST_CASE("validate: every technique with a read path reads the same data with the same calls") {
  Workspace w;
  const auto names = runnable(true);
  if (names.empty()) return;  // no technique reads yet
  // The platform's own placement, made to match the real one (4 ranks on one node).
  const Output r = w.run(
      "validate " + kQuickstart + " -n 4 --repeat 1 --no-reference -q --out v" + kOneHost +
      " --placement platform --memory cold --set run.access=read --set 'run.algorithm=" + list(names) + "'");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  const auto timings = nlohmann::json::parse(slurp(w.root / "v/mpi-timings.json"));
  CHECK(timings.at("memory") == "cold");
  CHECK(timings.at("untimed_warmup_runs") == 0);
  CHECK(r.out.find("placement: as the platform (rank r on node r / cores_per_node): 4 ranks on 1 host") !=
        std::string::npos);
  const auto seen = checked_points(w.root / "v");
  CHECK(seen == std::set<std::string>(names.begin(), names.end()));
}

TEST_CASE("validate: view-based with blocks, pool and aggregators that force messages and evictions") {
  // Blocks of 1000 bytes cut entries and chunks, a pool of two buffers evicts in every call, 3 of 4 ranks
  // aggregate, two writes (reads) per open file: the view shipping, the per-block messages, the LRU
  // write-backs, the read misses and write-on-close all run on real MPI and must match the simulation.
  Workspace w;
  for (const char* access : {"write", "read"}) {
    const std::string out = std::string("v-") + access;
    const Output r = w.run(
        "validate " + kQuickstart + " -n 4 --repeat 1 --no-reference -q --out " + out + kOneHost +
        " --placement platform --set workload.nx=65536 --set run.algorithm=view-based --set run.iterations=2"
        " --set hints.vb_buffer_size=1000 --set hints.vb_pool_size=2000 --set hints.vb_aggregators=3"
        " --set run.access=" +
        access);
    INFO(access << ": " << r.out << r.err);
    REQUIRE(r.code == 0);
    CHECK(checked_points(w.root / out) == std::set<std::string>{"view-based"});
    const auto sim = nlohmann::json::parse(slurp(w.root / out / "results.json"));
    REQUIRE(sim.at("runs").size() == 1);
    const auto& calls = sim.at("runs")[0].at("calls");
    CHECK(calls.value("alltoall", 0) == 0);  // no per-call exchange: the views are at the aggregators
    CHECK(calls.at("allgather") == 4);       // the view sizes, once at set_view
  }
}

TEST_CASE("validate: view-based calls on part of the view, with read-modify-write and evictions, on MPI") {
  // Each rank writes its view in three calls and reads it back in two, through blocks of 1000 bytes and a
  // pool of two buffers: the parts' boundaries fall inside blocks (a write miss there reads the block
  // first), the intervals and read requests travel, the pieces are coalesced into 1500-byte network
  // buffers and served as they arrive (MPI_Waitany). Real MPI must write the same file with the same calls.
  Workspace w;
  const Output r =
      w.run("validate " + kQuickstart + " -n 4 --repeat 1 --no-reference -q --out v" + kOneHost +
            " --placement platform --set workload.nx=65536 --set run.algorithm=view-based"
            " --set 'run.sequence=open (write/3)*3 close open (read/2)*2 close open (write/3)*3 read close'"
            " --set hints.vb_buffer_size=1000 --set hints.vb_pool_size=2000 --set hints.vb_aggregators=3"
            " --set hints.vb_network_buffer=1500");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(checked_points(w.root / "v") == std::set<std::string>{"view-based"});
  const auto sim = nlohmann::json::parse(slurp(w.root / "v/results.json"));
  const auto& calls = sim.at("runs")[0].at("calls");
  CHECK(calls.at("waitany") > 0);
  CHECK(calls.at("file_read") > 0);
  CHECK(calls.value("alltoall", 0) == 0);
}

TEST_CASE("validate --cpu-steps: each CPU charge's site with the work it charged and the real code's time") {
  // Two techniques at Bx = 1, where the per-entry work is most of a phase: the report names each charge's
  // site (function, file and line), with the tuples and bytes the model charged there; validation.json
  // keeps every site, the charged seconds computed from the platform's costs.
  Workspace w;
  const Output r = w.run("validate " + kQuickstart + " -n 2 --repeat 1 --no-reference -q --out v" +
                         " --set platform.nodes=1 --set platform.cores_per_node=4 --cpu-steps --set "
                         "workload.nx=262144 --set workload.bx=1"
                         " --set 'run.algorithm=[iec,view-based]'");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("CPU charges:") != std::string::npos);
  const auto v = nlohmann::json::parse(slurp(w.root / "v/validation.json"));
  const auto timings = nlohmann::json::parse(slurp(w.root / "v/mpi-timings.json"));
  std::map<std::string, std::int64_t> tuples;  // by technique: every site's tuples added up
  for (const auto& p : v.at("points")) {
    REQUIRE(p.contains("cpu_steps"));
    bool timed = false;
    for (const auto& st : p.at("cpu_steps")) {
      const std::string site = st.at("site");
      CHECK((site.find(".cpp:") != std::string::npos || site.starts_with("uncharged code, phase ")));
      tuples[p.at("algorithm")] += st.at("tuples").get<std::int64_t>();
      CHECK(st.at("charged_s").get<double>() >= 0);
      timed = timed || st.at("measured_s").get<double>() > 0;
    }
    CHECK(timed);
  }
  // Each rank's 131,072 entries are one tuple each at Bx = 1: iec's executor packs all of them, view-based's
  // set_view walks every rank's view and its aggregators scatter every entry.
  CHECK(tuples.at("iec") >= 262144);
  CHECK(tuples.at("view-based") >= 2 * 262144);
  // The timed runs are not the stepped one: one repetition in mpi-timings.json.
  CHECK(timings.at("points")[0].at("runs").size() == 1);
  CHECK(timings.at("points")[0].contains("cpu_steps"));
}

TEST_CASE("validate: the quickstart on 4 ranks, with the MPI library's own collective write beside it") {
  // The quickstart's platform and techniques as shipped; Bx = 64 only, to stay short under the sanitizers.
  Workspace w;
  const Output r = w.run("validate " + kQuickstart + " -n 4 --repeat 1 -q --out v --set workload.bx=64");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(checked_points(w.root / "v") == std::set<std::string>{"iec", "block"});
  const auto j = nlohmann::json::parse(slurp(w.root / "v/validation.json"));
  int available = 0;
  for (const auto& p : j.at("points"))
    for (const auto& ref : p.at("references"))
      if (ref.at("available") == true) {
        ++available;
        CHECK(ref.at("file_verified") == true);  // MPI_File_write_all with our view wrote x in order
        CHECK(ref.at("total").at("measured_median_s").get<double>() > 0);
      }
  CHECK(available > 0);
  for (const char* f :
       {"results.json", "mpi-results.json", "mpi-timings.json", "validation.txt", "effective-config.toml"})
    CHECK(fs::exists(w.root / "v" / f));
  // By default the real runs measure the steady state: one untimed warm-up run per point, memory kept.
  const auto timings = nlohmann::json::parse(slurp(w.root / "v/mpi-timings.json"));
  CHECK(timings.at("memory") == "warm");
  CHECK(timings.at("untimed_warmup_runs") == 1);
  CHECK(j.at("memory").get<std::string>().starts_with("warm"));
  CHECK(timings.at("points").at(0).at("runs").size() == 1);  // --repeat 1: one timed run
  // Times are reported: every phase of every point has a prediction and a measurement.
  for (const auto& p : j.at("points"))
    for (const auto& t : p.at("timing")) {
      CHECK(t.at("predicted_s").get<double>() >= 0);
      CHECK(t.at("measured_median_s").get<double>() >= 0);
      // One repetition has no spread: never flagged noisy.
      CHECK(t.at("measured_spread").get<double>() == 0);
      CHECK(t.at("noisy") == false);
    }
  // The heading says how far the times can be trusted: the machine's load, and that the quickstart's
  // platform (a 2007 cluster) was not calibrated on this machine.
  const std::string text = slurp(w.root / "v/validation.txt");
  CHECK(text.find("note: load average (1 min) ") != std::string::npos);
  CHECK(text.find("note: platform \"quickstart\" was not calibrated on this machine") != std::string::npos);
}

TEST_CASE("validate: ranks grouped into hosts differently are a detected difference (exit 1)") {
  // With --placement platform the quickstart platform puts the 4 ranks on 4 simulated hosts; the real run
  // has them on one host, so two-phase (cb_config_list "*:1": one aggregator per host) chooses 4
  // aggregators in simulation and 1 for real: the traces and counts differ, the file does not.
  Workspace w;
  const Output r = w.run("validate " + kQuickstart +
                         " -n 4 --repeat 1 --no-reference -q --out v --set run.algorithm=two-phase "
                         "--set workload.bx=64 --placement platform");
  INFO(r.out << r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find("FAILED") != std::string::npos);
  CHECK(r.out.find("note: the simulation places 4 ranks on 4 hosts (node0: 0, node1: 1, node2: 2, node3: "
                   "3), the real run 4 ranks on 1 host (node0: 0-3)") != std::string::npos);
  CHECK(r.err.find("validation failed") != std::string::npos);
  const auto j = nlohmann::json::parse(slurp(w.root / "v/validation.json"));
  REQUIRE(j.at("points").size() == 1);
  const auto& p = j.at("points")[0];
  CHECK(p.at("file").at("identical") == true);
  CHECK(p.at("trace_identical") == false);
  CHECK(p.at("calls_identical") == false);
  CHECK(p.at("trace_difference").get<std::string>().find("rank 0 event") != std::string::npos);
  CHECK(fs::exists(w.root / "v/sim-point-1.trace"));  // both traces are kept when they differ
  CHECK(fs::exists(w.root / "v/mpi-point-1.trace"));
}

TEST_CASE("validate: bad input is one line and exit status 2, nothing written") {
  Workspace w;
  const struct {
    std::string args, says;
  } cases[] = {
      {"validate " + kQuickstart + " -n 0", "-n must be >= 1"},
      {"validate " + kQuickstart + " --repeat 0", "--repeat must be >= 1"},
      {"validate " + kQuickstart + " --placement cyclic", "--placement must be 'real'"},
      {"validate " + kQuickstart + " --memory hot", "--memory must be 'warm'"},
      {"validate " + kQuickstart + " --mpirun /nonexistent/mpirun", "/nonexistent/mpirun not found"},
      {"validate " + kQuickstart + " --mpirun no-such-launcher", "no-such-launcher not found on PATH"},
      {"validate missing.toml", "scenario file missing.toml not found"},
      {"validate " + kQuickstart + " --set run.algorithm=nope", "unknown run.algorithm \"nope\""},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const Output r = w.run(c.args + " --out v");
    CHECK(r.code == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!fs::exists(w.root / "v"));
  }
}

#endif  // CIOSIM_MPI_BINARY

TEST_CASE("validate: a captured checkpoint replayed call by call, same files, reads and calls on MPI") {
  // scenarios/replay-checkpoint.toml: a real capture of tests/mpi/checkpoint.cpp on 4 ranks (rank 0's header
  // written alone, a subarray MPI_File_write_all, sync, MPI_File_read_at_all back). Every technique's real
  // run must make the simulation's calls and leave the application's file; the MPI library's own calls
  // (set_view + write_all / read_all per collective call) too.
  Workspace w;
  const Output r = w.run("validate " + std::string(CIOSIM_SOURCE_DIR) +
                         "/scenarios/replay-checkpoint.toml -n 4 --repeat 1 -q --out v");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(checked_points(w.root / "v") ==
        std::set<std::string>{"two-phase", "list-io", "independent", "view-based", "gathered"});
  const auto sim = nlohmann::json::parse(slurp(w.root / "v/results.json"));
  for (const auto& run : sim.at("runs")) {
    std::vector<std::string> ops;
    for (const auto& op : run.at("operations")) ops.push_back(op.at("name").get<std::string>());
    CHECK(ops == std::vector<std::string>{"open", "write_all", "sync", "read_at_all", "close"});
  }
  CHECK(r.out.find("FAIL") == std::string::npos);
}

TEST_CASE("validate: BT-IO through its operation sequence, two-phase and view-based, same files and calls") {
  // scenarios/validate-btio.toml: class S on 4 real ranks, 4 time steps written with computation between
  // them, the file closed, reopened and the 4 steps read back. The real runs and the MPI library's own
  // set_view + write_at_all / read_at_all must lay out the same 4 steps as the simulation.
  Workspace w;
  const Output r = w.run("validate " + std::string(CIOSIM_SOURCE_DIR) +
                         "/scenarios/validate-btio.toml -n 4 --repeat 1 -q --out v");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(checked_points(w.root / "v") == std::set<std::string>{"two-phase", "view-based"});
  const auto sim = nlohmann::json::parse(slurp(w.root / "v/results.json"));
  for (const auto& run : sim.at("runs")) {
    REQUIRE(run.at("operations").size() == 2 + 3 * 4 + 2 + 2 * 4);
    CHECK(run.at("bytes").at("file") ==
          4 * (12 * 12 * 12 * 5 * 8));  // 4 steps of class S (12^3 points x 5 doubles)
  }
  // The reference (the MPI library's own collective calls) verified its file and its reads too.
  CHECK(r.out.find("FAIL") == std::string::npos);
}
