// What `ciosim` checks before it simulates anything, seen from the command line, and what a stopped
// `ciosim validate` leaves behind: nothing.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "cli_workspace.hpp"

using namespace cli_test;

namespace {

const char* kLists = R"(name = "lists"
[run]
algorithm = ["iec", "block"]
ranks = 4
platform = "tiny"
[workload]
kind = "lists"
nx = 16
file = "data/l.toml"
)";

/// sc/lists.toml (kLists) and its lists file, 16 entries over 4 ranks.
void write_lists_scenario(const Workspace& w) {
  fs::create_directories(w.root / "sc/data");
  w.write("sc/data/l.toml",
          "ranks = [ [[0, 1], [7, 2], [12, 1]], [[3, 1], [4, 1], [9, 1], [14, 1]], "
          "[[1, 1], [5, 1], [10, 1], [15, 1]], [[11, 1], [2, 1], [13, 1], [6, 1]] ]\n");
  w.write("sc/lists.toml", kLists);
}

bool one_line(const std::string& s) {
  return std::count(s.begin(), s.end(), '\n') == 1;
}

/// The live processes whose command line holds `text`, from /proc.
std::vector<pid_t> processes_naming(const std::string& text) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = slurp(e.path() / "cmdline");  // empty for a zombie
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (contains(cmdline, text)) out.push_back(std::stoi(name));
  }
  return out;
}

/// The hidden entries (temporaries) left in `dir`.
std::vector<std::string> hidden_entries(const fs::path& dir) {
  std::vector<std::string> hidden;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string()[0] == '.') hidden.push_back(e.path().filename().string());
  return hidden;
}

/// The processes still naming `text` after up to 5 s: a launcher or a rank that was not ended.
std::vector<pid_t> processes_left(const std::string& text) {
  std::vector<pid_t> left = processes_naming(text);
  for (int i = 0; i < 100 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    left = processes_naming(text);
  }
  return left;
}

}  // namespace

TEST_CASE("ciosim run DIR/effective-config.toml reproduces a lists scenario byte for byte", "[cli][config]") {
  Workspace w;
  write_lists_scenario(w);
  const Output first = w.run("run -q sc/lists.toml --out r1");
  INFO(first.err);
  REQUIRE(first.code == 0);
  const Output again = w.run("run -q r1/effective-config.toml --out r2");
  INFO(again.err);
  REQUIRE(again.code == 0);
  for (const char* f : {"results.json", "results.csv", "phases.csv"})
    CHECK(slurp(w.root / "r1" / f) == slurp(w.root / "r2" / f));
}

TEST_CASE("validate refuses a --work-dir that is a file before MPI starts, and writes nothing",
          "[cli][safety]") {
  // Each real rank makes the directory's last level: on a regular file one rank failed and the other waited
  // for it forever. Now it is a one-line refusal, exit 2, before any MPI process or output exists.
  Workspace w;
  write_lists_scenario(w);
  w.write("afile", "mine\n");
  const Output o = w.run("validate sc/lists.toml --work-dir afile --out v");
  INFO(o.err);
  CHECK(o.code == 2);
  CHECK(one_line(o.err));
  CHECK(o.err.find("--work-dir afile is a regular file; give a directory") != std::string::npos);
  CHECK_FALSE(fs::exists(w.root / "v"));
  CHECK(slurp(w.root / "afile") == "mine\n");
}

TEST_CASE("a scenario that is a directory, a FIFO or a device is named for what it is", "[cli][config]") {
  Workspace w;
  fs::create_directories(w.root / "dir.toml");
  REQUIRE(::mkfifo((w.root / "fifo.toml").c_str(), 0600) == 0);
  const std::pair<std::string, std::string> cases[] = {{"dir.toml", "is a directory"},
                                                       {"fifo.toml", "is a FIFO"},
                                                       {"/dev/null", "is a device"},
                                                       {"missing.toml", "not found"}};
  for (const auto& [path, what] : cases) {
    INFO(path);
    const Output r = w.run("run --dry-run " + path);
    CHECK(r.code == 2);
    CHECK(one_line(r.err));
    CHECK(contains(r.err, what));
  }
}

TEST_CASE("ciosim list names a malformed platform and still lists the others", "[cli][config]") {
  Workspace w;
  w.write("data/platforms/broken.toml", "name = \"broken\"\n[nodes\ncount = 4\n");
  w.write("data/platforms/zzz.toml", std::string(kPlatform).replace(0, 13, "name = \"zzz\" "));
  const Output r = w.run("list");
  CHECK(r.code == 2);
  CHECK(contains(r.out, "broken"));
  CHECK(contains(r.out, "INVALID"));
  CHECK(contains(r.out, "tiny"));
  CHECK(contains(r.out, "zzz"));
  CHECK(contains(r.out, "Parameters"));  // listed to the end
  CHECK(one_line(r.err));
  CHECK(contains(r.err, "broken.toml"));
}

TEST_CASE("ciosim list states the bounds of counts", "[cli][config]") {
  Workspace w;
  const Output r = w.run("list");
  REQUIRE(r.code == 0);
  const auto line_of = [&](const std::string& key) {  // with its wrapped help, one space between words
    std::istringstream lines(r.out);
    std::string text, line, word;
    bool in = false;
    while (std::getline(lines, line)) {
      if (line.rfind("  " + key + " ", 0) == 0)
        in = true;
      else if (in && line.find_first_not_of(' ') < 10)
        break;
      if (!in) continue;
      std::istringstream words(line);
      while (words >> word) text += word + " ";
    }
    return text;
  };
  CHECK(contains(line_of("run.iterations"), "(1 to 1000000)"));
  CHECK(contains(line_of("pvfs.io_servers"), "(1 to 65536)"));
  CHECK(contains(line_of("platform.nodes"), "(1 to 1048576)"));
}

TEST_CASE("a --max-memory limit refuses a point in the validation pass, naming it, -j sharing the limit",
          "[cli][memory]") {
  Workspace w;
  Output r = w.run("run --dry-run s.toml --set workload.nx=[1024,268435456] --max-memory 1GiB");
  CHECK(r.code == 2);
  CHECK(one_line(r.err));
  CHECK(contains(r.err, "workload.nx=268435456"));
  CHECK(contains(r.err, "needs about"));
  CHECK(!contains(r.err, "workload.nx=1024,"));
  r = w.run("run --dry-run s.toml --set workload.nx=1048576 --max-memory 1GiB");
  CHECK(r.code == 0);
  r = w.run("run --dry-run s.toml --set workload.nx=16777216 --max-memory 1GiB -j 8");
  CHECK(r.code == 2);
  CHECK(contains(r.err, "-j 8"));
  r = w.run("run --dry-run --keep-going s.toml --set workload.nx=[1024,268435456] --max-memory 1GiB");
  CHECK(r.code == 0);
  CHECK(contains(r.out, "skipped point"));
}

#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer cannot run under an address-space limit
namespace {
/// `ciosim ARGS` in the workspace under the shell limit `ulimit LIMIT` (e.g. "-v 3000000"): its exit code
/// (the test fails unless it exited) and its stderr.
std::pair<int, std::string> run_limited(const Workspace& w, const std::string& limit,
                                        const std::string& args) {
  const std::string cmd = "cd '" + w.root.string() + "' && ulimit " + limit + " && CIOSIM_DATA_DIR='" +
                          (w.root / "data").string() + "' '" + CIOSIM_BINARY + "' " + args +
                          " >out.txt 2>err.txt";
  const int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
  return {WEXITSTATUS(status), slurp(w.root / "err.txt")};
}
}  // namespace

TEST_CASE("running out of memory while building a distribution is one line naming the point",
          "[cli][memory]") {
  Workspace w;
  // The estimate lets it through (--max-memory 1TB; a data-segment limit, ulimit -d, is not among the
  // limits checked up front, the address space's is); the irregular distribution's per-entry work (8 GB
  // for one rank's 2e9 owners) then cannot get its memory under a 3 GB data limit.
  w.write("irr.toml",
          "[run]\nalgorithm = \"block\"\nranks = 1\nplatform = \"tiny\"\n[workload]\nkind = \"irregular\"\n"
          "nx = [1024, 2000000000]\n");
  const auto [code, err] = run_limited(w, "-d 3000000", "run --dry-run irr.toml --max-memory 1TB");
  CHECK(code == 2);
  INFO(err);
  CHECK(one_line(err));
  CHECK(contains(err, "point 2 of 2 (workload.nx=2000000000): out of memory while building the irregular"));
}

TEST_CASE("a point past the address-space limit (ulimit -v) is refused up front, naming the limit",
          "[cli][memory]") {
  Workspace w;
  // Block I/O on 1 GiB needs about 5.5 GiB: within the machine's memory, not within a 2.9 GiB address
  // space as a batch system sets it.
  const auto [code, err] = run_limited(
      w, "-v 3000000",
      "run --dry-run s.toml --set workload.nx=268435456 --set workload.bx=4 --set run.algorithm=block");
  CHECK(code == 2);
  INFO(err);
  CHECK(one_line(err));
  CHECK(contains(err, "more than this process's address-space limit (ulimit -v) 2.9 GiB"));
  CHECK(contains(err, "or raise the limit (ulimit -v; a batch job's memory request)"));
}
#endif

#ifdef CIOSIM_MPI_BINARY  // a validate needs the MPI backend
TEST_CASE("a stopped ciosim validate leaves no temporary workspace and no MPI run behind", "[cli][safety]") {
  Workspace w;
  // A validate whose MPI run takes a while (IEC, Bx = 1, 4 MiB on 2 ranks, 3 repetitions), stopped by
  // SIGTERM while its workspace holds the MPI run's files.
  const std::string cmd = "cd '" + w.root.string() + "' && exec '" + CIOSIM_BINARY + "' validate '" +
                          CIOSIM_SOURCE_DIR +
                          "/scenarios/quickstart.toml' -n 2 --repeat 3 --out v --set run.algorithm=iec "
                          "--set workload.bx=1 --set platform.cores_per_node=2 >/dev/null 2>&1 </dev/null";
  const pid_t pid = start_shell(cmd);
  REQUIRE(pid > 0);
  // Wait until the workspace (.v.validate-XXXXXX) holds the MPI run's log and the launcher runs.
  fs::path ws;
  std::vector<pid_t> launcher;
  for (int i = 0; i < 400 && (ws.empty() || launcher.empty()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& e : fs::directory_iterator(w.root))
      if (e.path().filename().string().rfind(".v.validate-", 0) == 0 && fs::exists(e.path() / "mpi.log"))
        ws = e.path();
    launcher = children_of(pid);
  }
  REQUIRE(!ws.empty());
  REQUIRE(!launcher.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(::kill(pid, SIGTERM) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(!fs::exists(ws));
  const bool gone = all_gone(launcher);
  CHECK(gone);
  CHECK(hidden_entries(w.root) == std::vector<std::string>{});
}

TEST_CASE("validate --timeout ends an MPI job that runs past it, with its ranks, and writes nothing",
          "[cli][safety]") {
  Workspace w;
  // 1000 repetitions of IEC at Bx = 1 on 4 MiB over 2 ranks: several seconds on MPI, ended after 1 s.
  const auto start = std::chrono::steady_clock::now();
  const Output r = w.run(std::string("validate '") + CIOSIM_SOURCE_DIR +
                         "/scenarios/quickstart.toml' -q -n 2 --repeat 1000 --timeout 1 --out v "
                         "--set run.algorithm=iec --set workload.bx=1 --set platform.cores_per_node=2 "
                         "</dev/null");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(one_line(r.err));
  CHECK(contains(r.err, "ciosim: error: the MPI job of the real runs ran past --timeout 1 s and was ended"));
  CHECK(took < 30);
  CHECK_FALSE(fs::exists(w.root / "v"));
  CHECK(hidden_entries(w.root) == std::vector<std::string>{});
  // Neither the launcher nor a rank (each names the workspace on its command line) is left running.
  CHECK(processes_left(w.root.string()) == std::vector<pid_t>{});
}

TEST_CASE("calibrate --timeout ends a measurement job that runs past it, with its ranks, and writes nothing",
          "[cli][safety]") {
  Workspace w;
  // A full (not --quick) measurement job takes minutes on 2 ranks; ended after 1 s.
  const auto start = std::chrono::steady_clock::now();
  const Output r = w.run("calibrate -n 2 -q --timeout 1 --out p.toml --measurements m.json </dev/null");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(one_line(r.err));
  CHECK(
      contains(r.err, "ciosim: error: the MPI job of the measurements ran past --timeout 1 s and was ended"));
  CHECK(took < 30);
  CHECK_FALSE(fs::exists(w.root / "p.toml"));
  CHECK_FALSE(fs::exists(w.root / "m.json"));
  CHECK(hidden_entries(w.root) == std::vector<std::string>{});
  CHECK(processes_left(w.root.string()) == std::vector<pid_t>{});
}
#endif

TEST_CASE("run.payload = elided is refused before anything runs where it cannot be used", "[cli][config]") {
  Workspace w;
  write_lists_scenario(w);
  const Output vb = w.run(
      "run -q sc/lists.toml --out r1 --set run.algorithm=iec --set run.payload=elided "
      "--set 'run.sequence=open write close'");
  CHECK(vb.code == 2);
  CHECK(one_line(vb.err));
  CHECK_THAT(vb.err, Catch::Contains("run.sequence checks every step's bytes") &&
                         Catch::Contains("use run.payload = \"bytes\""));
  CHECK_FALSE(fs::exists(w.root / "r1"));
  const Output ex = w.run(
      "run -q sc/lists.toml --out r2 --set run.algorithm=iec --set run.payload=elided "
      "--export-file x.dat");
  CHECK(ex.code == 2);
  CHECK_THAT(ex.err, Catch::Contains("--export-file needs the file's bytes"));
  CHECK_FALSE(fs::exists(w.root / "x.dat"));
  const Output ok = w.run("run -q sc/lists.toml --out r3 --set run.payload=elided");
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  CHECK_THAT(slurp(w.root / "r3/results.json"), Catch::Contains("\"payload\": \"elided\""));
  CHECK_THAT(slurp(w.root / "r3/results.json"), !Catch::Contains("\"file_verified\": false"));
}
