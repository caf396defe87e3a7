// `ciosim plot RESULTS [options]`: runs scripts/ciosim_plot.py (matplotlib) on a results folder. The
// script holds all knowledge of the results schema and of the pictures; this file finds python3 and the
// script, checks that RESULTS is a results folder, and passes the options on.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "app/commands.hpp"
#include "config/params.hpp"

extern char** environ;

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

/// The python interpreter: $CIOSIM_PYTHON, else Debian's /usr/bin/python3 (where python3-matplotlib
/// installs), else python3 on PATH. Empty when none exists.
std::string find_python() {
  if (const char* env = std::getenv("CIOSIM_PYTHON"); env && *env) return env;
  std::error_code ec;
  if (fs::exists("/usr/bin/python3", ec)) return "/usr/bin/python3";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    const fs::path p = fs::path(d.empty() ? "." : d) / "python3";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

}  // namespace

CLI::App* add_plot_command(CLI::App& app, PlotOptions& o) {
  CLI::App* plot = app.add_subcommand(
      "plot", "Draw a results folder (matplotlib): a sweep's curves and each run's phase bars, SVG and PNG");
  nonempty(plot->add_option("RESULTS", o.results, "A results folder of ciosim run, or its results.json")
               ->required(),
           "a results folder or its results.json");
  nonempty(
      plot->add_option("--kind", o.kind,
                       "auto (default: the sweep's curves when a numeric key varies, phase bars up to 40 "
                       "runs), sweep, phases or all"),
      "auto, sweep, phases or all");
  nonempty(
      plot->add_option("--x", o.x, "Key on the x axis (default: the numeric swept key with most values)"),
      "a parameter key");
  nonempty(plot->add_option("--y", o.y,
                            "Value on the y axis (default: sim_time_s; e.g. phase:write, or op:write for an "
                            "operation sequence's total of its writes)"),
           "a value such as sim_time_s or phase:write");
  nonempty(plot->add_option("--group", o.group, "Key whose values are separate lines (repeatable)")
               ->allow_extra_args(false),
           "a parameter key");
  nonempty(plot->add_option("--panels", o.panels, "Key whose values are separate panels (repeatable)")
               ->allow_extra_args(false),
           "a parameter key");
  nonempty(plot->add_option("--where", o.where, "Only the runs with KEY=VALUE (repeatable)")
               ->type_name("KEY=VALUE")
               ->allow_extra_args(false),
           "KEY=VALUE");
  nonempty(plot->add_option("--logx", o.logx, "auto (default: when the key doubles), on or off"),
           "auto, on or off");
  nonempty(plot->add_option("--logy", o.logy, "auto (default: when the values span 30x), on or off"),
           "auto, on or off");
  nonempty(plot->add_option("--out", o.out, "Folder for the pictures (default: the results folder)")
               ->type_name("DIR"),
           "a directory");
  nonempty(plot->add_option("--format", o.formats, "svg or png (repeatable; default both)")
               ->allow_extra_args(false),
           "svg or png");
  plot->add_flag("--timeline", o.timeline,
                 "Draw a point's timeline (run with --timeline chrome) as a Gantt chart: gantt-N.svg/.png");
  nonempty(plot->add_option("--point", o.point, "The point --timeline draws (default 1)"),
           "a point's number, from 1")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  return plot;
}

fs::path plot_script() {
  std::vector<fs::path> candidates;
  for (const fs::path& d : data_dirs()) candidates.push_back(d / "scripts/ciosim_plot.py");
  if (const fs::path exe = executable_dir(); !exe.empty()) {
    candidates.push_back(exe.parent_path() / "scripts/ciosim_plot.py");  // build/ciosim
    candidates.push_back(exe.parent_path() / "share/ciosim/scripts/ciosim_plot.py");
  }
  return first_file(candidates, "the plot script ciosim_plot.py",
                    "set CIOSIM_DATA_DIR to the ciosim source tree");
}

int plot_command(const PlotOptions& opt) {
  std::error_code ec;
  const fs::path results(opt.results);
  const bool folder = fs::is_directory(results, ec);
  if (!(folder ? fs::is_regular_file(results / "results.json", ec) : fs::is_regular_file(results, ec)))
    throw config::ConfigError(opt.results +
                              " is not a results folder (no results.json; `ciosim run` writes "
                              "one)");
  const fs::path script = plot_script();
  const std::string python = find_python();
  if (python.empty())
    throw config::ConfigError(
        "python3 was not found (Debian: apt-get install python3 python3-matplotlib; "
        "scripts/install-deps.sh does)");

  std::vector<std::string> args{python, script.string(), opt.results};
  const auto add = [&](const char* flag, const std::string& v) {
    if (!v.empty()) {
      args.emplace_back(flag);
      args.push_back(v);
    }
  };
  add("--kind", opt.kind);
  add("--x", opt.x);
  add("--y", opt.y);
  for (const auto& g : opt.group) add("--group", g);
  for (const auto& p : opt.panels) add("--panels", p);
  for (const auto& w : opt.where) add("--where", w);
  add("--logx", opt.logx);
  add("--logy", opt.logy);
  add("--out", opt.out);
  for (const auto& f : opt.formats) add("--format", f);
  if (opt.timeline) {
    args.emplace_back("--timeline");
    add("--point", std::to_string(opt.point));
  }

  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int rc = ::posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ); rc != 0)
    throw config::ConfigError("cannot run " + python + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    return code == 0 || code == 2 ? code : 1;  // the script prints its own one-line error
  }
  throw std::runtime_error(python + " " + script.string() + " was killed by signal " +
                           std::to_string(WTERMSIG(status)));
}

}  // namespace ciosim::app
