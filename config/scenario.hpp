// Scenarios: a TOML file of parameters (params.hpp) plus `--set key=value` overrides, validated and
// expanded into one RunSpec per sweep point (docs/architecture.md, "One run, end to end").
//
//   name = "quickstart"                  # optional; default: the file's stem. [A-Za-z0-9._-]
//   description = "..."                  # optional
//   [run]       algorithm = ["iec", "block"]   ranks = 4   platform = "quickstart"
//   [workload]  nx = 1048576   bx = [1, 64]
//   [network]   mpi = "myrinet"
//   [platforms.NAME]  (optional) an inline platform file; run.platform = "NAME" then uses it
//
// run.platform is a platform name (platforms/NAME.toml in the data directories, or an inline
// [platforms.NAME] table) or a path to a .toml file: relative to the scenario file when written there,
// to the current directory when given by --set.
//
// An array is a sweep; points are the cartesian product in the order parameters are declared, the last
// declared key varying fastest. Every problem (unknown key, wrong type, out-of-range value, unknown name,
// ranks above the platform's cores, a workload the technique cannot run) is a one-line ConfigError,
// raised here before anything runs.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "config/resources.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

/// Where a parameter's value comes from.
enum class Origin {
  Default,   ///< the parameter's declared default
  Platform,  ///< the platform file's value (network.*, pvfs.*, platform.*)
  Scenario,  ///< the scenario file
  Set        ///< a --set override
};
const char* origin_name(Origin o);

struct Setting {
  std::string key;
  /// The value, or the sweep's values. For Origin::Platform: the distinct values the points resolved to,
  /// in first-seen order.
  std::vector<Value> values;
  bool sweep = false;  ///< given as an array
  Origin origin = Origin::Default;
};

/// A sweep point the validation pass found impossible (kept only with LoadOptions::keep_going).
struct SkippedPoint {
  std::string point;   ///< "point 3 of 8 (run.algorithm=iec, workload.bx=3)"
  std::string reason;  ///< why it cannot run
};

struct Scenario {
  std::string name;
  std::string description;
  std::vector<Setting> settings;  ///< every parameter, in declaration order
  /// Each distinct run.platform value and the platform it designates (as loaded, before per-run
  /// overrides), in first-seen order.
  std::vector<std::pair<std::string, PlatformFile>> platforms;
  std::vector<RunSpec> runs;          ///< one per sweep point, in sweep order
  std::vector<SkippedPoint> skipped;  ///< infeasible points left out (LoadOptions::keep_going)
};

struct LoadOptions {
  std::vector<std::string> sets;                 ///< "key=value", applied in order (last wins)
  std::vector<std::filesystem::path> data_dirs;  ///< searched for platforms/NAME.toml
  bool check_techniques = true;                  ///< build each distinct distribution and check() it
  /// Points that cannot run are left out of `runs` and listed in `skipped` instead of refused. Either
  /// way every bad point is found (the refusal names them all, up to kMaxNamedBadPoints).
  bool keep_going = false;
  /// A point whose memory estimate exceeds this is a bad point (config/point_checks.hpp); bytes = 0: none.
  MemoryLimit memory;
  /// A point whose estimated work (config/work_estimate.hpp) exceeds this is a bad point; 0: no bound.
  double max_work = 0;
};

/// How many bad points a refusal names before "and N more".
inline constexpr std::size_t kMaxNamedBadPoints = 5;

/// Reads, validates and expands a scenario file. Throws ConfigError.
Scenario load_scenario(const std::filesystem::path& file, const LoadOptions& opt);
/// The same from TOML text; `origin` names it in messages and gives the default name (its stem).
Scenario parse_scenario(std::string_view toml_text, const std::string& origin, const LoadOptions& opt);

/// "run.algorithm=iec, workload.bx=4" (the point's params), or "" when it has none.
std::string point_label(const RunSpec& spec);

/// The effective configuration: every parameter with the value(s) used (defaults included, a comment
/// saying where each comes from) and the platforms as inline [platforms.NAME] tables. It is itself a
/// valid scenario that reproduces the same runs.
std::string effective_config_toml(const Scenario& s);
/// The same as JSON: {"name", "description", "parameters": {key: {"value", "from"}}, "platforms": {...}}.
std::string effective_config_json(const Scenario& s);

}  // namespace ciosim::config
