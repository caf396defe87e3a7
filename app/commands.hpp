// The `ciosim` subcommands. Each returns the process exit code or throws: config::ConfigError or
// std::invalid_argument for bad input (main prints one line, exits 2), anything else for a failure to
// run (exits 1).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "app/mpi_launch.hpp"
#include "config/params.hpp"
#include "config/work_estimate.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace ciosim::app {

/// Where platforms/NAME.toml are looked up, in order: $CIOSIM_DATA_DIR (if set), the source tree the
/// binary was built from (CIOSIM_SOURCE_DIR), PREFIX/share/ciosim when installed, the current directory.
std::vector<std::filesystem::path> data_dirs();
/// The directory of the running executable ("" when /proc/self/exe cannot be read).
std::filesystem::path executable_dir();
/// The bytes of the file at `p` ("" when it cannot be read: callers check what they parse).
std::string slurp(const std::filesystem::path& p);
/// The first of `candidates` that is a regular file; else a ConfigError: "`what` was not found (looked in
/// A, B; `advice`)".
std::filesystem::path first_file(const std::vector<std::filesystem::path>& candidates,
                                 const std::string& what, const std::string& advice);

/// `opt` refuses an empty value (where a name, a path or a choice is meant) while the command line is parsed:
/// "NAME is empty; give `valid`", exit 2, before anything is read or written. Returns `opt`.
CLI::Option* nonempty(CLI::Option* opt, const std::string& valid);

/// `text` word-wrapped to `width` columns, every line but the first indented by `indent` spaces.
std::string wrap(const std::string& text, std::size_t indent, std::size_t width = 100);

/// The parameter table as text (key, type, unit, default, choices, help), for `run --help` and `list`.
std::string parameter_help(const std::vector<config::Param>& params);

struct RunOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::string out;                        ///< "" = results/<scenario name> (--out "" is refused)
  std::string export_file;                ///< "" = none
  std::string effective_format = "toml";  ///< "toml" or "json"
  bool quiet = false;                     ///< no progress on stderr
  bool dry_run = false;                   ///< validate and list the points; simulate and write nothing
  std::int64_t ranks = 0;                 ///< -n: appended to sets as run.ranks=N
  std::vector<std::string> timeline;      ///< --timeline values: "chrome", "paje" (comma lists allowed)
  int jobs = 1;                           ///< points simulated at once (-j)
  bool resume = false;                    ///< skip the points already saved in --out
  bool keep_going = false;                ///< skip infeasible points (listed at the end) instead of refusing
  bool no_reuse = false;                  ///< simulate every point, even one whose MPI twin made no MPI call
  std::string shard;                      ///< "i/n": run points i, i+n, ... only; "" = all
  double max_work = config::kDefaultMaxWork;  ///< --max-work: the most events a point may be estimated at
  std::string max_memory;                     ///< --max-memory: "" = the machine's physical memory
};
/// `ciosim run`: validate everything, simulate each point in a child process, print the table, write
/// results.json, results.csv and the effective configuration into the output directory.
int run_command(const RunOptions& opt);

struct MergeOptions {
  std::string out;
  std::vector<std::string> shards;
  bool quiet = false;
};
/// `ciosim merge OUT SHARD_DIR...`: joins the results folders of every shard of a sweep (run --shard i/n)
/// into one, byte-identical to the whole sweep run at once.
int merge_command(const MergeOptions& opt);

struct AdviseOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::int64_t ranks = 0;  ///< -n: run.ranks=N
  std::string out;         ///< "" = results/<scenario name>-advice
  int jobs = 1;            ///< configurations simulated at once (-j)
  int budget = 48;         ///< at most this many configurations
  int top = 5;             ///< the best K printed
  bool quiet = false;
};
CLI::App* add_advise_command(CLI::App& app, AdviseOptions& opt);
/// `ciosim advise`: simulates the techniques and hints that can serve a scenario's one point and prints
/// the best, with the speed-up over the MPI library's default collective write and where the time goes.
int advise_command(const AdviseOptions& opt);

struct PlanOptions {
  std::string scenario;           ///< "" = the IEC plan of --nx/--np; else the plan of one of its points
  std::vector<std::string> sets;  ///< --set overrides of the scenario
  std::int64_t point = 0;         ///< 1-based point of the scenario; 0 = unset (fine for one point)
  std::int64_t call = 0;          ///< a replayed trace's collective call, 1-based; 0 = unset (the first)
  int rounds = 4;                 ///< two-phase: rounds shown per aggregator
  bool json = false;              ///< the IEC plan as JSON instead of the text view
  std::string svg;                ///< "" = none; else the IEC memory layouts are drawn into this file
  std::int64_t nx = 0;
  bool nx_given = false;
  std::int64_t np = 0;
  bool np_given = false;
  std::int64_t bx = 1;
  bool bx_given = false;
  std::string kind = "block-cyclic";
  bool kind_given = false;
  std::int64_t seed = 1;
  bool seed_given = false;
};
/// Registers `plan` and its options on `app` (app/plan_command.cpp).
CLI::App* add_plan_command(CLI::App& app, PlanOptions& opt);
/// `ciosim plan`: the IEC inspector's plan per phase as text (or JSON, or SVG), or the plan of one point
/// of a scenario (IEC or two-phase) as text.
int plan_command(const PlanOptions& opt);

struct CaptureOptions {
  std::string out;                   ///< the capture folder (default ciosim-capture)
  std::vector<std::string> command;  ///< the application's launch command
};
/// Registers `capture` on `app` (app/capture_command.cpp).
CLI::App* add_capture_command(CLI::App& app, CaptureOptions& opt);
/// `ciosim capture`: runs the command with libciosim-capture.so preloaded, checks and summarises the capture.
int capture_command(const CaptureOptions& opt);

struct PlotOptions {
  std::string results;  ///< a results folder or its results.json
  std::string kind, x, y, logx, logy, out;
  std::vector<std::string> group, panels, where, formats;
  bool timeline = false;  ///< draw point `point`'s timeline as a Gantt chart
  int point = 1;
};
/// Registers `plot` and its options on `app` (app/plot_command.cpp).
CLI::App* add_plot_command(CLI::App& app, PlotOptions& opt);
/// Where scripts/ciosim_plot.py is: in a data directory, or next to the binary's tree.
std::filesystem::path plot_script();
/// `ciosim plot`: draws a results folder with scripts/ciosim_plot.py (matplotlib) into SVG and PNG.
int plot_command(const PlotOptions& opt);

/// `ciosim list`: algorithms, networks, platforms, workloads and parameters.
/// `keys`: only the parameter keys, one per line; `choices` (a key): only that key's choices, one per line
/// (nothing for a key that is not a choice; an unknown key is refused).
int list_command(bool keys = false, const std::string& choices = "");

struct ValidateOptions {
  std::string scenario;
  std::vector<std::string> sets;
  int ranks = 0;  ///< -n: overrides run.ranks when ranks_given
  bool ranks_given = false;
  int repeat = 5;        ///< repetitions of every real run (times are medians)
  std::string out;       ///< "" = results/<scenario name>-validate
  std::string work_dir;  ///< where the real file is written; "" = a temporary directory next to out
  bool no_reference = false;
  /// "real": simulate every point with the real run's rank-to-host placement; "platform": with the
  /// platform's (rank r on node r / cores_per_node)
  std::string placement = "real";
  /// "warm": ciosim-mpi keeps freed memory and runs each point once untimed first (the steady state the
  /// model predicts); "cold": every run timed, first-touch page faults included
  std::string memory = "warm";
  /// the longest one MPI job (the real runs, each reference run) may take, in seconds; 0 = no limit
  double timeout_s = 0;
  /// one more real run per point with the step clock (ciosim-mpi --steps): each CPU charge's site, the work
  /// charged there and the real code's time, in the report
  bool cpu_steps = false;
  bool quiet = false;
  MpiOptions mpi;
};
/// `ciosim validate`: simulate every point and run it on real MPI (ciosim-mpi under mpirun); compare the
/// files, the call traces and counts (exit 1 if they differ) and report predicted vs measured times.
int validate_command(const ValidateOptions& opt);

struct CalibrateOptions {
  int ranks = 2;         ///< -n: ranks of the measurement job (ping-pong uses ranks 0 and 1)
  std::string out;       ///< the platform file to write; "" = platforms/local.toml
  std::string name;      ///< the platform's name; "" = the file's stem
  std::string work_dir;  ///< where the test files are written; "" = a temporary directory next to out
  bool quick = false;    ///< fewer repetitions and smaller sizes
  bool quiet = false;
  std::string measurements;  ///< if not empty, the raw measurements (JSON) are saved here
  int runs = 1;              ///< independent measurement jobs, merged (config::merge_measurements)
  double max_spread = 2;     ///< refuse when a key term's max / min over the runs exceeds this
  double timeout_s = 0;      ///< end an MPI measurement job still running after this long (0: no limit)
  MpiOptions mpi;
};
/// `ciosim calibrate`: measure this machine with real MPI and write a platform file (with its own
/// network profiles, [network.profiles.NAME]) that run and validate accept.
int calibrate_command(const CalibrateOptions& opt);

}  // namespace ciosim::app
