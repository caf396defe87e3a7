// Nothing lost, nothing half-done (app/output_dir.hpp, app/cleanup.hpp): an impossible --out is found
// before anything is simulated, a results directory keeps the files a user put there, --export-file
// never replaces anything but a regular file, a stopped run leaves no simulation running and no
// temporary file, and a simulation that cannot finish is an error, never a result.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "cli_workspace.hpp"

using namespace cli_test;

namespace {

/// Entries of `dir` whose name starts with a dot (ciosim's staging files and directories do).
std::vector<std::string> hidden_entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n[0] == '.') out.push_back(n);
  }
  return out;
}

}  // namespace

TEST_CASE("ciosim run finds an impossible --out before simulating, and creates nothing", "[cli][safety]") {
  Workspace w;
  w.write("a-file", "mine\n");
  for (const std::string out : {"a-file/results", "a-file", "''"}) {
    INFO(out);
    const Output r = w.run("run -q s.toml --out " + out);
    CHECK(r.code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!contains(r.err, "[1/"));  // no point was simulated
    CHECK(slurp(w.root / "a-file") == "mine\n");
  }
  CHECK(hidden_entries(w.root) == std::vector<std::string>{});
  if (::geteuid() != 0) {  // root writes anywhere
    fs::create_directories(w.root / "ro");
    fs::permissions(w.root / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    const Output r = w.run("run -q s.toml --out ro/x");
    CHECK(r.code == 2);
    CHECK(contains(r.err, "cannot write in"));
    fs::permissions(w.root / "ro", fs::perms::owner_all);
  }
}

TEST_CASE("ciosim run into an existing results directory keeps the user's files", "[cli][safety]") {
  Workspace w;
  REQUIRE(w.run("run -q s.toml --out r").code == 0);
  w.write("r/notes.txt", "what I saw\n");
  w.write("r/results.csv", "stale\n");
  const Output again = w.run("run -q s.toml --out r --set workload.bx=2");
  INFO(again.err);
  REQUIRE(again.code == 0);
  CHECK(slurp(w.root / "r/notes.txt") == "what I saw\n");
  CHECK(slurp(w.root / "r/results.csv") != "stale\n");
  CHECK(contains(slurp(w.root / "r/effective-config.toml"), "bx = [2]"));
  CHECK(hidden_entries(w.root) == std::vector<std::string>{});
  CHECK(hidden_entries(w.root / "r") == std::vector<std::string>{});
}

TEST_CASE("ciosim run --export-file replaces only a regular file", "[cli][safety]") {
  Workspace w;
  const std::string one = " --set run.algorithm=block --set workload.bx=1";
  REQUIRE(::mkfifo((w.root / "fifo").c_str(), 0600) == 0);
  w.write("target", "precious\n");
  fs::create_symlink("target", w.root / "link");
  fs::create_directories(w.root / "dir");
  for (const std::string path : {"fifo", "link", "dir"}) {
    INFO(path);
    const Output r = w.run("run -q s.toml --out r-" + path + " --export-file " + path + one);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "--export-file replaces only a regular file"));
    CHECK(!fs::exists(w.root / ("r-" + path)));
  }
  CHECK(fs::is_fifo(fs::symlink_status(w.root / "fifo")));
  CHECK(fs::is_symlink(fs::symlink_status(w.root / "link")));
  CHECK(slurp(w.root / "target") == "precious\n");
  // A regular file is replaced by the simulated file.
  const Output ok = w.run("run -q s.toml --out r-ok --export-file target" + one);
  INFO(ok.err);
  CHECK(ok.code == 0);
  CHECK(fs::file_size(w.root / "target") == 1024 * 4);
  CHECK(hidden_entries(w.root) == std::vector<std::string>{});
}

TEST_CASE("a stopped ciosim run leaves no simulation running and no temporary file", "[cli][safety]") {
  Workspace w;
  // One point of a few seconds (List I/O on 32 MiB at Bx = 1: 131,072 list requests, about 5 s; IEC's
  // inspector now takes that point in a third of a second), exported, stopped by SIGTERM while it simulates.
  const std::string cmd =
      "cd '" + w.root.string() + "' && CIOSIM_DATA_DIR='" + (w.root / "data").string() + "' exec '" +
      CIOSIM_BINARY +
      "' run s.toml --out r --export-file x.dat --set run.algorithm=list-io --set workload.bx=1 "
      "--set workload.nx=8388608 >/dev/null 2>&1";
  const pid_t pid = start_shell(cmd);
  REQUIRE(pid > 0);
  // Wait until the point's child exists (a process whose parent is ciosim), then stop ciosim.
  pid_t child = 0;
  for (int i = 0; i < 200 && child == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (const std::vector<pid_t> c = children_of(pid); !c.empty()) child = c.front();
  }
  REQUIRE(child != 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(::kill(pid, SIGTERM) == 0);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  // The simulating child is gone (killed, then reaped by init), and nothing was left behind.
  const bool gone = all_gone({child});
  CHECK(gone);
  CHECK(hidden_entries(w.root) == std::vector<std::string>{});
  CHECK(!fs::exists(w.root / "r"));
  CHECK(!fs::exists(w.root / "x.dat"));
}

TEST_CASE("a platform value no machine can have is refused when the platform is read", "[cli][safety]") {
  Workspace w;
  // A copy function of 1e-300 bytes/s would make the first copy take 1e300 s, which SimGrid cannot reach
  // (it used to end in a deadlock): the platform reader refuses it, naming the file, the key and the range.
  std::string absurd = kPlatform;
  absurd.replace(absurd.find("memcpy_Bps = 3.0e8"), 18, "memcpy_Bps = 1e-300");
  w.write("absurd.toml", absurd);
  const Output r = w.run("run -q s.toml --out r --set run.platform=absurd.toml --set run.algorithm=iec");
  CHECK(r.code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(contains(r.err, "nodes.memcpy_Bps = 1e-300 is outside the physically meaningful range"));
  CHECK(!fs::exists(w.root / "r"));
}

TEST_CASE("a --set value replaces the scenario's, which is then not checked", "[cli][config]") {
  Workspace w;
  std::string other = kScenario;
  other.replace(other.find("platform = \"tiny\""), 17, "platform = \"elsewhere\"");
  w.write("other.toml", other);
  const Output bad = w.run("run -q other.toml --dry-run");
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "unknown platform \"elsewhere\""));
  const Output r = w.run("run -q other.toml --dry-run --set run.platform=tiny");
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(contains(r.out, "4 points, all valid"));
}
