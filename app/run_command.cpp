// `ciosim run SCENARIO.toml [--set key=value ...] [--out DIR] [--export-file PATH] [--dry-run]`
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>

#include "app/commands.hpp"
#include "app/output_dir.hpp"
#include "app/runner.hpp"
#include "config/results.hpp"
#include "config/scenario.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

/// A file created next to `target` (mkstemp) that the simulation writes and that is renamed onto
/// `target` only when everything succeeded; removed otherwise.
class StagedFile {
 public:
  explicit StagedFile(const fs::path& target) : target_(target) {
    const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
      throw config::ConfigError("--export-file " + target.string() + ": directory " + parent.string() +
                                " does not exist");
    if (fs::is_directory(target, ec))
      throw config::ConfigError("--export-file " + target.string() + " is a directory; give a file path");
    std::string templ = (parent / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
    const int fd = ::mkstemp(templ.data());
    if (fd < 0)
      throw config::ConfigError("--export-file " + target.string() + ": cannot create a file in " +
                                parent.string() + ": " + std::strerror(errno));
    ::close(fd);
    tmp_ = templ;
  }
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  ~StagedFile() {
    if (!tmp_.empty()) {
      std::error_code ec;
      fs::remove(tmp_, ec);
    }
  }
  const fs::path& path() const { return tmp_; }
  void commit() {
    fs::rename(tmp_, target_);
    tmp_.clear();
  }

 private:
  fs::path target_;
  fs::path tmp_;
};

}  // namespace

int run_command(const RunOptions& opt) {
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
  const fs::path out = opt.out.empty() ? fs::path("results") / s.name : fs::path(opt.out);
  check_output_dir(out);
  std::optional<StagedFile> exported;
  if (!opt.export_file.empty()) {
    if (s.runs.size() != 1)
      throw config::ConfigError("--export-file needs a single-point scenario; this one has " +
                                std::to_string(s.runs.size()) + " points (fix the swept keys with --set)");
    exported.emplace(opt.export_file);
    s.runs[0].export_file = exported->path().string();
  }

  const Progress progress = [&](std::size_t i, std::size_t n, const RunSpec& spec) {
    if (opt.quiet) return;
    const std::string label = config::point_label(spec);
    std::cerr << "ciosim: [" << i + 1 << "/" << n << "] " << spec.algorithm
              << (label.empty() ? "" : "  " + label) << std::endl;
  };
  const std::vector<RunResult> results = run_points(s.runs, progress);

  const std::string config_name = "effective-config." + opt.effective_format;
  write_output_dir(out, {{"results.json", config::results_json(s.name, results)},
                         {"results.csv", config::results_csv(results)},
                         {config_name, opt.effective_format == "json" ? config::effective_config_json(s)
                                                                      : config::effective_config_toml(s)}});
  if (exported) exported->commit();
  std::cout << config::results_table(results) << std::flush;
  if (!opt.quiet) {
    std::cerr << "ciosim: wrote " << (out / "results.json").string() << ", results.csv, " << config_name;
    if (exported) std::cerr << " and " << opt.export_file;
    std::cerr << std::endl;
  }
  return 0;
}

}  // namespace ciosim::app
