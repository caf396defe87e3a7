// `ciosim validate SCENARIO.toml [-n P] [--repeat K] [--out DIR] [--set KEY=VALUE]... [--no-reference]
//                 [--work-dir DIR] [--mpirun PATH] [--hostfile FILE] [--mpirun-arg ARG]...`
//
// Every point is simulated (the fork runner, with the simulated file and call trace exported) and run on
// real MPI by ciosim-mpi under the launcher; then (a) the two files must be byte-identical and equal the
// expected layout, (b) the per-rank call traces and per-kind counts must be identical, and (c) predicted
// and measured phase times are reported (medians over K repetitions). Unless --no-reference, the MPI
// library's own collective write of each workload is also run (Open MPI: ROMIO and OMPIO; MPICH: ROMIO).
// Exit status 1 when (a) or (b) fails for any point.
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "algorithms/common/trace.hpp"
#include "algorithms/replay.hpp"
#include "algorithms/sequence.hpp"
#include "algorithms/technique.hpp"
#include "app/cleanup.hpp"
#include "app/commands.hpp"
#include "app/machine.hpp"
#include "app/mpi_launch.hpp"
#include "app/output_dir.hpp"
#include "app/runner.hpp"
#include "app/validate_report.hpp"
#include "config/input_files.hpp"
#include "config/placement.hpp"
#include "config/point_checks.hpp"
#include "config/results.hpp"
#include "config/scenario.hpp"
#include "config/trace_replay.hpp"
#include "config/workload.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

/// The bytes of the file at `p`; throws when it cannot be read (every file validate reads was just written).
std::string read_written(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A temporary directory next to the output directory, removed when done or stopped by a signal.
class Workspace {
 public:
  explicit Workspace(const fs::path& out) {
    const fs::path target = out.has_filename() ? out : out.parent_path();
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(parent, ec);
    std::string templ = (parent / ("." + target.filename().string() + ".validate-XXXXXX")).string();
    if (!::mkdtemp(templ.data()))
      throw std::runtime_error("cannot create a temporary directory in " + parent.string());
    dir_ = fs::absolute(templ);
    slot_ = remember_temporary_tree(dir_.string());  // removed by a signal too (app/cleanup.hpp)
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    forget_temporary(slot_);
  }
  fs::path operator/(const std::string& name) const { return dir_ / name; }

 private:
  fs::path dir_;
  int slot_ = -1;
};

struct MpiRun {
  std::vector<RunResult> results;
  nlohmann::json timings;
};

/// Starts ciosim-mpi run on the scenario; throws PointFailed with the log's tail if it produced nothing, and
/// std::runtime_error (which stops validate, a reference run's failure included) when it ran past --timeout.
/// `what` names the job in that message ("the real runs").
MpiRun launch(const Launcher& l, const ValidateOptions& opt, int ranks, const std::vector<std::string>& sets,
              const std::vector<std::string>& launcher_args, const std::vector<std::string>& extra,
              const fs::path& out, const fs::path& log, std::string* command, const std::string& what) {
  std::vector<std::string> program{mpi_binary().string(), "run", opt.scenario};
  for (const auto& s : sets) program.insert(program.end(), {"--set", s});
  program.insert(program.end(), {"--repeat", std::to_string(opt.repeat), "--memory", opt.memory, "--out",
                                 out.string(), "-q"});
  program.insert(program.end(), extra.begin(), extra.end());
  const std::vector<std::string> argv = launch_command(l, ranks, opt.mpi, launcher_args, program);
  if (command) *command = shell_join(argv);
  const LaunchResult r = run_logged(argv, log, opt.timeout_s);
  if (r.timed_out) throw_timed_out(what, opt.timeout_s);
  std::error_code ec;
  if (!fs::exists(out / "results.json", ec))
    throw PointFailed("the MPI run failed (exit " + std::to_string(r.exit_code) +
                      "): " + job_error(r.output, 4) + " [command: " + shell_join(argv) + "]");
  MpiRun m;
  m.results = config::parse_results_json(read_written(out / "results.json"), (out / "results.json").string());
  m.timings = nlohmann::json::parse(read_written(out / "timings.json"));
  return m;
}

/// The platform's own placement of the spec's ranks (config::node_of without rank_nodes).
std::vector<int> platform_placement(const RunSpec& spec) {
  std::vector<int> out;
  for (int r = 0; r < spec.ranks; ++r) out.push_back(config::node_of(spec, r));
  return out;
}

/// "4 ranks on 2 hosts (node0: 0-1, node1: 2-3)": each node's ranks as runs of consecutive ranks.
std::string describe_placement(const std::vector<int>& nodes) {
  const int hosts = nodes.empty() ? 0 : *std::max_element(nodes.begin(), nodes.end()) + 1;
  std::string list;
  constexpr int kShown = 8;
  for (int n = 0; n < std::min(hosts, kShown); ++n) {
    std::string ranks;
    for (std::size_t r = 0; r < nodes.size(); ++r) {
      if (nodes[r] != n) continue;
      std::size_t end = r;
      while (end + 1 < nodes.size() && nodes[end + 1] == n) ++end;
      ranks += (ranks.empty() ? "" : " ") + std::to_string(r) + (end > r ? "-" + std::to_string(end) : "");
      r = end;
    }
    list += (list.empty() ? "" : ", ") + ("node" + std::to_string(n)) + ": " + ranks;
  }
  if (hosts > kShown) list += ", ...";
  return std::to_string(nodes.size()) + " ranks on " + std::to_string(hosts) + " host" +
         (hosts == 1 ? "" : "s") + " (" + list + ")";
}

/// A note when the simulation groups the ranks into hosts differently from the real run (--placement
/// platform): techniques that select ranks by host (two-phase's cb_config_list, LAP) then legitimately
/// make different calls.
std::vector<std::string> placement_notes(const std::vector<int>& sim, const std::vector<int>& real) {
  if (sim == real) return {};
  return {
      "the simulation places " + describe_placement(sim) + ", the real run " + describe_placement(real) +
      "; techniques that group ranks by host (e.g. two-phase's cb_config_list) then make different calls. "
      "Use --placement real, or match them with --set platform.nodes=N --set platform.cores_per_node=C "
      "(or a --hostfile)."};
}

/// Whether the platform was measured on a machine like this one (`ciosim calibrate` writes the machine
/// into the platform's description). Otherwise predicted against measured compares a model of another
/// machine with this one, which says nothing about the model's accuracy.
std::string calibration_note(const PlatformSpec& p) {
  const std::string prefix = "Measured by ciosim calibrate: ";
  const std::string here = machine_hardware(machine_description());
  if (p.description.rfind(prefix, 0) == 0 && machine_hardware(p.description.substr(prefix.size())) == here)
    return "platform " + config::quote(p.name) + " was calibrated on a machine like this one (" + here + ")";
  return "platform " + config::quote(p.name) + " was not calibrated on this machine (" + here +
         "): predicted against measured compares a model of another machine with this one; run "
         "`ciosim calibrate` here for a judgement of the model";
}

/// The reference runs' labels and launcher arguments for this MPI.
std::vector<std::pair<std::string, std::vector<std::string>>> reference_kinds(const Launcher& l) {
  if (l.flavor == MpiFlavor::OpenMpi)
    return {{"romio321", romio_args(l)}, {"ompio", {"--mca", "io", "ompio"}}};
  return {{"romio", romio_args(l)}};
}

}  // namespace

int validate_command(const ValidateOptions& opt) {
  if (opt.repeat < 1) throw config::ConfigError("--repeat must be >= 1, got " + std::to_string(opt.repeat));
  if (opt.ranks_given && opt.ranks < 1)
    throw config::ConfigError("-n must be >= 1, got " + std::to_string(opt.ranks));
  config::check_memory_mode("--memory", opt.memory);
  if (!(opt.timeout_s >= 0) || !std::isfinite(opt.timeout_s))
    throw config::ConfigError("--timeout must be a number of seconds >= 0 (0: no limit), got " +
                              config::format_double(opt.timeout_s));
  if (opt.placement != "real" && opt.placement != "platform")
    throw config::ConfigError(
        "--placement must be 'real' (as the real run placed the ranks) or 'platform' "
        "(rank r on node r / cores_per_node), got " +
        config::quote(opt.placement));
  if (!opt.work_dir.empty()) {
    // The real runs' ranks each make the directory's last level; on anything else one rank fails and the
    // others wait for it forever. So it must be a directory, or not exist yet, before MPI starts.
    std::error_code ec;
    const fs::file_status st = fs::status(opt.work_dir, ec);
    if (fs::exists(st) && !fs::is_directory(st))
      throw config::ConfigError(
          config::not_a_file("--work-dir", opt.work_dir, "a directory (made if it does not exist)"));
  }
  config::LoadOptions load;
  load.sets = opt.sets;
  if (opt.ranks_given) load.sets.push_back("run.ranks=" + std::to_string(opt.ranks));
  load.data_dirs = data_dirs();
  load.memory = config::memory_limit("", 1);  // a point over the machine's memory is refused up front
  load.max_work = config::kDefaultMaxWork;
  config::Scenario s = config::load_scenario(opt.scenario, load);
  for (const auto& r : s.runs)
    if (const std::string why = config::check_runs_on_mpi(r); !why.empty()) throw config::ConfigError(why);
  for (const auto& r : s.runs)
    if (r.payload == PayloadChoice::Elided)
      throw config::ConfigError(
          "validate compares the simulated file with the real one byte for byte, so it needs the bytes: "
          "run.payload = \"elided\" cannot be used (use \"bytes\" or \"auto\")");
  const int ranks = s.runs.front().ranks;
  for (const auto& r : s.runs)
    if (r.ranks != ranks)
      throw config::ConfigError(
          "validate runs every point with one rank count, but the scenario sweeps run.ranks; "
          "fix it with -n P");
  const fs::path out = opt.out.empty() ? fs::path("results") / (s.name + "-validate") : fs::path(opt.out);
  install_cleanup_handlers();
  OutputDir out_dir(out);  // an impossible --out is found before anything runs
  const Launcher launcher = find_launcher(opt.mpi);
  (void)mpi_binary();  // fail before simulating when ciosim-mpi is missing
  Workspace ws(out);
  const fs::path work = opt.work_dir.empty() ? ws / "work" : fs::path(opt.work_dir);
  // ciosim-mpi makes only the last level of the directories it is given, so that a rank started after a
  // stop cannot recreate the removed workspace (app/cleanup.cpp). All of them lie in the workspace but
  // a --work-dir, whose parents are made here.
  std::error_code work_ec;
  fs::create_directories(work, work_ec);
  const auto say = [&](const std::string& msg) {
    if (!opt.quiet) std::cerr << "ciosim: " << msg << std::endl;
  };

  // The real runs.
  ValidationReport rep;
  rep.scenario = s.name;
  rep.ranks = ranks;
  rep.repeat = opt.repeat;
  rep.launcher = launcher.version.empty() ? launcher.path : launcher.version;
  rep.memory =
      opt.memory == "warm"
          ? "warm (freed memory kept in the process; each point ran once untimed before the timed runs)"
          : "cold (every run timed from the first; each pays the kernel's first-touch page faults, "
            "which the model does not charge)";
  for (const auto& set : s.settings)
    if (set.key == "run.platform" && !set.values.empty())
      rep.platform = config::value_text(set.values.front());
  say("running on MPI: " + std::to_string(s.runs.size()) + " points x " + std::to_string(opt.repeat) +
      " repetitions");
  const double load_before = load_average();
  std::vector<std::string> real_args{"--trace-dir",  (ws / "mpi-traces").string(),
                                     "--export-dir", (ws / "mpi-files").string(),
                                     "--work-dir",   work.string()};
  if (opt.cpu_steps) real_args.push_back("--steps");
  const MpiRun real = launch(launcher, opt, ranks, load.sets, {}, real_args, ws / "mpi", ws / "mpi.log",
                             &rep.command, "the real runs");
  if (real.results.size() != s.runs.size())
    throw PointFailed("ciosim-mpi reported " + std::to_string(real.results.size()) + " runs for " +
                      std::to_string(s.runs.size()) + " points");

  // The placement: the real run's, or the platform's.
  // The real run's hosts numbered as the MPI backend names them for the techniques (node0, node1, ...).
  const std::vector<int> real_nodes =
      config::host_indices(real.timings.at("hosts").get<std::vector<std::string>>());
  const RunSpec& first = s.runs.front();
  if (real_nodes.size() != static_cast<std::size_t>(ranks))
    throw PointFailed("ciosim-mpi reported the hosts of " + std::to_string(real_nodes.size()) +
                      " ranks for " + std::to_string(ranks));
  const int real_hosts = *std::max_element(real_nodes.begin(), real_nodes.end()) + 1;
  std::vector<int> sim_nodes;
  if (opt.placement == "real") {
    for (const auto& r : s.runs)
      if (r.platform.nodes < real_hosts)
        throw config::ConfigError(
            "the real run placed the ranks on " + std::to_string(real_hosts) + " hosts, but platform " +
            config::quote(r.platform.name) + " has " + std::to_string(r.platform.nodes) +
            " nodes; give it enough (--set platform.nodes=" + std::to_string(real_hosts) +
            ") or use --placement platform");
    sim_nodes = real_nodes;
    rep.placement = "as the real run: " + describe_placement(sim_nodes);
  } else {
    sim_nodes = platform_placement(first);
    rep.placement = "as the platform (rank r on node r / cores_per_node): " + describe_placement(sim_nodes);
  }
  rep.notes = placement_notes(sim_nodes, real_nodes);
  rep.notes.push_back(load_note(load_before, load_average(), "the real runs"));
  rep.notes.push_back(calibration_note(first.platform));

  // The simulation, with the file and the traces exported.
  std::vector<RunResult> sims;
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    RunSpec spec = s.runs[i];
    if (opt.placement == "real") spec.rank_nodes = sim_nodes;
    const std::string id = "point-" + std::to_string(i + 1);
    spec.export_file = (ws / ("sim-" + id + ".dat")).string();
    spec.trace_file = (ws / ("sim-" + id + ".trace")).string();
    const std::string label = config::point_label(spec);
    say("simulating [" + std::to_string(i + 1) + "/" + std::to_string(s.runs.size()) + "] " + spec.algorithm +
        (label.empty() ? "" : "  " + label));
    sims.push_back(run_point(spec, id + (label.empty() ? "" : " (" + label + ")")));
  }

  std::vector<std::pair<std::string, std::optional<MpiRun>>> refs;
  std::vector<std::string> ref_errors;
  if (!opt.no_reference) {
    for (const auto& [label, args] : reference_kinds(launcher)) {
      say("running the reference MPI_File_write_all (" + label + ")");
      try {
        refs.emplace_back(
            label, launch(launcher, opt, ranks, load.sets, args,
                          {"--reference", label, "--work-dir", work.string()}, ws / ("ref-" + label),
                          ws / ("ref-" + label + ".log"), nullptr, "the reference run (" + label + ")"));
        ref_errors.emplace_back();
      } catch (const PointFailed& e) {
        refs.emplace_back(label, std::nullopt);
        ref_errors.push_back(e.what());
      }
    }
  }

  // The library's own call predicted where it is ROMIO: two-phase as the library runs it (run.cpu_charge =
  // "library"), with the hints the reference opens the file with (none: ROMIO's defaults) and the point's
  // ROMIO generation. OMPIO's algorithms (fcoll) are not modelled.
  std::vector<std::optional<double>> library_s(s.runs.size());
  std::string library_why;
  const bool any_romio =
      std::any_of(refs.begin(), refs.end(), [](const auto& r) { return r.first != "ompio"; });
  for (std::size_t i = 0; any_romio && i < s.runs.size(); ++i) {
    RunSpec spec = s.runs[i];
    if (!(spec.platform.romio_piece_s > 0)) {
      library_why =
          "platform " + config::quote(spec.platform.name) +
          " has no nodes.romio_piece_s, the library's cost per piece (ciosim calibrate measures it)";
      continue;
    }
    if (opt.placement == "real") spec.rank_nodes = sim_nodes;
    spec.algorithm = "two-phase";
    spec.cpu_charge = CpuCharge::library;
    spec.hints = IoHints{.version = spec.hints.version};
    if (spec.sequence.empty()) spec.access = Access::Write;  // the reference writes
    say("simulating [" + std::to_string(i + 1) + "/" + std::to_string(s.runs.size()) +
        "] the library's MPI_File_write_all (two-phase, run.cpu_charge = library)");
    try {
      library_s[i] = run_point(spec, "point-" + std::to_string(i + 1) + " (the library's call)").sim_time_s;
    } catch (const std::exception& e) {  // the prediction is a report's column: it does not stop the rest
      library_why = std::string("its simulation failed: ") + e.what();
    }
  }

  // The comparisons.
  std::vector<std::pair<std::string, std::string>> files;
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const RunSpec& spec = s.runs[i];
    const std::string id = "point-" + std::to_string(i + 1);
    PointReport p;
    p.index = i + 1;
    p.algorithm = spec.algorithm;
    p.label = config::point_label(spec);
    const FileLayout layout = technique(spec.algorithm).layout;
    const std::string sim_file = read_written(ws / ("sim-" + id + ".dat"));
    const std::string mpi_file = read_written(ws / "mpi-files" / (id + ".dat"));
    if (replays_calls(spec.workload)) {
      // A replayed application's file, checked as the runs check it (algorithms/replay.hpp).
      const Replay rep =
          config::replay_from_capture(spec.workload.file, spec.ranks, spec.workload.element_size);
      const auto matches = [&](const std::string& f) {
        return check_replay_file(std::as_bytes(std::span<const char>(f.data(), f.size())), rep).empty();
      };
      p.expected_bytes = static_cast<std::int64_t>(sim_file.size());
      p.sim_file_ok = matches(sim_file);
      p.mpi_file_ok = matches(mpi_file);
    } else if (const Distribution dist = make_distribution(spec.workload, spec.ranks);
               spec.sequence.empty()) {
      const std::vector<std::byte> expected = expected_file(dist, layout, spec.workload.element_size);
      const std::string want(reinterpret_cast<const char*>(expected.data()), expected.size());
      p.expected_bytes = static_cast<std::int64_t>(expected.size());
      p.sim_file_ok = sim_file == want;
      p.mpi_file_ok = mpi_file == want;
    } else {
      // An operation sequence's file, checked step by step as the runs check it (algorithms/sequence.hpp).
      const std::vector<Op> ops = parse_sequence(spec.sequence);
      const auto matches = [&](const std::string& f) {
        return check_sequence_file(std::as_bytes(std::span<const char>(f.data(), f.size())), dist, layout,
                                   spec.workload.element_size, ops)
            .empty();
      };
      p.expected_bytes = static_cast<std::int64_t>(sim_file.size());
      p.sim_file_ok = matches(sim_file);
      p.mpi_file_ok = matches(mpi_file);
    }
    p.files_identical = sim_file == mpi_file;
    p.sim_verified = sims[i].file_verified;
    p.mpi_verified = real.results[i].file_verified;
    const std::string sim_trace = read_written(ws / ("sim-" + id + ".trace"));
    const std::string mpi_trace = read_written(ws / "mpi-traces" / (id + ".trace"));
    p.trace_difference = trace_difference(parse_trace(sim_trace), parse_trace(mpi_trace), "sim", "mpi");
    p.calls_difference = calls_difference(sims[i], real.results[i]);
    if (!p.trace_difference.empty()) {
      files.emplace_back("sim-" + id + ".trace", sim_trace);
      files.emplace_back("mpi-" + id + ".trace", mpi_trace);
    }
    p.timing = timing_rows(sims[i], real.timings.at("points").at(i));
    p.steps = step_rows(real.timings.at("points").at(i), s.runs[i].platform);
    for (std::size_t k = 0; k < refs.size(); ++k) {
      ReferenceRun ref;
      ref.label = refs[k].first;
      if (refs[k].second && i < refs[k].second->results.size()) {
        const auto& point = refs[k].second->timings.at("points").at(i);
        ref.available = true;
        ref.total = measured("total", point);
        ref.write = measured("write", point);
        ref.verified = refs[k].second->results[i].file_verified;
        ref.predicted = ref.label != "ompio" && library_s[i].has_value();
        if (ref.predicted)
          ref.total.predicted_s = *library_s[i];
        else
          ref.not_predicted = ref.label == "ompio"
                                  ? "OMPIO's own collective algorithms (fcoll) are not modelled"
                                  : library_why;
      } else {
        ref.why = ref_errors[k];
      }
      p.references.push_back(std::move(ref));
    }
    rep.points.push_back(std::move(p));
  }

  const std::string text = report_text(rep);
  files.insert(files.begin(), {{"results.json", config::results_json(s.name, sims)},
                               {"results.csv", config::results_csv(sims)},
                               {"mpi-results.json", read_written(ws / "mpi" / "results.json")},
                               {"mpi-results.csv", read_written(ws / "mpi" / "results.csv")},
                               {"mpi-timings.json", read_written(ws / "mpi" / "timings.json")},
                               {"validation.txt", text},
                               {"validation.json", report_json(rep)},
                               {"effective-config.toml", config::effective_config_toml(s)}});
  for (const auto& [label, run] : refs)
    if (run)
      files.emplace_back("reference-" + label + "-timings.json",
                         read_written(ws / ("ref-" + label) / "timings.json"));
  out_dir.commit(files);
  std::cout << text << std::flush;
  say("wrote " + (out / "validation.txt").string() +
      ", validation.json, results.json (simulated), mpi-results.json");
  if (!rep.passed()) {
    std::cerr << "ciosim: validation failed: the simulated and the real run disagree (see "
              << (out / "validation.txt").string() << ")" << std::endl;
    return 1;
  }
  return 0;
}

}  // namespace ciosim::app
