// Bad input at ciosim's doors, one table: each case is a command line, the exit code it must end with, the
// words its one-line error must hold, and the paths it must leave as they were (a file byte-identical, a
// FIFO or a directory still one with the same content, a path that was absent still absent). Every case is
// refused before anything is simulated or measured, so the whole table takes about a second.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "cli_workspace.hpp"

using namespace cli_test;

namespace {

struct BadInput {
  std::string what;                    ///< what the case checks
  std::string args;                    ///< ciosim's arguments (through the shell: '' is an empty value)
  int code;                            ///< the exit code
  std::vector<std::string> words;      ///< each is in the error line
  std::vector<std::string> untouched;  ///< paths in the workspace left as they were (or not created)
};

/// A mesh scenario whose partition file (part4, 6 nodes over 4 ranks) the cases replace.
const char* kMesh = R"(name = "mesh"
[run]
algorithm = "two-phase"
ranks = 4
platform = "tiny"
[workload]
kind = "mesh"
nx = 6
partition = "part4"
load = 5
)";

/// The fixtures the cases point at: a FIFO, a directory with a file, a regular file, the mesh scenario and
/// its partition, a scenario that is not TOML, a platform whose MPI profile has a bandwidth of 1e300 B/s,
/// and a FIFO named like a platform file.
void add_fixtures(const Workspace& w) {
  REQUIRE(::mkfifo((w.root / "fifo").c_str(), 0600) == 0);
  REQUIRE(::mkfifo((w.root / "fifo.toml").c_str(), 0600) == 0);
  fs::create_directories(w.root / "dir");
  w.write("dir/kept", "kept\n");
  w.write("afile", "mine\n");
  w.write("m.toml", kMesh);
  w.write("part4", "0\n1\n2\n3\n0\n1\n");
  w.write("bad.toml", "name = \"broken\"\n[run\nalgorithm = \"iec\"\n");
  std::string fast = kPlatform;
  fast.replace(fast.find("mpi = \"myrinet\""), 15, "mpi = \"wire\"");
  fast.replace(fast.find("[pvfs]"), 6,
               "[network.profiles.wire]\ndescription = \"a wire\"\nlink_bandwidth_Bps = 1e300\n"
               "link_latency_s = 1e-6\nsend_overhead_s = 1e-6\nrecv_overhead_s = 1e-6\n"
               "eager_threshold = 4096\nsize_factors = [[0, 1.0]]\n[pvfs]");
  w.write("fast.toml", fast);
}

/// What is at `p`: absent, a FIFO, a symbolic link and its target, a directory and what is in it, or a
/// file and its bytes.
std::string state_of(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  if (!fs::exists(st)) return "absent";
  if (fs::is_fifo(st)) return "a FIFO";
  if (fs::is_symlink(st)) return "a link to " + fs::read_symlink(p, ec).string();
  if (fs::is_regular_file(st)) return "a file: " + slurp(p);
  if (!fs::is_directory(st)) return "something else";
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(p))
    entries.push_back(e.path().filename().string() + " = " + state_of(e.path()));
  std::sort(entries.begin(), entries.end());
  std::string out = "a directory {";
  for (const std::string& e : entries) out += e + "; ";
  return out + "}";
}

const std::vector<BadInput>& cases() {
  static const std::vector<BadInput> table = {
      // Input files a workload reads: only a regular file is opened.
      {"a FIFO as workload.partition",
       "run -q m.toml --out r --set workload.partition=fifo",
       2,
       {"workload.partition fifo is a FIFO (named pipe); give a file of one owner rank per line"},
       {"fifo", "r", "results"}},
      {"a directory as workload.partition",
       "run -q m.toml --out r --set workload.partition=dir",
       2,
       {"workload.partition dir is a directory; give a file of one owner rank per line"},
       {"dir", "r", "results"}},
      {"a device that never ends as workload.partition",
       "run -q m.toml --out r --set workload.partition=/dev/zero",
       2,
       {"workload.partition /dev/zero is a device; give a file of one owner rank per line"},
       {"r", "results"}},
      {"a scenario that is not TOML",
       "run -q bad.toml --out r",
       2,
       {"bad.toml:2:5: malformed TOML", "expected ']'"},
       {"bad.toml", "r", "results"}},
      // Outputs and working directories: only what can be replaced without loss.
      {"validate --work-dir on a regular file",
       "validate s.toml --work-dir afile --out v",
       2,
       {"--work-dir afile is a regular file; give a directory"},
       {"afile", "v", "results"}},
      {"plan --svg onto a FIFO",
       "plan --nx 16 --np 4 --svg fifo",
       2,
       {"--svg fifo is a FIFO (named pipe); --svg replaces only a regular file or creates a new one"},
       {"fifo"}},
      {"calibrate --measurements onto a FIFO, before anything is measured",
       "calibrate --measurements fifo --out p.toml",
       2,
       {"--measurements fifo is a FIFO (named pipe); --measurements replaces only a regular file"},
       {"fifo", "p.toml"}},
      {"calibrate --out onto a FIFO",
       "calibrate --out fifo.toml",
       2,
       {"--out fifo.toml is a FIFO (named pipe); --out replaces only a regular file"},
       {"fifo.toml"}},
      {"run --out onto a FIFO",
       "run -q s.toml --out fifo",
       2,
       {"output path fifo exists and is not a directory; choose another --out"},
       {"fifo", "results"}},
      // Names: an unknown one is refused with the valid ones.
      {"an unknown technique",
       "run -q s.toml --out r --set run.algorithm=nope",
       2,
       {"unknown run.algorithm \"nope\"", "valid choices: iec, iec-parametric, block, two-phase"},
       {"r", "results"}},
      {"an unknown option of a subcommand",
       "run -q s.toml --out r --bogus",
       2,
       {"The following argument was not expected: --bogus", "see ciosim --help"},
       {"r", "results"}},
      {"an unknown subcommand",
       "simulate s.toml",
       2,
       {"unknown subcommand 'simulate'; valid subcommands: run, plan"},
       {"results"}},
      {"an unknown timeline format",
       "run -q s.toml --out r --timeline bogus",
       2,
       {"unknown --timeline format \"bogus\"; valid choices: chrome, paje"},
       {"r", "results"}},
      // Sizes no machine has.
      {"a copy rate of 1e-300 bytes/s",
       "run -q s.toml --out r --set nodes.memcpy_Bps=1e-300",
       2,
       {"nodes.memcpy_Bps must be a finite number >= 1000 (bytes/s), got 1e-300"},
       {"r", "results"}},
      {"a negative vector size",
       "run -q s.toml --out r --set workload.nx=-4",
       2,
       {"workload.nx must be >= 1 (entries), got -4"},
       {"r", "results"}},
      {"a network profile of 1e300 bytes/s in a platform file",
       "run -q s.toml --out r --set run.platform=fast.toml",
       2,
       {"fast.toml:",
        "network.profiles.wire.link_bandwidth_Bps = 1e+300 is outside the physically meaningful "
        "range [1000, 1e+13]"},
       {"fast.toml", "r", "results"}},
      // An empty value where a name or a path is meant.
      {"run --timeline ''",
       "run -q s.toml --out r --timeline ''",
       2,
       {"--timeline is empty; give chrome, paje or chrome,paje"},
       {"r", "results"}},
      {"calibrate --name ''",
       "calibrate --name '' --out p.toml",
       2,
       {"--name is empty; give a platform name"},
       {"p.toml"}},
      {"run --out ''", "run -q s.toml --out ''", 2, {"--out is empty; give a directory"}, {"results"}},
      {"an empty SCENARIO", "run ''", 2, {"SCENARIO is empty; give a scenario file (TOML)"}, {"results"}},
      {"run --export-file ''",
       "run -q s.toml --out r --export-file ''",
       2,
       {"--export-file is empty; give a file path"},
       {"r", "results"}},
      {"plan --svg ''", "plan --nx 16 --np 4 --svg ''", 2, {"--svg is empty; give an SVG file path"}, {}},
      {"validate --work-dir ''",
       "validate s.toml --work-dir '' --out v",
       2,
       {"--work-dir is empty; give a directory"},
       {"v", "results"}},
      {"validate --mpirun ''",
       "validate s.toml --mpirun '' --out v",
       2,
       {"--mpirun is empty; give a launcher's name on PATH or its path"},
       {"v", "results"}},
      {"calibrate --out ''",
       "calibrate --out ''",
       2,
       {"--out is empty; give a platform file path (TOML)"},
       {}},
      {"merge with an empty SHARD_DIR",
       "merge o ''",
       2,
       {"SHARD_DIR is empty; give a shard's results folder"},
       {"o"}},
      {"plot --out ''", "plot r --out ''", 2, {"--out is empty; give a directory"}, {"r"}},
      {"capture --out ''",
       "capture --out '' -- true",
       2,
       {"--out is empty; give a new or empty folder"},
       {"ciosim-capture"}},
      {"an empty number (read as 0 otherwise)",
       "run -q s.toml --out r -n ''",
       2,
       {"--np is empty; give a number of ranks"},
       {"r", "results"}},
      {"validate --timeout ''",
       "validate s.toml --timeout '' --out v",
       2,
       {"--timeout is empty; give a number of seconds, or 0 for no limit"},
       {"v", "results"}},
      {"calibrate --timeout below 0, before anything is measured",
       "calibrate --timeout -1 --out p.toml",
       2,
       {"--timeout must be a number of seconds >= 0 (0: no limit), got -1"},
       {"p.toml"}},
      {"list --choices ''", "list --choices ''", 2, {"--choices is empty; give a parameter key"}, {}},
#ifdef CIOSIM_MPI_BINARY  // found where the launcher is looked up: needs the MPI build
      {"validate --hostfile naming a FIFO",
       "validate s.toml --hostfile fifo --out v",
       2,
       {"--hostfile fifo is a FIFO (named pipe); give a file of one host per line"},
       {"fifo", "v", "results"}},
#endif
  };
  return table;
}

}  // namespace

TEST_CASE("bad input at every door is one line with its exit code, and leaves every file as it was",
          "[cli][safety]") {
  for (const BadInput& c : cases()) {
    INFO(c.what << ": ciosim " << c.args);
    Workspace w;
    add_fixtures(w);
    std::vector<std::string> before;
    for (const std::string& p : c.untouched) before.push_back(state_of(w.root / p));
    const std::string everything = state_of(w.root);
    const Output r = w.run(c.args);
    INFO("stderr: " << r.err);
    CHECK(r.code == c.code);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    for (const std::string& word : c.words) CHECK(contains(r.err, word));
    for (std::size_t i = 0; i < c.untouched.size(); ++i) {
      INFO(c.untouched[i]);
      CHECK(state_of(w.root / c.untouched[i]) == before[i]);
    }
    CHECK(state_of(w.root) == everything);  // no staging file or directory left anywhere either
  }
}
