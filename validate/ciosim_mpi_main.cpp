// ciosim-mpi: runs a scenario's techniques on real MPI and MPI-IO (run under `mpirun -n P`), or measures
// the machine for `ciosim calibrate`. `ciosim validate` and `ciosim calibrate` start it; it can also be
// run by hand:
//
//   mpirun -n 4 ciosim-mpi run SCENARIO.toml [--set KEY=VALUE]... [--repeat K] [--out DIR]
//          [--work-dir DIR] [--trace-dir DIR] [--export-dir DIR] [--reference LABEL]
//          [--memory warm|cold] [--steps] [-q]
//   mpirun -n 2 ciosim-mpi calibrate --out FILE.json [--work-dir DIR] [--quick] [--library]
//
// `run` writes DIR/results.json and results.csv (the simulator's schema; times are the medians over the
// repetitions, network_mpi/network_io are "real") and DIR/timings.json (every repetition's times and
// every rank's host); with
// --trace-dir, point-N.trace (1-based, in sweep order; algorithms/trace.hpp) from the first run;
// with --export-dir, point-N.dat, the file the first run wrote. --reference LABEL runs the MPI
// library's own collective write of each point's workload instead of the technique (mpi_run.hpp).
// --steps runs each point once more after the timed runs, untimed, with the step clock on
// (Process::record_steps: each CPU charge's site with the real time the code took before it), and
// writes every rank's sites added up into the point's "cpu_steps" in timings.json.
//
// --memory warm (the default) measures the steady state the simulator models: freed memory stays in the
// process (glibc mallopt: no mmap'ed blocks, no heap trimming) and every point first runs once untimed
// (traced, exported and checked like the others). --memory cold times every run from the first, with
// memory returned to the system in between, so each run pays the kernel's first-touch page faults, which
// the model does not charge (measured on a 2-core VM: 2.7 us per 4 KiB page; docs/validation.md).
// Exit codes as ciosim's: 0 success, 2 bad input (one line on stderr), 1 failure.
#include <malloc.h>
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <thread>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "config/params.hpp"
#include "config/placement.hpp"
#include "config/point_checks.hpp"
#include "config/results.hpp"
#include "config/scenario.hpp"
#include "validate/mpi_calibrate.hpp"
#include "validate/mpi_process.hpp"
#include "validate/mpi_run.hpp"
#include "version.hpp"

namespace {

namespace fs = std::filesystem;
using namespace ciosim;

struct RunArgs {
  std::string scenario;
  std::vector<std::string> sets;
  int repeat = 1;
  std::string out;
  std::string work_dir = ".";
  std::string trace_dir;
  std::string export_dir;
  std::string reference;
  std::string memory = "warm";  ///< "warm" or "cold" (see the top of this file)
  bool steps = false;           ///< one more run per point with the step clock (see the top of this file)
  bool quiet = false;
};

std::vector<fs::path> data_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("CIOSIM_DATA_DIR"); env && *env) dirs.emplace_back(env);
#ifdef CIOSIM_SOURCE_DIR
  dirs.emplace_back(CIOSIM_SOURCE_DIR);
#endif
  dirs.emplace_back(".");
  return dirs;
}

/// Writes `content` to dir/name through a temporary file renamed into place.
void write_file(const fs::path& dir, const std::string& name, const std::string& content) {
  const fs::path tmp = dir / ("." + name + ".tmp");
  std::ofstream out(tmp, std::ios::binary);
  out << content;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
  fs::rename(tmp, dir / name);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// One result per point: the first repetition's, with every time replaced by its median over repetitions
/// and file_verified true only if every repetition's file was right.
RunResult median_of(const std::vector<RunResult>& reps) {
  RunResult r = reps.front();
  std::vector<double> total;
  for (const auto& x : reps) {
    total.push_back(x.sim_time_s);
    r.file_verified = r.file_verified && x.file_verified;
  }
  r.sim_time_s = median(total);
  for (auto& ph : r.phases) {
    std::vector<double> t;
    for (const auto& x : reps)
      for (const auto& p : x.phases)
        if (p.name == ph.name) t.push_back(p.time_s);
    ph.time_s = median(t);
    // Per-rank times and windows are the first repetition's: left out rather than mixed with medians.
    ph.rank_time_s.clear();
    ph.start_s = ph.end_s = 0;
  }
  return r;
}

nlohmann::ordered_json timings_json(const std::string& scenario, int repeat, const std::string& memory,
                                    const std::vector<std::string>& hosts,
                                    const std::vector<std::vector<RunResult>>& points,
                                    const std::vector<std::vector<StepTime>>& steps) {
  nlohmann::ordered_json j;
  j["scenario"] = scenario;
  j["repeat"] = repeat;
  j["memory"] = memory;
  j["untimed_warmup_runs"] = memory == "warm" ? 1 : 0;
  j["hosts"] = hosts;
  j["points"] = nlohmann::ordered_json::array();
  for (const auto& reps : points) {
    nlohmann::ordered_json p;
    p["algorithm"] = reps.front().algorithm;
    p["params"] = reps.front().params;
    p["runs"] = nlohmann::ordered_json::array();
    for (const auto& r : reps) {
      nlohmann::ordered_json run;
      run["time_s"] = r.sim_time_s;
      run["phases"] = nlohmann::ordered_json::array();
      for (const auto& ph : r.phases) run["phases"].push_back({ph.name, ph.time_s});
      run["file_verified"] = r.file_verified;
      p["runs"].push_back(std::move(run));
    }
    const std::size_t i = j["points"].size();
    if (i < steps.size() && !steps[i].empty()) {
      p["cpu_steps"] = nlohmann::ordered_json::array();
      for (const StepTime& t : steps[i]) p["cpu_steps"].push_back(mpi::step_json(t));
    }
    j["points"].push_back(std::move(p));
  }
  return j;
}

int run_command(const RunArgs& a, int rank) {
  if (a.repeat < 1) throw config::ConfigError("--repeat must be >= 1, got " + std::to_string(a.repeat));
  config::LoadOptions load;
  load.sets = a.sets;
  load.data_dirs = data_dirs();
  const config::Scenario s = config::load_scenario(a.scenario, load);
  if (a.reference.empty())
    for (const RunSpec& r : s.runs)
      if (const std::string why = config::check_runs_on_mpi(r); !why.empty()) throw config::ConfigError(why);
  for (const fs::path& d :
       {fs::path(a.work_dir), fs::path(a.trace_dir), fs::path(a.export_dir), fs::path(a.out)}) {
    std::error_code ec;
    // The last level only: ciosim validate makes the rest, and a rank started after validate was stopped
    // must not recreate its removed workspace.
    if (!d.empty() && rank == 0) fs::create_directory(d, ec);
    if (!d.empty() && rank == 0 && !fs::is_directory(d))
      throw config::ConfigError("cannot create directory " + d.string());
  }
  config::check_memory_mode("--memory", a.memory);
  if (a.memory == "warm") mpi::keep_freed_memory();
  const int first = a.memory == "warm" ? -1 : 0;  // run -1 is the untimed warm-up
  const std::vector<std::string> hosts = mpi::host_names(MPI_COMM_WORLD);
  std::vector<std::vector<RunResult>> points;
  std::vector<std::vector<StepTime>> steps;  // per point, with --steps
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const RunSpec& spec = s.runs[i];
    const std::string id = "point-" + std::to_string(i + 1);
    if (rank == 0 && !a.quiet) {
      const std::string label = config::point_label(spec);
      std::cerr << "ciosim-mpi: [" << i + 1 << "/" << s.runs.size() << "] "
                << (a.reference.empty() ? spec.algorithm : a.reference) << (label.empty() ? "" : "  " + label)
                << std::endl;
    }
    std::vector<RunResult> reps;
    bool warmup_verified = true;
    const bool stepped = a.steps && a.reference.empty();
    for (int k = first; k < a.repeat + (stepped ? 1 : 0); ++k) {
      mpi::PointOptions opt;
      opt.work_dir = a.work_dir;
      opt.steps = k == a.repeat;  // the extra, untimed run
      opt.trace = k == first && !a.trace_dir.empty();
      if (k == first && !a.export_dir.empty()) opt.export_file = fs::path(a.export_dir) / (id + ".dat");
      mpi::PointRun pr = a.reference.empty() ? mpi::run_technique(MPI_COMM_WORLD, spec, opt)
                                             : mpi::run_reference(MPI_COMM_WORLD, spec, opt, a.reference);
      if (rank != 0) continue;
      if (opt.trace) write_file(a.trace_dir, id + ".trace", trace_text(pr.trace));
      if (opt.steps)
        steps.push_back(std::move(pr.steps));
      else if (k < 0)
        warmup_verified = pr.result.file_verified;
      else
        reps.push_back(std::move(pr.result));
    }
    if (rank == 0 && !warmup_verified) reps.front().file_verified = false;
    if (rank == 0) points.push_back(std::move(reps));
  }
  if (rank != 0) return 0;
  std::vector<RunResult> results;
  for (const auto& reps : points) results.push_back(median_of(reps));
  if (!a.out.empty()) {
    write_file(a.out, "results.json", config::results_json(s.name, results, config::Clock::Measured));
    write_file(a.out, "results.csv", config::results_csv(results, config::Clock::Measured));
    write_file(a.out, "timings.json",
               timings_json(s.name, a.repeat, a.memory, hosts, points, steps).dump(2) + "\n");
  }
  if (!a.quiet) std::cout << config::results_table(results) << std::flush;
  bool ok = true;
  for (const auto& r : results) ok = ok && r.file_verified;
  if (!ok) std::cerr << "ciosim-mpi: a file differs from its technique's expected layout" << std::endl;
  return ok ? 0 : 1;
}

}  // namespace

// Sanitizer builds: Open MPI's runtime leaks at exit, from dlopened components that LeakSanitizer cannot
// symbolize for suppressions (checked with a five-line MPI_File_write_at program), so leak checking is
// off in this MPI program only; the rest of ciosim stays leak-checked. No effect without ASan.
extern "C" const char* __asan_default_options() {
  return "detect_leaks=0";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Bad input (code 2) is the same on every rank: rank 0 says it. A failure (code 1) may be one rank's.
  const auto fail = [&](int code, const std::string& msg) {
    if (rank == 0 || code != 2)
      std::cerr << "ciosim-mpi: error: " << (rank == 0 ? "" : "rank " + std::to_string(rank) + ": ")
                << config::one_line(msg) << std::endl;
    return code;
  };

  CLI::App app{"ciosim-mpi " + std::string(kVersion) +
               ": run ciosim's techniques on real MPI (start it with mpirun), or measure this machine"};
  app.require_subcommand(1);
  RunArgs ra;
  CLI::App* run = app.add_subcommand("run", "Run every point of a scenario on MPI and MPI-IO");
  run->add_option("SCENARIO", ra.scenario, "Scenario file (TOML)")->required();
  run->add_option("--set", ra.sets, "Override a parameter (as ciosim run)")->type_name("KEY=VALUE");
  run->add_option("--repeat", ra.repeat, "Repetitions of every point (times are medians)");
  run->add_option("--out", ra.out, "Write results.json, results.csv and timings.json here")->type_name("DIR");
  run->add_option("--work-dir", ra.work_dir, "Directory of the file the runs write (default: .)")
      ->type_name("DIR");
  run->add_option("--trace-dir", ra.trace_dir, "Write each point's call trace here")->type_name("DIR");
  run->add_option("--export-dir", ra.export_dir, "Copy each point's file here")->type_name("DIR");
  run->add_option("--reference", ra.reference,
                  "Run MPI_File_write_all with a file view instead of the technique; LABEL names it")
      ->type_name("LABEL");
  run->add_option("--memory", ra.memory,
                  "warm (default): memory kept in the process and one untimed run first; cold: every run "
                  "timed, first-touch page faults included")
      ->type_name("warm|cold");
  run->add_flag("--steps", ra.steps,
                "Run each point once more, untimed, with the step clock: every CPU charge's site with the "
                "real time its code took (timings.json's cpu_steps)");
  run->add_flag("-q,--quiet", ra.quiet, "No progress and no table");
  mpi::CalibrateOptions ca;
  CLI::App* cal = app.add_subcommand("calibrate", "Measure network, file, memcpy and packing speed as JSON");
  cal->add_option("--out", ca.out, "Measurements file (JSON)")->required()->type_name("FILE");
  cal->add_option("--work-dir", ca.work_dir, "Directory of the test file (default: .)")->type_name("DIR");
  cal->add_flag("--quick", ca.quick, "Fewer repetitions and smaller sizes (for tests)");
  cal->add_flag("--library", ca.library_only,
                "Only the MPI library's own MPI_File_write_all per piece (launch it with the library's "
                "ROMIO: Open MPI --mca io romio321)");

  int code = 0;
  try {
    app.parse(argc, argv);
    if (*run) code = run_command(ra, rank);
    if (*cal && ca.library_only) mpi::keep_freed_memory();  // as `run --memory warm`, validate's default
    if (*cal) code = mpi::calibrate(MPI_COMM_WORLD, ca);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      if (rank == 0) app.exit(e);
    } else {
      code = fail(2, std::string(e.what()) + " (see ciosim-mpi --help)");
    }
  } catch (const config::ConfigError& e) {
    code = fail(2, e.what());
  } catch (const std::invalid_argument& e) {
    code = fail(2, e.what());
  } catch (const std::exception& e) {
    code = fail(1, e.what());
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (code != 0 && size > 1) {
    // One rank's error must end the job: its peers may be waiting for it in a collective call, and would
    // wait forever. Rank 0 and a rank with a failure of its own (it said it above) end it now; a rank with
    // bad input, which rank 0 finds too and reports, gives rank 0 a second to say it first.
    if (rank != 0 && code == 2) std::this_thread::sleep_for(std::chrono::seconds(1));
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, code);
  }
#ifdef __SANITIZE_ADDRESS__
  // LeakSanitizer: check for leaks now, while the MPI library's own state is still reachable; the library
  // frees some of it in MPI_Finalize through components it has already unloaded, which LeakSanitizer can
  // neither attribute nor suppress. This is LeakSanitizer's only check of this process.
  __lsan_do_leak_check();
#endif
  MPI_Finalize();
  return code;
}
