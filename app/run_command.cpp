// `ciosim run SCENARIO.toml [--set key=value ...] [--out DIR] [--export-file PATH] [--dry-run] [-j N]
//  [--resume] [--keep-going] [--shard I/N] [--no-reuse]`
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>

#include "app/cleanup.hpp"
#include "app/commands.hpp"
#include "app/output_dir.hpp"
#include "app/runner.hpp"
#include "app/staged_file.hpp"
#include "app/sweep.hpp"
#include "app/sweep_folder.hpp"
#include "config/phases_csv.hpp"
#include "config/resources.hpp"
#include "config/results.hpp"
#include "config/scenario.hpp"
#include "config/timeline.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

/// Each point writes its timeline into the output's staging directory: timeline-N.json / .paje, N the
/// point's 1-based number, zero-padded to the width of the point count.
void stage_timelines(OutputDir& out, const std::vector<std::string>& formats, std::vector<RunSpec>& runs) {
  const std::size_t width = std::to_string(runs.size()).size();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::string n = std::to_string(i + 1);
    const std::string stem = "timeline-" + std::string(width - n.size(), '0') + n;
    for (const auto& f : config::timeline_formats())
      if (std::find(formats.begin(), formats.end(), f.name) != formats.end()) out.stage(stem + f.extension);
    runs[i].timeline_formats = formats;
    runs[i].timeline_path = out.stage(stem).string();  // the extension is added per format
  }
}

/// Checks --resume against what `out` holds; returns the points already done there (and sets
/// `resumed`), or nothing to resume. Throws config::ConfigError (exit 2) when the folder holds another
/// sweep.
std::map<std::size_t, RunResult> resume_from(const fs::path& out, const SweepInfo& info, bool& resumed) {
  resumed = false;
  const std::optional<SweepInfo> saved = read_sweep_info(out);
  std::error_code ec;
  if (!saved) {
    if (fs::exists(out / "results.json", ec))
      throw config::ConfigError("--resume: " + out.string() +
                                " has no saved points (points/sweep.json), nothing to resume; run without "
                                "--resume to replace its results");
    return {};
  }
  const std::string shard_of = [&](const Shard& s) {
    return s.whole() ? std::string("the whole sweep") : "shard " + s.text();
  }(saved->shard);
  const std::string shard_now =
      info.shard.whole() ? std::string("the whole sweep") : "shard " + info.shard.text();
  if (shard_of != shard_now)
    throw config::ConfigError("--resume: " + out.string() + " holds " + shard_of + ", this run is " +
                              shard_now + "; use the same --shard or another --out");
  if (const std::string d = config_difference(saved->config, info.config); !d.empty())
    throw config::ConfigError(
        "--resume: " + out.string() + " was run with another configuration: " + d +
        " differs; run without --resume to replace its results, or choose another --out");
  resumed = true;
  return read_points(out, info);
}

void print_points(const config::Scenario& s, const Shard& shard) {
  std::size_t mine = 0;
  for (std::size_t i = 0; i < s.runs.size(); ++i) mine += shard.has(i + 1);
  std::cout << "scenario " << s.name << ": " << s.runs.size() << " point" << (s.runs.size() == 1 ? "" : "s")
            << (s.skipped.empty() ? ", all valid" : " valid");
  if (!s.skipped.empty()) std::cout << ", " << s.skipped.size() << " skipped (--keep-going)";
  if (!shard.whole()) std::cout << "; shard " << shard.text() << " runs " << mine << " of them";
  std::cout << "\n";
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    if (!shard.has(i + 1)) continue;
    const RunSpec& r = s.runs[i];
    const std::string label = config::point_label(r);
    // The memory a simulation of the point needs at least (the estimate the run refuses points by): what
    // a cluster job's memory request must cover, with -j points at once sharing it.
    const config::WorkloadSize size = config::workload_size(r.workload, r.ranks);
    const std::int64_t memory = config::estimate_memory(r, size).bytes;
    // The events it will simulate: its cost relative to the sweep's other points (config/work_estimate.hpp).
    const config::WorkEstimate work = config::estimate_work(r, size);
    std::cout << "  " << i + 1 << ": " << r.algorithm << " ranks=" << r.ranks << " nx=" << r.workload.nx
              << " mpi=" << r.network_mpi << " io=" << r.network_io
              << (label.empty() ? "" : "  [" + label + "]") << "  memory >= " << config::format_bytes(memory)
              << "  work ~ " << (work.events > 0 ? config::format_events(work.events) + " events" : "?")
              << "\n";
  }
  for (const auto& k : s.skipped) std::cout << "  skipped " << k.point << ": " << k.reason << "\n";
  std::cout << std::flush;
}

}  // namespace

int run_command(const RunOptions& opt) {
  const std::vector<std::string> timeline = config::parse_timeline_formats(opt.timeline);
  if (opt.effective_format != "toml" && opt.effective_format != "json")
    throw config::ConfigError("unknown --effective-format " + config::quote(opt.effective_format) +
                              "; valid choices: toml, json");
  if (opt.jobs < 1 || opt.jobs > kMaxJobs)
    throw config::ConfigError("-j " + std::to_string(opt.jobs) +
                              ": the points simulated at once must be 1 to " + std::to_string(kMaxJobs));
  const Shard shard = opt.shard.empty() ? Shard{} : parse_shard(opt.shard);
  config::LoadOptions load;
  load.sets = opt.sets;
  load.data_dirs = data_dirs();
  load.keep_going = opt.keep_going;
  // Each point's memory estimate is checked in the validation pass, the -j points at once sharing it.
  load.memory = config::memory_limit(opt.max_memory, opt.jobs);
  load.max_work = opt.max_work;
  config::Scenario s = config::load_scenario(opt.scenario, load);

  if (opt.dry_run) {
    print_points(s, shard);
    return 0;
  }
  if (!opt.export_file.empty() && (opt.resume || !shard.whole()))
    throw config::ConfigError(
        "--export-file cannot be combined with --resume or --shard (run the point alone)");
  install_cleanup_handlers();
  // Everything that can fail about the output is found now, before any point is simulated.
  const fs::path default_out =
      fs::path("results") / (shard.whole() ? s.name
                                           : s.name + "-shard-" + std::to_string(shard.index) + "-of-" +
                                                 std::to_string(shard.count));
  OutputDir out(opt.out.empty() ? default_out : fs::path(opt.out));
  std::optional<StagedFile> exported;
  if (!opt.export_file.empty()) {
    if (s.runs.size() != 1)
      throw config::ConfigError("--export-file needs a single-point scenario; this one has " +
                                std::to_string(s.runs.size()) + " points (fix the swept keys with --set)");
    if (s.runs[0].payload == PayloadChoice::Elided)
      throw config::ConfigError(
          "--export-file needs the file's bytes: it cannot be used with run.payload = "
          "\"elided\" (use \"bytes\" or \"auto\")");
    exported.emplace("--export-file", opt.export_file, ".partial");
    s.runs[0].export_file = exported->path().string();
  }
  if (!timeline.empty()) stage_timelines(out, timeline, s.runs);

  SweepInfo info{s.name, s.runs.size(), shard, s.skipped, comparable_config(s)};
  bool resumed = false;
  std::map<std::size_t, RunResult> done;
  if (opt.resume) done = resume_from(out.path(), info, resumed);

  const std::string config_name = "effective-config." + opt.effective_format;
  SweepFolder folder(out, info,
                     {config_name, opt.effective_format == "json" ? config::effective_config_json(s)
                                                                  : config::effective_config_toml(s)},
                     opt.effective_format == "json" ? "effective-config.toml" : "effective-config.json",
                     std::move(done), resumed);
  if (opt.resume && !opt.quiet)
    std::cerr << "ciosim: resuming " << out.path().string() << ": " << folder.done().size() << " of "
              << folder.mine().size() << " points already done" << std::endl;
  run_sweep(s.runs, folder, {opt.jobs, opt.quiet, !opt.no_reuse});
  if (exported) exported->commit();
  std::cout << config::results_table(folder.runs()) << std::flush;
  if (!s.skipped.empty()) {
    std::cerr << "ciosim: skipped " << s.skipped.size() << " point" << (s.skipped.size() == 1 ? "" : "s")
              << " that cannot run (--keep-going):\n";
    for (const auto& k : s.skipped) std::cerr << "  " << k.point << ": " << k.reason << "\n";
    std::cerr << std::flush;
  }
  if (!opt.quiet) {
    std::cerr << "ciosim: wrote " << (out.path() / "results.json").string() << ", results.csv, phases.csv, "
              << config_name;
    if (!timeline.empty())
      std::cerr << ", timeline-*."
                << (timeline.size() == 2      ? "{json,paje}"
                    : timeline[0] == "chrome" ? "json"
                                              : "paje");
    if (exported) std::cerr << " and " << opt.export_file;
    std::cerr << std::endl;
  }
  return 0;
}

}  // namespace ciosim::app
