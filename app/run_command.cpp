// `ciosim run SCENARIO.toml [--set key=value ...] [--out DIR] [--export-file PATH] [--dry-run]`
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>

#include "app/cleanup.hpp"
#include "app/commands.hpp"
#include "app/output_dir.hpp"
#include "app/runner.hpp"
#include "config/phases_csv.hpp"
#include "config/results.hpp"
#include "config/scenario.hpp"
#include "config/timeline.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

/// A file created next to `target` (mkstemp) that the simulation writes and that is renamed onto
/// `target` only when everything succeeded; removed otherwise (and by a signal: app/cleanup.hpp). Only a
/// new path or an existing regular file is accepted as `target`: never a directory, a symbolic link, a
/// FIFO, a socket or a device, whose replacement would destroy something of the user's.
class StagedFile {
 public:
  explicit StagedFile(const fs::path& target) : target_(target) {
    const std::string what = "--export-file " + target.string();
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
      throw config::ConfigError(what + ": directory " + parent.string() + " does not exist");
    const auto st = fs::symlink_status(target, ec);
    if (fs::exists(st) && !fs::is_regular_file(st))
      throw config::ConfigError(what + " exists and is " + kind_of(st) +
                                "; --export-file replaces only a regular file or creates a new one");
    std::string templ = (parent / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(templ.data());
    if (fd < 0)
      throw config::ConfigError(what + ": cannot create a file in " + parent.string() + ": " +
                                std::strerror(errno));
    ::close(fd);
    tmp_ = templ;
    slots_[0] = remember_temporary(tmp_.string(), false);
    slots_[1] = remember_temporary(tmp_.string() + ".partial", false);  // FileStore::export_to's own stage
  }
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  ~StagedFile() {
    std::error_code ec;
    if (!tmp_.empty()) fs::remove(tmp_, ec);
    if (!tmp_.empty()) fs::remove(tmp_.string() + ".partial", ec);
    for (int s : slots_) forget_temporary(s);
  }
  const fs::path& path() const { return tmp_; }
  void commit() {
    // The path may have changed while the simulation ran: check again right before replacing it.
    std::error_code ec;
    const auto st = fs::symlink_status(target_, ec);
    if (fs::exists(st) && !fs::is_regular_file(st))
      throw std::runtime_error("--export-file " + target_.string() + " became " + kind_of(st) +
                               " while the simulation ran; not replaced (the results were written)");
    fs::rename(tmp_, target_);
    tmp_.clear();
  }

 private:
  static std::string kind_of(const fs::file_status& st) {
    switch (st.type()) {
      case fs::file_type::directory:
        return "a directory";
      case fs::file_type::symlink:
        return "a symbolic link";
      case fs::file_type::fifo:
        return "a FIFO";
      case fs::file_type::socket:
        return "a socket";
      case fs::file_type::block:
      case fs::file_type::character:
        return "a device";
      default:
        return "not a regular file";
    }
  }

  fs::path target_;
  fs::path tmp_;
  int slots_[2] = {-1, -1};
};

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

}  // namespace

int run_command(const RunOptions& opt) {
  const std::vector<std::string> timeline = config::parse_timeline_formats(opt.timeline);
  if (opt.effective_format != "toml" && opt.effective_format != "json")
    throw config::ConfigError("unknown --effective-format " + config::quote(opt.effective_format) +
                              "; valid choices: toml, json");
  config::LoadOptions load;
  load.sets = opt.sets;
  load.data_dirs = data_dirs();
  config::Scenario s = config::load_scenario(opt.scenario, load);

  if (opt.dry_run) {
    std::cout << "scenario " << s.name << ": " << s.runs.size() << " point" << (s.runs.size() == 1 ? "" : "s")
              << ", all valid\n";
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
      const RunSpec& r = s.runs[i];
      const std::string label = config::point_label(r);
      std::cout << "  " << i + 1 << ": " << r.algorithm << " ranks=" << r.ranks << " nx=" << r.workload.nx
                << " mpi=" << r.network_mpi << " io=" << r.network_io
                << (label.empty() ? "" : "  [" + label + "]") << "\n";
    }
    std::cout << std::flush;
    return 0;
  }
  if (opt.out_given && opt.out.empty()) throw config::ConfigError("--out is empty; give a directory");
  install_cleanup_handlers();
  // Everything that can fail about the output is found now, before any point is simulated.
  OutputDir out(opt.out.empty() ? fs::path("results") / s.name : fs::path(opt.out));
  std::optional<StagedFile> exported;
  if (!opt.export_file.empty()) {
    if (s.runs.size() != 1)
      throw config::ConfigError("--export-file needs a single-point scenario; this one has " +
                                std::to_string(s.runs.size()) + " points (fix the swept keys with --set)");
    exported.emplace(opt.export_file);
    s.runs[0].export_file = exported->path().string();
  }
  if (!timeline.empty()) stage_timelines(out, timeline, s.runs);

  const Progress progress = [&](std::size_t i, std::size_t n, const RunSpec& spec) {
    if (opt.quiet) return;
    const std::string label = config::point_label(spec);
    std::cerr << "ciosim: [" << i + 1 << "/" << n << "] " << spec.algorithm
              << (label.empty() ? "" : "  " + label) << std::endl;
  };
  const std::vector<RunResult> results = run_points(s.runs, progress);

  const std::string config_name = "effective-config." + opt.effective_format;
  out.commit({{"results.json", config::results_json(s.name, results)},
              {"results.csv", config::results_csv(results)},
              {"phases.csv", config::phases_csv(results)},
              {config_name, opt.effective_format == "json" ? config::effective_config_json(s)
                                                           : config::effective_config_toml(s)}},
             {opt.effective_format == "json" ? "effective-config.toml" : "effective-config.json"});
  if (exported) exported->commit();
  std::cout << config::results_table(results) << std::flush;
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
