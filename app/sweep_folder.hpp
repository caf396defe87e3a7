// A results folder that a sweep fills as it goes, so that nothing finished is lost (docs/results.md,
// "Sweeps that survive"):
//
//   DIR/points/sweep.json          what the sweep is: scenario, points, shard, skipped points, and the
//                                  configuration that decides every point's result
//   DIR/points/point-000003.json   one finished point (its RunResult, losslessly), written at once
//   DIR/results.json               the runs in point order; "partial": true while points are missing
//   DIR/results.csv                the complete sweep's CSV, or results.partial.csv while partial
//   DIR/effective-config.toml      (or .json) as before
//
// Every file is written whole and renamed into place, so the folder is consistent whatever stops the
// process. `--resume` reads the points back; `ciosim merge` joins shards' folders. The results files are
// built from the points in point order, so how the points were obtained (in parallel, resumed, in
// shards) never changes their bytes.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/output_dir.hpp"
#include "config/run_spec.hpp"
#include "config/scenario.hpp"

namespace ciosim::app {

/// Which n-th of a sweep's points a run computes: points index, index + count, ... (1-based).
struct Shard {
  int index = 0;  ///< 1..count; 0 = the whole sweep
  int count = 0;
  bool whole() const { return count == 0; }
  bool has(std::size_t point) const { return whole() || (point - 1) % count == std::size_t(index - 1); }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};
/// Parses "i/n" (--shard); throws config::ConfigError naming the valid range.
Shard parse_shard(const std::string& text);

/// points/sweep.json.
struct SweepInfo {
  std::string scenario;
  std::size_t points = 0;  ///< runnable points of the whole sweep
  Shard shard;
  std::vector<config::SkippedPoint> skipped;
  nlohmann::ordered_json config;  ///< comparable_config()
};

/// What decides the results: the ciosim version, the scenario's name, every parameter's value(s) and
/// whether it appears in results' params, and the platforms. (Not the description, not where a value
/// came from.)
nlohmann::ordered_json comparable_config(const config::Scenario& s);
/// "" when equal, else the first differing key and both values: "workload.bx (saved [1,4], now [2])".
std::string config_difference(const nlohmann::ordered_json& saved, const nlohmann::ordered_json& now);

/// Reads DIR/points/sweep.json, or nothing when there is none; throws config::ConfigError if malformed.
std::optional<SweepInfo> read_sweep_info(const std::filesystem::path& dir);
/// The finished points saved in DIR/points that belong to `info` (same configuration, in its shard),
/// by point number (1-based). Unreadable or foreign records are ignored (those points run again).
std::map<std::size_t, RunResult> read_points(const std::filesystem::path& dir, const SweepInfo& info);

/// results.json of `runs` (in point order): config::results_json, plus "shard" for a shard,
/// "skipped" when points were skipped and "partial", "points_done", "points_total" when points are
/// missing. A whole, complete sweep without skipped points has exactly config::results_json's bytes.
std::string sweep_results_json(const SweepInfo& info, const std::vector<RunResult>& runs, bool partial,
                               std::size_t points_total);

/// The folder of a running sweep.
class SweepFolder {
 public:
  /// `out` has been checked; `effective` is (file name, text) of the effective configuration and
  /// `other_effective` the other format's name (removed as stale). `done` are points read back by
  /// --resume from this folder (`resumed`: it already holds this sweep, so its records are kept;
  /// otherwise the folder's earlier records are removed at the first save).
  SweepFolder(OutputDir& out, SweepInfo info, std::pair<std::string, std::string> effective,
              std::string other_effective, std::map<std::size_t, RunResult> done, bool resumed);

  /// Points of this folder (its shard's), in order.
  const std::vector<std::size_t>& mine() const { return mine_; }
  const std::map<std::size_t, RunResult>& done() const { return done_; }
  bool complete() const { return done_.size() == mine_.size(); }
  /// Saves a finished point at once; rewrites the partial results now and then (at most every 2 s).
  void save(std::size_t point, const RunResult& r);
  /// Writes results.json, results.csv (or results.partial.csv) and the effective configuration. Does
  /// nothing when no point was saved in this folder and none was read back.
  void write_results();
  /// The runs in point order.
  std::vector<RunResult> runs() const;

 private:
  void adopt();  ///< the first save: the folder now belongs to this sweep

  OutputDir& out_;
  SweepInfo info_;
  std::pair<std::string, std::string> effective_;
  std::string other_effective_;
  std::vector<std::size_t> mine_;
  std::map<std::size_t, RunResult> done_;
  bool adopted_ = false;
  double last_write_ = -1;  ///< steady-clock seconds of the last partial rewrite
};

}  // namespace ciosim::app
