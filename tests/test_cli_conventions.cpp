// Conventions of the command line: --version, one meaning per flag across commands, `list --keys`, a SimGrid
// XML platform named as such, the bash completion, the man page and `cmake --install` (named platforms
// resolve from PREFIX/share/ciosim).
#include <algorithm>
#include <catch2/catch.hpp>

#include "cli_workspace.hpp"

using namespace cli_test;

namespace {

/// Runs a shell command; its exit code, stdout and stderr.
Output shell(const Workspace& w, const std::string& cmd) {
  const fs::path o = w.root / ".sh-out", e = w.root / ".sh-err";
  const int status = std::system(("(" + cmd + ") >'" + o.string() + "' 2>'" + e.string() + "'").c_str());
  Output r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  fs::remove(o);
  fs::remove(e);
  return r;
}

const fs::path kBuildDir = fs::path(CIOSIM_BINARY).parent_path();

}  // namespace

TEST_CASE("ciosim --version names the program and its version") {
  Workspace w;
  const Output r = w.run("--version");
  CHECK(r.code == 0);
  CHECK(r.out.rfind("ciosim ", 0) == 0);
}

TEST_CASE("run: -n is a rank count, as in validate and calibrate") {
  Workspace w;
  const Output r = w.run("run s.toml -n 2 --dry-run");
  CHECK(r.code == 0);
  CHECK(contains(r.out, "ranks=2"));
  CHECK(!contains(r.out, "ranks=4"));
  // The dry run is spelled out; -n without a number is an error, not a dry run.
  const Output bad = w.run("run s.toml -n");
  CHECK(bad.code == 2);
  CHECK(w.extra_entries().empty());
}

TEST_CASE("ciosim list --keys prints every parameter key, the same as run --help") {
  Workspace w;
  const Output keys = w.run("list --keys");
  REQUIRE(keys.code == 0);
  CHECK(contains(keys.out, "run.algorithm\n"));
  CHECK(contains(keys.out, "pvfs.disk_write_Bps\n"));
  CHECK(contains(keys.out, "network.mpi_link_bandwidth_Bps\n"));
  const Output help = w.run("run --help");
  std::istringstream lines(keys.out);
  std::string key;
  int n = 0;
  while (std::getline(lines, key)) {
    CHECK(contains(help.out, "  " + key + " "));
    ++n;
  }
  CHECK(n > 40);
  // `list` says where platforms are looked up.
  CHECK(contains(w.run("list").out, "searched in " + (w.root / "data" / "platforms").string()));
}

TEST_CASE("a SimGrid XML platform given by mistake is named as such") {
  Workspace w;
  w.write("data/platforms/sg.toml",
          "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
          "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\"/></platform>\n");
  w.write("cluster.xml", "<platform version=\"4.1\"></platform>\n");
  for (const std::string set : {"run.platform=sg", "run.platform=cluster.xml"}) {
    const Output r = w.run("run s.toml --set " + set);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "SimGrid platform description"));
    CHECK(contains(r.err, "TOML"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  const Output scen = w.run("run cluster.xml");
  CHECK(scen.code == 2);
  CHECK(contains(scen.err, "this is XML"));
}

TEST_CASE("the bash completion completes subcommands, options and --set keys") {
  Workspace w;
  const std::string script = std::string(CIOSIM_SOURCE_DIR) + "/scripts/ciosim-completion.bash";
  REQUIRE(shell(w, "bash -n '" + script + "'").code == 0);
  const auto complete = [&](const std::string& words) {
    // COMP_WORDS[0] is the binary itself, so the completion asks this build for options and keys.
    return shell(w, "cd '" + w.root.string() + "' && CIOSIM_DATA_DIR='" + (w.root / "data").string() +
                        "' bash -c 'compopt() { :; }; source \"" + script + "\"; COMP_WORDS=(" +
                        CIOSIM_BINARY + " " + words +
                        "); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _ciosim; printf \"%s\\n\" " +
                        "\"${COMPREPLY[@]}\"'")
        .out;
  };
  CHECK(contains(complete("va"), "validate\n"));
  CHECK(contains(complete("run --dr"), "--dry-run\n"));
  CHECK(contains(complete("run s.toml --set pvfs.disk_w"), "pvfs.disk_write_Bps=\n"));
  CHECK(contains(complete("s"), "s.toml\n") == false);  // a subcommand is completed first, not a file
  // After KEY= (bash splits the word at '='): the key's choices, from the build.
  const std::string algorithms = complete("run s.toml --set run.algorithm = two");
  CHECK(contains(algorithms, "two-phase\n"));
  CHECK(!contains(algorithms, "iec\n"));
  CHECK(contains(complete("run s.toml --set workload.kind ="), "block-cyclic\n"));
  CHECK(contains(w.run("list --choices run.cpu_charge").out, "library\n"));
  CHECK(w.run("list --choices workload.colour").code == 2);
}

TEST_CASE("the man page carries every subcommand's help", "[install]") {
  const fs::path man = kBuildDir / "ciosim.1";
  if (!fs::exists(man)) {
    Workspace w;
    REQUIRE(shell(w, "command -v help2man").code != 0);  // only a machine without help2man has no page
    return;
  }
  const std::string text = slurp(man);
  CHECK(contains(text, ".TH CIOSIM"));
  // help2man writes each included section's name in capitals.
  for (const char* sub : {"RUN", "PLAN", "LIST", "VALIDATE", "CALIBRATE", "CAPTURE", "ADVISE"})
    CHECK(contains(text, std::string(".SH \"COMMAND: ") + sub + "\""));
  CHECK(contains(text, "--dry-run"));
  CHECK(!contains(text, "Usage: /"));  // no build folder's path in the usage lines
  CHECK(contains(text, "Usage: ciosim run"));
}

TEST_CASE("cmake --install: the installed ciosim finds its platforms under PREFIX/share/ciosim",
          "[install]") {
  Workspace w;
  const fs::path prefix = w.root / "prefix";
  const Output inst =
      shell(w, "cmake --install '" + kBuildDir.string() + "' --prefix '" + prefix.string() + "'");
  REQUIRE(inst.code == 0);
  CHECK(fs::is_regular_file(prefix / "bin/ciosim"));
  CHECK(fs::is_regular_file(prefix / "share/ciosim/platforms/quickstart.toml"));
  CHECK(fs::is_regular_file(prefix / "share/ciosim/scenarios/quickstart.toml"));
  CHECK(fs::is_regular_file(prefix / "share/bash-completion/completions/ciosim"));
  CHECK(fs::is_regular_file(prefix / "share/ciosim/scripts/ciosim_plot.py"));
  CHECK(fs::is_regular_file(prefix / "share/doc/ciosim/README.md"));
  CHECK(fs::is_regular_file(prefix / "share/doc/ciosim/validation.md"));
  CHECK(fs::is_regular_file(prefix / "share/doc/ciosim/replay.md"));
  const Output list = shell(w, "cd / && '" + (prefix / "bin/ciosim").string() + "' list");
  CHECK(list.code == 0);
  CHECK(contains(list.out, (prefix / "share/ciosim/platforms").string()));
  const Output dry = shell(w, "cd / && '" + (prefix / "bin/ciosim").string() + "' run --dry-run '" +
                                  (prefix / "share/ciosim/scenarios/quickstart.toml").string() + "'");
  CHECK(dry.code == 0);
  CHECK(contains(dry.out, "all valid"));
}

TEST_CASE("a shipped scenario is found by its bare name, an unknown one refused with the shipped names") {
  Workspace w;
  const Output ok = w.run("run quickstart --dry-run -q");
  INFO(ok.err);
  CHECK(ok.code == 0);
  CHECK(contains(ok.out, "scenario quickstart: 4 points"));
  CHECK(contains(ok.out, "[run.algorithm=iec, workload.bx=1]  memory >= "));  // what a cluster job needs
  CHECK(w.run("run quickstart.toml --dry-run -q").code == 0);
  const Output bad = w.run("run quickstrat --dry-run");
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "nor is quickstrat a shipped scenario"));
  CHECK(contains(bad.err, "quickstart"));
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  // A file of that name here is the user's, and wins.
  CHECK(w.run("run s.toml --dry-run -q").code == 0);
}
