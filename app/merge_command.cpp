// `ciosim merge OUT SHARD_DIR...`: the results folders of a sweep's shards (`ciosim run --shard i/n`)
// joined into one. The shards must be every shard 1..n of one sweep (same scenario and configuration),
// each given once and complete; the merged folder is then what running the whole sweep at once writes,
// byte for byte (app/sweep_folder.hpp builds both from the same point records).
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "app/cleanup.hpp"
#include "app/commands.hpp"
#include "app/output_dir.hpp"
#include "app/sweep_folder.hpp"
#include "config/params.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

struct ShardDir {
  std::string dir;
  SweepInfo info;
};

ShardDir read_shard(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw config::ConfigError("merge: " + dir + " is not a directory");
  std::optional<SweepInfo> info = read_sweep_info(dir);
  if (!info)
    throw config::ConfigError("merge: " + dir +
                              " is not a sweep's results folder (no points/sweep.json); give the --out of "
                              "each `ciosim run --shard i/n`");
  if (info->shard.whole())
    throw config::ConfigError("merge: " + dir + " holds a whole sweep, not a shard (run --shard i/n)");
  return {dir, std::move(*info)};
}

/// The effective configuration a shard saved (every shard saves the whole sweep's).
std::pair<std::string, std::string> effective_of(const std::string& dir) {
  for (const char* name : {"effective-config.toml", "effective-config.json"}) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(dir) / name, ec)) return {name, slurp(fs::path(dir) / name)};
  }
  throw config::ConfigError("merge: " + dir + " has no effective-config.toml or .json");
}

}  // namespace

int merge_command(const MergeOptions& opt) {
  if (opt.shards.empty()) throw config::ConfigError("merge: give the output folder and every shard's folder");
  std::vector<ShardDir> shards;
  for (const auto& d : opt.shards) {
    std::error_code ec;
    if (fs::weakly_canonical(d, ec) == fs::weakly_canonical(opt.out, ec))
      throw config::ConfigError("merge: the output " + opt.out + " is the shard folder " + d +
                                "; write the merged sweep into another folder");
    shards.push_back(read_shard(d));
  }
  const ShardDir& first = shards.front();
  std::map<int, std::string> by_index;
  for (const auto& s : shards) {
    if (s.info.shard.count != first.info.shard.count)
      throw config::ConfigError("merge: " + first.dir + " is shard " + first.info.shard.text() + " but " +
                                s.dir + " is shard " + s.info.shard.text() +
                                "; give the shards of one --shard I/N split");
    if (const std::string d = config_difference(first.info.config, s.info.config); !d.empty())
      throw config::ConfigError("merge: " + first.dir + " and " + s.dir +
                                " are shards of different sweeps: " + d + " differs");
    const auto [it, fresh] = by_index.emplace(s.info.shard.index, s.dir);
    if (!fresh)
      throw config::ConfigError("merge: shard " + s.info.shard.text() + " given twice: " + it->second +
                                " and " + s.dir);
  }
  std::vector<std::string> missing;
  for (int i = 1; i <= first.info.shard.count; ++i)
    if (!by_index.count(i))
      missing.push_back(std::to_string(i) + "/" + std::to_string(first.info.shard.count));
  if (!missing.empty())
    throw config::ConfigError(
        "merge: shard" + std::string(missing.size() > 1 ? "s " : " ") + config::join(missing) +
        " missing (a merge needs every shard 1/" + std::to_string(first.info.shard.count) + " to " +
        std::to_string(first.info.shard.count) + "/" + std::to_string(first.info.shard.count) + ")");
  std::map<std::size_t, RunResult> all;
  for (const auto& s : shards) {
    std::map<std::size_t, RunResult> pts = read_points(s.dir, s.info);
    std::size_t expected = 0;
    for (std::size_t p = 1; p <= s.info.points; ++p) expected += s.info.shard.has(p);
    if (pts.size() != expected)
      throw config::ConfigError("merge: " + s.dir + " (shard " + s.info.shard.text() + ") is partial: " +
                                std::to_string(pts.size()) + " of " + std::to_string(expected) +
                                " points done; finish it with ciosim run ... --shard " + s.info.shard.text() +
                                " --resume --out " + s.dir);
    all.merge(pts);
  }
  SweepInfo whole = first.info;
  whole.shard = {};
  auto effective = effective_of(first.dir);
  const std::string other =
      effective.first == "effective-config.toml" ? "effective-config.json" : "effective-config.toml";

  install_cleanup_handlers();
  OutputDir out(opt.out);
  SweepFolder folder(out, whole, std::move(effective), other, {}, false);
  for (const auto& [p, r] : all) folder.save(p, r);
  // The shards' timelines (run --timeline): named by the point's number in the whole sweep already.
  for (const ShardDir& s : shards)
    for (const auto& e : fs::directory_iterator(s.dir)) {
      const std::string name = e.path().filename().string();
      if (e.is_regular_file() && name.rfind("timeline-", 0) == 0 &&
          (e.path().extension() == ".json" || e.path().extension() == ".paje"))
        out.put(name, slurp(e.path()));
    }
  folder.write_results();
  if (!opt.quiet)
    std::cerr << "ciosim: merged " << shards.size() << " shards (" << all.size() << " points) into "
              << out.path().string() << std::endl;
  return 0;
}

}  // namespace ciosim::app
