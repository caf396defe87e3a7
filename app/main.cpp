// ciosim: discrete-event simulation of collective I/O. Subcommands run, merge, plan, plot, list, validate,
// calibrate, capture and advise (commands.hpp). Exit codes: 0 success; 2 bad input (one line on stderr naming
// the problem and the valid choices); 1 a simulation or I/O failure.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "app/commands.hpp"
#include "app/runner.hpp"
#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "version.hpp"

namespace {

using namespace ciosim;

int fail(int code, const std::string& message) {
  std::cerr << "ciosim: error: " << config::one_line(message) << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ciosim " + std::string(kVersion) +
               ": discrete-event simulation of collective I/O techniques on modelled clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ciosim ") + kVersion);

  app::RunOptions run_opt;
  CLI::App* run = app.add_subcommand("run", "Simulate every point of a scenario and write its results");
  const std::string scenario_file = "a scenario file (TOML) or a shipped scenario's name";
  app::nonempty(run->add_option("SCENARIO", run_opt.scenario, "Scenario file (TOML)")->required(),
                scenario_file);
  run->add_option("--set", run_opt.sets,
                  "Override a parameter: KEY=VALUE, VALUE in TOML syntax or a bare word; an array sweeps "
                  "(e.g. --set workload.bx=[1,2,4] --set network.mpi=fast-ethernet). Repeatable.")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  app::nonempty(run->add_option("--out", run_opt.out,
                                "Output directory (default: results/<scenario name>); in an existing results "
                                "directory only the files ciosim writes are replaced")
                    ->type_name("DIR"),
                "a directory");
  app::nonempty(run->add_option("--export-file", run_opt.export_file,
                                "Write the simulated file here (single-point scenarios only)")
                    ->type_name("PATH"),
                "a file path");
  app::nonempty(run->add_option("--effective-format", run_opt.effective_format,
                                "Format of the saved effective configuration: toml or json")
                    ->type_name("FORMAT"),
                "toml or json");
  app::nonempty(
      run->add_option("--timeline,--trace", run_opt.timeline,
                      "Also write each point's timeline (every rank's phases and calls, every message, "
                      "server request and disk operation) as FORMAT: chrome (timeline-N.json, for "
                      "Perfetto or chrome://tracing) or paje (timeline-N.paje, for pj_dump or ViTE); "
                      "repeat or give chrome,paje for both")
          ->type_name("FORMAT")
          ->allow_extra_args(false),
      "chrome, paje or chrome,paje");
  run->add_flag("-q,--quiet", run_opt.quiet, "No progress messages on stderr");
  run->add_flag("--dry-run", run_opt.dry_run, "Validate the scenario and list its points; simulate nothing");
  // -n is a rank count in every command (validate, calibrate): here it is --set run.ranks=N.
  CLI::Option* run_np = app::nonempty(
      run->add_option("-n,--np", run_opt.ranks, "MPI ranks (overrides run.ranks)"), "a number of ranks");
  app::nonempty(run->add_option("-j,--jobs", run_opt.jobs,
                                "Simulate N points at once, each in its own process (default 1); results are "
                                "the same")
                    ->type_name("N"),
                "a number of points, 1 to 256");
  run->add_flag(
      "--resume", run_opt.resume,
      "Keep the points already finished in --out (same scenario and configuration) and run the rest");
  run->add_flag(
      "--keep-going", run_opt.keep_going,
      "Skip the points that cannot run (listed at the end and in results.json) instead of refusing");
  run->add_flag("--no-reuse", run_opt.no_reuse,
                "Simulate every point; by default a point that differs from an earlier one only in "
                "network.mpi takes that one's results when it made no MPI call (the same simulation)");
  run->add_option(
         "--max-work", run_opt.max_work,
         "Refuse before simulating any point whose estimated work (the messages, file requests and buffer "
         "blocks it will simulate, and the pieces its code walks; --dry-run prints each point's) exceeds "
         "EVENTS; 0: no bound (default 1e9, hours on a 2-core machine)")
      ->type_name("EVENTS")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            char* end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            if (end != v.c_str() && *end == '\0' && std::isfinite(x) && x >= 0) return "";
            return "must be a number of events >= 0 (e.g. 1e9; 0: no bound), got \"" + v + "\"";
          },
          ""));
  app::nonempty(
      run->add_option("--max-memory", run_opt.max_memory,
                      "Refuse before simulating any point whose estimated memory, times -j, exceeds "
                      "SIZE (e.g. 8GiB; default: this machine's memory)")
          ->type_name("SIZE"),
      "a size such as 8GiB");
  app::nonempty(
      run->add_option(
             "--shard", run_opt.shard,
             "Run only shard I of N: points I, I+N, I+2N, ... (I from 1 to N); join with ciosim merge")
          ->type_name("I/N"),
      "I/N, e.g. 1/4");
  std::vector<std::filesystem::path> dirs;
  try {
    dirs = app::data_dirs();
    run->footer("Parameters (key, default, help):\n" +
                app::parameter_help(config::parameters(config::platform_names(dirs))));
  } catch (const std::exception& e) {
    return fail(2, e.what());  // a registry that cannot be built: nothing can run
  }

  app::PlanOptions plan_opt;
  CLI::App* plan = app::add_plan_command(app, plan_opt);

  CLI::App* list =
      app.add_subcommand("list", "List the algorithms, networks, platforms, workloads and parameters");
  bool list_keys = false;
  list->add_flag("--keys", list_keys, "Only the parameter keys, one per line (for scripts and completion)");
  std::string list_choices;
  app::nonempty(
      list->add_option("--choices", list_choices,
                       "Only the values KEY takes, one per line, when it is a choice (for completion)")
          ->type_name("KEY"),
      "a parameter key, as ciosim list --keys prints");
  app::PlotOptions plot_opt;
  CLI::App* plot = app::add_plot_command(app, plot_opt);
  app::CaptureOptions capture_opt;
  CLI::App* capture = app::add_capture_command(app, capture_opt);
  app::AdviseOptions advise_opt;
  CLI::App* advise = app::add_advise_command(app, advise_opt);

  app::MergeOptions merge_opt;
  CLI::App* merge =
      app.add_subcommand("merge", "Join the results folders of a sweep's shards (run --shard I/N) into one");
  app::nonempty(merge->add_option("OUT", merge_opt.out, "Output directory of the whole sweep")->required(),
                "a directory");
  app::nonempty(
      merge->add_option("SHARD_DIR", merge_opt.shards, "The results folder of every shard")->required(),
      "a shard's results folder");
  merge->add_flag("-q,--quiet", merge_opt.quiet, "No message on stderr");

  const auto add_mpi_options = [](CLI::App* cmd, app::MpiOptions& m) {
    app::nonempty(
        cmd->add_option("--mpirun", m.mpirun,
                        "MPI launcher, a name on PATH or a path (default: the one ciosim-mpi was built for)")
            ->type_name("PATH"),
        "a launcher's name on PATH or its path");
    app::nonempty(cmd->add_option("--hostfile", m.hostfile,
                                  "Run the MPI jobs on these hosts (default: this machine only)")
                      ->type_name("FILE"),
                  "a host file");
    cmd->add_option("--mpirun-arg", m.extra_args,
                    "An extra launcher argument (repeatable), e.g. --mpirun-arg=--mca")
        ->type_name("ARG")
        ->allow_extra_args(false);
  };
  app::ValidateOptions val_opt;
  CLI::App* validate = app.add_subcommand(
      "validate", "Run a scenario in simulation and on real MPI; compare files, call traces and times");
  app::nonempty(validate->add_option("SCENARIO", val_opt.scenario, "Scenario file (TOML)")->required(),
                scenario_file);
  CLI::Option* val_np = app::nonempty(
      validate->add_option("-n,--np", val_opt.ranks, "MPI ranks (overrides run.ranks)"), "a number of ranks");
  app::nonempty(validate->add_option("--repeat", val_opt.repeat,
                                     "Repetitions of every real run; times are medians (default 5)"),
                "a number of repetitions, >= 1");
  app::nonempty(
      validate
          ->add_option("--out", val_opt.out, "Output directory (default: results/<scenario name>-validate)")
          ->type_name("DIR"),
      "a directory");
  validate->add_option("--set", val_opt.sets, "Override a parameter, as for run (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  app::nonempty(
      validate
          ->add_option("--work-dir", val_opt.work_dir,
                       "Directory of the file the real runs write (default: a temporary one next to "
                       "--out)")
          ->type_name("DIR"),
      "a directory");
  app::nonempty(validate
                    ->add_option("--placement", val_opt.placement,
                                 "Ranks' hosts in the simulation: 'real' = as the real run placed them "
                                 "(default), 'platform' = rank r on node r / cores_per_node")
                    ->type_name("real|platform"),
                "real or platform");
  app::nonempty(
      validate
          ->add_option("--memory", val_opt.memory,
                       "Real runs: 'warm' = memory kept and one untimed run first, the steady state "
                       "the model predicts (default); 'cold' = every run timed, first-touch page "
                       "faults included")
          ->type_name("warm|cold"),
      "warm or cold");
  app::nonempty(validate
                    ->add_option("--timeout", val_opt.timeout_s,
                                 "End an MPI job (the real runs of every point, or one reference run) still "
                                 "running after this many seconds, with its ranks, and fail writing nothing "
                                 "(default 0: no limit)")
                    ->type_name("SECONDS"),
                "a number of seconds, or 0 for no limit");
  validate->add_flag("--cpu-steps", val_opt.cpu_steps,
                     "Run each point once more on MPI, untimed, timing the code before each CPU charge: "
                     "a table per point of the work charged at each site vs the real code's time");
  validate->add_flag("--no-reference", val_opt.no_reference,
                     "Skip the MPI library's own collective write (MPI_File_write_all) of each workload");
  validate->add_flag("-q,--quiet", val_opt.quiet, "No progress messages on stderr");
  add_mpi_options(validate, val_opt.mpi);

  app::CalibrateOptions cal_opt;
  CLI::App* calibrate = app.add_subcommand(
      "calibrate",
      "Measure this machine with real MPI and write a platform file that run and validate accept");
  app::nonempty(
      calibrate->add_option("-n,--np", cal_opt.ranks, "MPI ranks of the measurements (>= 2; default 2)"),
      "a number of ranks, >= 2");
  app::nonempty(
      calibrate->add_option("--out", cal_opt.out, "Platform file to write (default: platforms/local.toml)")
          ->type_name("FILE"),
      "a platform file path (TOML)");
  app::nonempty(calibrate->add_option("--name", cal_opt.name, "Platform name (default: the file's stem)"),
                "a platform name");
  app::nonempty(calibrate
                    ->add_option("--work-dir", cal_opt.work_dir,
                                 "Directory of the test files (default: a temporary one next to --out)")
                    ->type_name("DIR"),
                "a directory");
  app::nonempty(
      calibrate
          ->add_option("--measurements", cal_opt.measurements, "Also save the raw measurements (JSON) here")
          ->type_name("FILE"),
      "a file path");
  app::nonempty(
      calibrate->add_option("--runs", cal_opt.runs,
                            "Independent measurement jobs, merged (median of the runs; default 1): runs "
                            "differ far more than repetitions within one"),
      "a number of runs, 1 to 100");
  app::nonempty(
      calibrate->add_option("--max-spread", cal_opt.max_spread,
                            "With --runs >= 2, refuse when a key term's largest / smallest run exceeds "
                            "this (default 2)"),
      "a ratio >= 1");
  app::nonempty(calibrate
                    ->add_option("--timeout", cal_opt.timeout_s,
                                 "End an MPI measurement job (each run's, or the library's write_all) "
                                 "still running after this many seconds, with its ranks, and fail writing "
                                 "nothing (default 0: no limit)")
                    ->type_name("SECONDS"),
                "a number of seconds, or 0 for no limit");
  calibrate->add_flag("--quick", cal_opt.quick,
                      "Fewer repetitions and smaller sizes (seconds, less accurate)");
  calibrate->add_flag("-q,--quiet", cal_opt.quiet, "No progress messages on stderr");
  add_mpi_options(calibrate, cal_opt.mpi);

  if (argc > 1 && argv[1][0] != '-') {  // CLI11 would only say "A subcommand is required"
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end())
      return fail(
          2, "unknown subcommand '" + std::string(argv[1]) + "'; valid subcommands: " + config::join(names));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return fail(2, std::string(e.what()) + " (see ciosim --help)");
  }
  val_opt.ranks_given = val_np->count() > 0;
  if (run_np->count() > 0) run_opt.sets.push_back("run.ranks=" + std::to_string(run_opt.ranks));

  try {
    if (*run) return app::run_command(run_opt);
    if (*merge) return app::merge_command(merge_opt);
    if (*plan) return app::plan_command(plan_opt);
    if (*plot) return app::plot_command(plot_opt);
    if (*capture) return app::capture_command(capture_opt);
    if (*advise) return app::advise_command(advise_opt);
    if (*list) return app::list_command(list_keys, list_choices);
    if (*validate) return app::validate_command(val_opt);
    if (*calibrate) return app::calibrate_command(cal_opt);
  } catch (const config::ConfigError& e) {
    return fail(2, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(2, e.what());
  } catch (const app::OutOfMemory& e) {
    return fail(2, e.what());
  } catch (const std::bad_alloc&) {  // in this process (a dry run, a plan): the same verdict
    return fail(2,
                "out of memory: this machine cannot hold what was asked; make the workload smaller "
                "(workload.nx, ranks, nodes)");
  } catch (const app::PointFailed& e) {
    return fail(1, e.what());
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
  return fail(2, "no subcommand (see ciosim --help)");
}
