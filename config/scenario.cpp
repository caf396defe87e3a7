#include "config/scenario.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "algorithms/replay.hpp"
#include "algorithms/sequence.hpp"
#include "algorithms/technique.hpp"
#include "config/input_files.hpp"
#include "config/point_checks.hpp"
#include "config/profile_values.hpp"
#include "config/trace_replay.hpp"
#include "config/workload.hpp"
#include "version.hpp"

namespace ciosim::config {

const char* origin_name(Origin o) {
  switch (o) {
    case Origin::Default:
      return "default";
    case Origin::Platform:
      return "platform";
    case Origin::Scenario:
      return "scenario";
    case Origin::Set:
      return "--set";
  }
  return "?";
}

namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMaxPoints = 100000;

struct Given {
  std::vector<Value> values;
  bool sweep = false;
  Origin origin = Origin::Scenario;
};

std::string expected(const Param& p) {
  if (p.type == ParamType::Real) return "a number" + (p.unit.empty() ? std::string() : " (" + p.unit + ")");
  if (!p.numeric()) return "a string";
  return "an integer" + (p.unit.empty() ? std::string() : " (" + p.unit + ")");
}

Value to_value(const toml::node& n, const Param& p, const std::string& where) {
  // An enum choice that reads as a number (hints.romio_version = 2007) is its text.
  if (n.is_integer() && p.type == ParamType::Enum) return std::to_string(*n.value<std::int64_t>());
  // A Real given as an integer (disk_write_Bps = 50000000) is that number.
  if (p.type == ParamType::Real && (n.is_integer() || n.is_floating_point())) return *n.value<double>();
  if (n.is_integer()) return *n.value<std::int64_t>();
  if (n.is_string()) return *n.value<std::string>();
  if (n.is_array() || n.is_table())
    throw ConfigError(where + p.key + ": a sweep's values must be plain values, got " + toml_type(n));
  throw ConfigError(where + p.key + " must be " + expected(p) + ", got " + toml_type(n));
}

Given given_from(const toml::node& n, const Param& p, const std::string& where, Origin origin) {
  Given g;
  g.origin = origin;
  if (const auto* arr = n.as_array()) {
    g.sweep = true;
    if (arr->empty())
      throw ConfigError(where + p.key + " is an empty list; a sweep needs at least one value");
    for (const auto& e : *arr) g.values.push_back(to_value(e, p, where));
  } else {
    g.values.push_back(to_value(n, p, where));
  }
  for (const auto& v : g.values) {
    try {
      check_value(p, v);
    } catch (const ConfigError& e) {
      throw ConfigError(where + e.what());
    }
  }
  return g;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

/// A --set value as TOML: `4`, `[1, 2]`, `"x"`; failing that a bare string `fast-ethernet` or a list of
/// bare items `[iec, block]`. Returned as table {v = value}.
toml::table set_value(const std::string& text) {
  const auto as_toml = [](const std::string& t, toml::table& out) {
    if (t.find_first_of("\n\r") != std::string::npos) return false;
    try {
      out = toml::parse("v = " + t);
      return out.size() == 1 && out.contains("v");
    } catch (const toml::parse_error&) {
      return false;
    }
  };
  toml::table t;
  if (as_toml(text, t)) return t;
  t = toml::table{};
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    toml::array arr;
    std::stringstream items(text.substr(1, text.size() - 2));
    for (std::string item; std::getline(items, item, ',');) {
      item = trim(item);
      toml::table one;
      if (as_toml(item, one))
        arr.push_back(*one.get("v"));
      else
        arr.push_back(item);
    }
    t.insert("v", std::move(arr));
  } else {
    t.insert("v", text);
  }
  return t;
}

void check_name(const std::string& name, const std::string& where) {
  bool ok = !name.empty() && name != "." && name != ".." && std::isalnum(static_cast<unsigned char>(name[0]));
  for (char c : name)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
  if (!ok)
    throw ConfigError(where + "scenario name " + quote(name) +
                      " is not valid: use letters, digits, '.', '_' and '-' (it names the output directory "
                      "results/NAME); set name = \"...\" in the scenario");
}

std::vector<std::string> table_names(const std::vector<Param>& params) {
  std::vector<std::string> out;
  for (const auto& p : params) {
    const std::string t = p.key.substr(0, p.key.find('.'));
    if (out.empty() || out.back() != t) out.push_back(t);
  }
  return out;
}

std::vector<std::string> keys_in(const std::vector<Param>& params, const std::string& table) {
  std::vector<std::string> out;
  for (const auto& p : params)
    if (p.key.starts_with(table + ".")) out.push_back(p.key);
  return out;
}

std::string valid_top_level(const std::vector<Param>& params) {
  std::string out = "name, description";
  for (const auto& t : table_names(params)) out += ", [" + t + "]";
  return out + ", [platforms.NAME]";
}

std::string readable_techniques() {
  std::vector<std::string> names;
  for (const auto& t : techniques())
    if (t.read) names.push_back(t.name);
  return join(names);
}

/// Expands the given values into points and builds their RunSpecs.
class Expander {
 public:
  Expander(const std::vector<Param>& params, const std::map<std::string, Given>& given,
           std::vector<std::pair<std::string, PlatformFile>> inline_platforms, const LoadOptions& opt,
           fs::path base_dir)
      : params_(params),
        given_(given),
        inline_(std::move(inline_platforms)),
        opt_(opt),
        base_dir_(std::move(base_dir)) {}

  void run(Scenario& s) {
    std::vector<std::vector<Value>> axes;  // per parameter: its values (empty: from the platform)
    std::int64_t total = 1;
    for (const auto& p : params_) {
      if (auto it = given_.find(p.key); it != given_.end())
        axes.push_back(it->second.values);
      else if (p.default_value)
        axes.push_back({*p.default_value});
      else
        axes.emplace_back();
      if (!axes.back().empty()) total *= static_cast<std::int64_t>(axes.back().size());
      if (total > kMaxPoints)
        throw ConfigError("the sweep has more than " + std::to_string(kMaxPoints) + " points; split it up");
    }
    std::vector<std::size_t> idx(params_.size(), 0);
    for (std::int64_t point = 0; point < total; ++point) {
      std::map<std::string, Value> v;
      for (std::size_t i = 0; i < params_.size(); ++i)
        if (!axes[i].empty()) v[params_[i].key] = axes[i][idx[i]];
      try {
        if (std::optional<RunSpec> r = build(v, point, total, s)) s.runs.push_back(std::move(*r));
      } catch (const ConfigError& e) {  // every bad point is found, not only the first
        if (total == 1) throw;
        std::string msg = e.what(), where = where_;
        if (msg.rfind(where, 0) == 0) msg = msg.substr(where.size());
        if (where.size() >= 2) where.resize(where.size() - 2);  // without the ": "
        s.skipped.push_back({where, msg});
      }
      for (std::size_t i = params_.size(); i-- > 0;) {  // odometer: the last key varies fastest
        if (axes[i].empty()) continue;
        if (++idx[i] < axes[i].size()) break;
        idx[i] = 0;
      }
    }
    if (!s.skipped.empty() && (!opt_.keep_going || s.runs.empty())) refuse_bad_points(s, total);
    for (const auto& p : params_) {
      Setting set{p.key, {}, false, Origin::Default};
      if (auto it = given_.find(p.key); it != given_.end()) {
        set.values = it->second.values;
        set.sweep = it->second.sweep;
        set.origin = it->second.origin;
      } else if (p.default_value) {
        set.values = {*p.default_value};
      } else {
        set.values = resolved_[p.key];
        set.origin = Origin::Platform;
      }
      if (set.origin == Origin::Scenario || set.origin == Origin::Set) absolute_paths(set);
      s.settings.push_back(std::move(set));
    }
    for (const auto& inline_platform : inline_) {  // (clang 14 cannot capture a structured binding)
      const std::string& name = inline_platform.first;
      if (std::find_if(s.platforms.begin(), s.platforms.end(), [&](auto& e) { return e.first == name; }) ==
          s.platforms.end())
        throw ConfigError("[platforms." + name + "] is defined but no point uses it (run.platform)");
    }
  }

 private:
  bool is_given(const std::string& key) const { return given_.count(key) > 0; }

  /// A file a workload reads, as the point resolved it, absolute: the effective configuration then finds
  /// it wherever it is saved.
  void absolute_paths(Setting& set) const {
    if (set.key != "workload.file" && set.key != "workload.partition" && set.key != "workload.graph") return;
    for (Value& v : set.values) {
      const std::string path = std::get<std::string>(v);
      if (path.empty() || fs::path(path).is_absolute()) continue;
      v = fs::absolute(set.origin == Origin::Scenario ? base_dir_ / path : fs::path(path))
              .lexically_normal()
              .string();
    }
  }

  const PlatformFile& platform(const std::string& value, Scenario& s) {
    for (const auto& [name, pf] : s.platforms)
      if (name == value) return pf;
    for (const auto& [name, pf] : inline_)
      if (name == value) return s.platforms.emplace_back(value, pf).second;
    // A relative path written in the scenario file is relative to that file; one given by --set, to the
    // current directory.
    std::string where = value;
    if (is_platform_path(value) && fs::path(value).is_relative() &&
        given_.at("run.platform").origin == Origin::Scenario)
      where = (base_dir_ / value).string();
    PlatformFile pf = load_platform_file(resolve_platform(where, opt_.data_dirs));
    return s.platforms.emplace_back(value, std::move(pf)).second;
  }

  void resolve(const std::string& key, Value v) {
    auto& list = resolved_[key];
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(std::move(v));
  }

  /// network.mpi_* / network.io_*: a profile value set for the point's MPI or I/O network changes a copy of
  /// the profile, registered with the point's platform under the same name (looked up before the built-in
  /// ones). When both roles use one profile (one physical network), both see the change, and setting the
  /// two roles to different values is an error.
  void apply_profile_values(const std::map<std::string, Value>& v, RunSpec& r, const std::string& where) {
    for (const std::string role : {"mpi", "io"}) {
      const std::string& name = role == "mpi" ? r.network_mpi : r.network_io;
      NetworkProfile prof = network_profile(name, r.platform.networks);
      for (const ProfileValue& f : profile_values()) {
        const std::string key = "network." + role + "_" + f.field;
        if (is_given(key)) {
          const std::string other = "network." + std::string(role == "mpi" ? "io" : "mpi") + "_" + f.field;
          if (r.network_mpi == r.network_io && is_given(other) && v.at(key) != v.at(other))
            throw ConfigError(where + key + " and " + other +
                              " differ, but the MPI and the I/O traffic share "
                              "one network, " +
                              quote(name) + "; give them one value");
          f.set(prof, v.at(key));
        }
        resolve(key, f.get(prof));
      }
      auto& nets = r.platform.networks;
      auto it =
          std::find_if(nets.begin(), nets.end(), [&](const NetworkProfile& p) { return p.name == name; });
      if (it == nets.end())
        nets.push_back(std::move(prof));
      else
        *it = std::move(prof);
    }
  }

  /// The point's RunSpec, or nothing when the point repeats an earlier one for its technique (a run.phases
  /// sweep point of a technique that ignores run.phases runs once, at the sweep's first value).
  std::optional<RunSpec> build(const std::map<std::string, Value>& v, std::int64_t point, std::int64_t total,
                               Scenario& s) {
    where_.clear();
    const auto str = [&](const char* k) { return std::get<std::string>(v.at(k)); };
    const auto num = [&](const char* k) { return std::get<std::int64_t>(v.at(k)); };
    RunSpec r;
    r.algorithm = str("run.algorithm");
    // run.phases only exists for the techniques that use it: the others run once, at its first value.
    const bool phases_unused = !technique(r.algorithm).check_phases && is_given("run.phases");
    if (phases_unused && v.at("run.phases") != given_.at("run.phases").values.front()) return std::nullopt;
    for (const auto& p : params_) {
      auto it = given_.find(p.key);
      if (it != given_.end() && (it->second.sweep || it->second.origin == Origin::Set) &&
          !(phases_unused && p.key == "run.phases"))
        r.params.emplace_back(p.key, value_text(v.at(p.key)));
    }
    const std::string label = point_label(r);
    const std::string where = total > 1
                                  ? "point " + std::to_string(point + 1) + " of " + std::to_string(total) +
                                        (label.empty() ? "" : " (" + label + ")") + ": "
                                  : "";
    where_ = where;
    r.ranks = static_cast<int>(num("run.ranks"));
    r.phases = phases_unused ? 0 : static_cast<int>(num("run.phases"));
    r.iterations = static_cast<int>(num("run.iterations"));
    const std::string pname = str("run.platform");
    r.platform = platform(pname, s).spec;
    const auto override_int = [&](const char* key, auto& field) {
      if (is_given(key)) field = static_cast<std::remove_reference_t<decltype(field)>>(num(key));
      resolve(key, static_cast<std::int64_t>(field));
    };
    for (const PlatformKey& k : platform_keys()) {
      if (!describes_key(r.platform, k)) {
        if (is_given(k.key))
          throw ConfigError(where + k.key + " is set, but platform " + quote(pname) + " has no [" + k.table +
                            "] table; it describes: " + join(r.platform.filesystems));
        continue;
      }
      if (is_given(k.key)) set_platform_value(r.platform, k, v.at(k.key));
      const Value own = platform_value(r.platform, k);
      // A value the platform does not give (NaN: a step's cost per tuple, nodes.memory_Bps): the model uses
      // its stand-in key (PlatformKey::stands_in), and the effective configuration leaves it out as the
      // platform file does.
      if (not_given(own)) continue;
      resolve(k.key, own);
    }
    override_int("platform.nodes", r.platform.nodes);
    override_int("platform.cores_per_node", r.platform.cores_per_node);
    override_int("platform.cpu_cores", r.platform.cpu_cores);
    if (is_given("platform.filesystem")) r.platform.filesystem = str("platform.filesystem");
    resolve("platform.filesystem", r.platform.filesystem);
    check_file_system(r.platform, where);
    r.network_mpi = is_given("network.mpi") ? str("network.mpi") : r.platform.network_mpi;
    r.network_io = is_given("network.io") ? str("network.io") : r.platform.network_io;
    r.platform.network_mpi = r.network_mpi;
    r.platform.network_io = r.network_io;
    resolve("network.mpi", r.network_mpi);
    resolve("network.io", r.network_io);
    for (const std::string* n : {&r.network_mpi, &r.network_io}) {
      try {
        (void)network_profile(*n, r.platform.networks);
      } catch (const std::invalid_argument& e) {
        throw ConfigError(where + "platform " + quote(pname) + ": " + one_line(e.what()));
      }
    }
    apply_profile_values(v, r, where);
    r.workload.kind = str("workload.kind");
    if (const std::string preset = str("workload.preset"); preset != "none") {
      const Stem2Preset& p = stem2_preset(preset);
      r.workload.nx = p.nx;
      r.workload.ny = p.ny;
      r.workload.nz = p.nz;
      r.workload.nl = p.nl;
      r.workload.nchem = p.nchem;
    } else {
      r.workload.nx = v.count("workload.nx") ? num("workload.nx") : 0;  // btio, tile: derived
      r.workload.ny = num("workload.ny");
      r.workload.nz = num("workload.nz");
      r.workload.nl = num("workload.nl");
      r.workload.nchem = num("workload.nchem");
    }
    r.workload.bx = num("workload.bx");
    r.workload.element_size = num("workload.element_size");
    r.workload.seed = static_cast<std::uint64_t>(num("workload.seed"));
    r.workload.file = str("workload.file");
    r.workload.replay = str("workload.replay");
    r.workload.partition = str("workload.partition");
    r.workload.graph = str("workload.graph");
    r.workload.load = num("workload.load");
    r.workload.btio_class = str("workload.class");
    r.workload.mflops = num("workload.mflops");
    r.workload.tiles_x = num("workload.tiles_x");
    r.workload.tiles_y = num("workload.tiles_y");
    r.workload.tile_x = num("workload.tile_x");
    r.workload.tile_y = num("workload.tile_y");
    r.workload.overlap_x = num("workload.overlap_x");
    r.workload.overlap_y = num("workload.overlap_y");
    r.workload.header_bytes = num("workload.header_bytes");
    r.access = str("run.access") == "read" ? Access::Read : Access::Write;
    r.cpu_charge = str("run.cpu_charge") == "paper"     ? CpuCharge::paper
                   : str("run.cpu_charge") == "library" ? CpuCharge::library
                                                        : CpuCharge::implementation;
    r.payload = str("run.payload") == "bytes"    ? PayloadChoice::Bytes
                : str("run.payload") == "elided" ? PayloadChoice::Elided
                                                 : PayloadChoice::Auto;
    r.sequence = str("run.sequence");
    check_sequence_key(r, where);
    r.hints.cb_buffer_size = num("hints.cb_buffer_size");
    r.hints.cb_nodes = static_cast<int>(num("hints.cb_nodes"));
    r.hints.cb_config_list = str("hints.cb_config_list");
    r.hints.cb_write = cb_mode_from_name(str("hints.romio_cb_write"));
    r.hints.cb_read = cb_mode_from_name(str("hints.romio_cb_read"));
    r.hints.striping_unit = num("hints.striping_unit");
    r.hints.version = romio_version_from_name(str("hints.romio_version"));
    r.hints.listio_batch = static_cast<int>(num("hints.listio_batch"));
    r.hints.lap = lap_criterion_from_name(str("hints.lap"));
    r.hints.vb_buffer_size = num("hints.vb_buffer_size");
    r.hints.vb_pool_size = num("hints.vb_pool_size");
    r.hints.vb_aggregators = static_cast<int>(num("hints.vb_aggregators"));
    r.hints.vb_network_buffer = num("hints.vb_network_buffer");
    try {
      check_hints(r.hints);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(where + e.what());
    }
    if (!r.workload.file.empty() && fs::path(r.workload.file).is_relative() &&
        given_.at("workload.file").origin == Origin::Scenario)
      r.workload.file = (base_dir_ / r.workload.file).string();
    if (!r.workload.partition.empty() && fs::path(r.workload.partition).is_relative() &&
        given_.at("workload.partition").origin == Origin::Scenario)
      r.workload.partition = (base_dir_ / r.workload.partition).string();
    if (!r.workload.graph.empty() && fs::path(r.workload.graph).is_relative() &&
        given_.at("workload.graph").origin == Origin::Scenario)
      r.workload.graph = (base_dir_ / r.workload.graph).string();
    if (r.cpu_charge == CpuCharge::library &&
        (r.algorithm != "two-phase" || (r.hints.lap != LapCriterion::None && r.access == Access::Write)))
      throw ConfigError(where +
                        "run.cpu_charge = \"library\" is the MPI library's own collective I/O, ROMIO's "
                        "two-phase without LAP; set run.algorithm = \"two-phase\" and hints.lap = \"none\", "
                        "or run.cpu_charge = \"implementation\"");
    if (r.cpu_charge == CpuCharge::library && !(r.platform.romio_piece_s > 0))
      throw ConfigError(where +
                        "run.cpu_charge = \"library\" needs nodes.romio_piece_s, the MPI library's "
                        "cost per piece an aggregator receives, which platform " +
                        quote(pname) +
                        " does not give: measure it with `ciosim calibrate`, or set it "
                        "(--set nodes.romio_piece_s=SECONDS)");
    if (r.hints.lap != LapCriterion::None && r.access == Access::Read && r.algorithm == "two-phase")
      throw ConfigError(
          where + "hints.lap = " + quote(lap_criterion_name(r.hints.lap)) +
          " applies to two-phase writes only; use run.access = \"write\" or hints.lap = \"none\"");

    const std::int64_t cores = std::int64_t{r.platform.nodes} * r.platform.cores_per_node;
    if (r.ranks > cores)
      throw ConfigError(where + "run.ranks = " + std::to_string(r.ranks) + " exceeds the " +
                        std::to_string(cores) + " cores of platform " + quote(pname) +
                        " (platform.nodes = " + std::to_string(r.platform.nodes) +
                        " x platform.cores_per_node = " + std::to_string(r.platform.cores_per_node) + ")");
    if (r.workload.kind == "mesh" && r.workload.nx > INT64_MAX / r.workload.element_size / r.workload.load)
      throw ConfigError(
          where + "workload.nx x workload.load x workload.element_size = " + std::to_string(r.workload.nx) +
          " x " + std::to_string(r.workload.load) + " x " + std::to_string(r.workload.element_size) +
          " bytes does not fit in a 64-bit file offset");
    if (r.workload.nx > INT64_MAX / r.workload.element_size)
      throw ConfigError(where + "workload.nx x workload.element_size = " + std::to_string(r.workload.nx) +
                        " x " + std::to_string(r.workload.element_size) +
                        " bytes does not fit in a 64-bit file offset");
    if (r.payload == PayloadChoice::Elided)
      if (const std::string why =
              why_not_elided(technique(r.algorithm), !r.sequence.empty() || replays_calls(r.workload));
          !why.empty())
        throw ConfigError(where + "run.payload = \"elided\" cannot be used here: " + why +
                          "; use run.payload = \"bytes\" or \"auto\"");
    if (const auto& check = technique(r.algorithm).check_phases)
      if (const std::string why = check(r.phases, r.ranks); !why.empty()) throw ConfigError(where + why);
    // Before any per-entry work: the work and memory estimates from the workload's size, the aggregators.
    if (const std::string why = check_point(r, opt_.memory, opt_.max_work); !why.empty())
      throw ConfigError(where + why);
    if (opt_.check_techniques) check_technique(r, where);
    return r;
  }

  /// run.sequence: parsed and checked here (before anything runs), exclusive with the keys it generalises;
  /// compute:workload resolved from the workload.
  static void check_sequence_key(RunSpec& r, const std::string& where) {
    if (replays_calls(r.workload)) {
      // The capture is the sequence: its calls, reads and computation are the application's own.
      const char* other = !r.sequence.empty()        ? "run.sequence"
                          : r.iterations != 1        ? "run.iterations"
                          : r.access == Access::Read ? "run.access = \"read\""
                                                     : nullptr;
      if (other)
        throw ConfigError(where + other +
                          " and a trace replayed call by call both given: the capture is the sequence of "
                          "calls (its reads, writes and computation); drop " +
                          other + ", or set workload.replay = \"union\"");
    }
    if (r.sequence.empty()) return;
    if (r.iterations != 1)
      throw ConfigError(where + "run.iterations = " + std::to_string(r.iterations) +
                        " and run.sequence both given: repeat the writes in the sequence, e.g. (write)*" +
                        std::to_string(r.iterations));
    if (r.access == Access::Read)
      throw ConfigError(where +
                        "run.access = \"read\" and run.sequence both given: put the reads in the "
                        "sequence (e.g. \"open read close\")");
    try {
      if (r.workload.kind == "btio") r.workload_compute_s = btio_compute_s(r.workload, r.ranks);
      prepare_sequence(r.sequence, &technique(r.algorithm), r.workload.element_size, r.workload_compute_s,
                       r.workload.kind);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(where + e.what());
    }
  }

  static std::string tile_key(const WorkloadSpec& w) {
    std::string k;
    for (const std::int64_t x :
         {w.tiles_x, w.tiles_y, w.tile_x, w.tile_y, w.overlap_x, w.overlap_y, w.header_bytes, w.element_size})
      k += std::to_string(x) + "|";
    return k;
  }

  /// One line naming every bad point (up to kMaxNamedBadPoints); a single one keeps its own message.
  static void refuse_bad_points(const Scenario& s, std::int64_t total) {
    const auto& bad = s.skipped;
    if (bad.size() == 1 && !s.runs.empty()) throw ConfigError(bad[0].point + ": " + bad[0].reason);
    std::string msg = std::to_string(bad.size()) + " of " + std::to_string(total) + " points cannot run";
    msg += s.runs.empty() ? " (no point can)" : " (--keep-going skips them)";
    for (std::size_t i = 0; i < bad.size() && i < kMaxNamedBadPoints; ++i)
      msg += (i ? "; " : ": ") + bad[i].point + ": " + bad[i].reason;
    if (bad.size() > kMaxNamedBadPoints)
      msg += "; and " + std::to_string(bad.size() - kMaxNamedBadPoints) +
             " more (ciosim run --dry-run --keep-going lists every one)";
    throw ConfigError(msg);
  }

  /// "" when the point's technique can run its workload's distribution (built exactly as sim::simulate
  /// builds it), else why not.
  std::string distribution_reason(const RunSpec& r) const {
    const Distribution d = make_distribution(r.workload, r.ranks);
    const TechniqueInfo& t = technique(r.algorithm);
    std::string reason =
        check_point_memory(r, d, opt_.memory);  // the kinds whose size needs the distribution
    if (const std::string why = reason.empty() ? t.check(d) : ""; !why.empty())
      reason = "technique " + r.algorithm + " cannot run this workload: " + why;
    if (reason.empty() && r.access == Access::Read && !t.read)
      reason = "technique " + r.algorithm + " has no read path (run.access = \"read\" works with " +
               readable_techniques() + ")";
    return reason;
  }

  /// The same for a trace replayed call by call: the capture read as sim::simulate reads it, every shape of
  /// its collective calls within the memory the point may use and served by the technique.
  std::string replay_reason(const RunSpec& r) const {
    const Replay rep = replay_from_capture(r.workload.file, r.ranks, r.workload.element_size);
    for (const Distribution& d : rep.shapes)
      if (std::string why = check_point_memory(r, d, opt_.memory); !why.empty()) return why;
    if (std::string why = replay_refusal(technique(r.algorithm), rep); !why.empty()) return why;
    if (r.algorithm == "two-phase" && r.hints.lap != LapCriterion::None)
      for (std::size_t k = 0; k < rep.steps.size(); ++k)
        if (!rep.steps[k].write)
          return "hints.lap = " + quote(lap_criterion_name(r.hints.lap)) +
                 " applies to two-phase writes only, and collective call " + std::to_string(k + 1) + " (" +
                 rep.steps[k].name + ") reads; use hints.lap = \"none\"";
    return "";
  }

  void check_technique(const RunSpec& r, const std::string& where) {
    const auto& w = r.workload;
    const std::string key =
        r.algorithm + "|" + (r.access == Access::Read ? "r" : "w") + "|" + w.kind + "|" +
        std::to_string(w.nx) + "|" + std::to_string(r.ranks) + "|" +
        (w.kind == "irregular" ? std::to_string(w.seed)
         : w.kind == "lists"   ? w.file
         : w.kind == "trace"   ? w.file + "|" + w.replay + "|" + lap_criterion_name(r.hints.lap)
         : w.kind == "block3d" ? std::to_string(w.ny) + "x" + std::to_string(w.nz)
         : w.kind == "stem2"   ? std::to_string(w.ny) + "x" + std::to_string(w.nz) + "x" +
                                   std::to_string(w.nl) + "x" + std::to_string(w.nchem)
         : w.kind == "mesh" ? w.partition + "|" + w.graph + "|" + std::to_string(w.load)
         : w.kind == "btio" ? w.btio_class + "|" + std::to_string(w.element_size)
         : w.kind == "tile" ? tile_key(w)
                            : std::to_string(w.bx)) +
        "|" + std::to_string(r.platform.nodes) + "|" + std::to_string(w.element_size);
    auto it = checked_.find(key);
    if (it == checked_.end()) {
      std::string reason;
      try {
        reason = replays_calls(w) ? replay_reason(r) : distribution_reason(r);
      } catch (const std::invalid_argument& e) {
        reason = "workload " + w.kind + ": " + one_line(e.what());
      } catch (const std::bad_alloc&) {
        reason = out_of_memory_reason(r);
      }
      it = checked_.emplace(key, reason).first;
    }
    if (!it->second.empty()) throw ConfigError(where + it->second);
  }

  const std::vector<Param>& params_;
  const std::map<std::string, Given>& given_;
  std::vector<std::pair<std::string, PlatformFile>> inline_;
  const LoadOptions& opt_;
  fs::path base_dir_;  ///< the scenario file's directory
  std::map<std::string, std::vector<Value>> resolved_;
  std::map<std::string, std::string> checked_;
  std::string where_;  ///< the point being built, as named in its errors ("point 3 of 8 (...): ")
};

}  // namespace

Scenario parse_scenario(std::string_view toml_text, const std::string& origin, const LoadOptions& opt) {
  const toml::table doc = parse_toml(toml_text, origin);

  std::vector<std::pair<std::string, PlatformFile>> inline_platforms;
  std::vector<std::string> names;
  if (const toml::node* pt = doc.get("platforms")) {
    if (!pt->is_table())
      throw ConfigError(at(origin, *pt) + "platforms must be a table of [platforms.NAME] tables, got " +
                        toml_type(*pt));
    for (auto&& [k, node] : *pt->as_table()) {
      const std::string name(k.str());
      if (!node.is_table())
        throw ConfigError(at(origin, node) + "platforms." + name + " must be a table (a platform), got " +
                          toml_type(node));
      inline_platforms.emplace_back(
          name, platform_from_table(*node.as_table(), origin + " [platforms." + name + "]"));
      names.push_back(name);
    }
  }
  for (auto& n : platform_names(opt.data_dirs))
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
  std::vector<Param> params = parameters(names);
  // The inline platforms' own network profiles are valid network.mpi/io values too (a saved effective
  // configuration names them); whether a point's platform defines the name is checked when it is built.
  for (auto& p : params)
    if (p.key == "network.mpi" || p.key == "network.io")
      for (const auto& [name, pf] : inline_platforms)
        for (const auto& n : pf.spec.networks)
          if (std::find(p.choices.begin(), p.choices.end(), n.name) == p.choices.end())
            p.choices.push_back(n.name);
  const std::vector<std::string> tables = table_names(params);

  Scenario s;
  s.name = fs::path(origin).stem().string();
  std::map<std::string, Given> given;
  // Keys that --set replaces: the scenario's own value is not used, so it is not checked either (a
  // scenario naming a platform this machine lacks still runs with --set run.platform=...).
  std::set<std::string> overridden;
  for (const auto& set : opt.sets)
    if (const auto eq = set.find('='); eq != std::string::npos) overridden.insert(trim(set.substr(0, eq)));
  for (auto&& [k, node] : doc) {
    const std::string key(k.str());
    const std::string where = at(origin, node);
    if (key == "name" || key == "description") {
      if (!node.is_string()) throw ConfigError(where + key + " must be a string, got " + toml_type(node));
      (key == "name" ? s.name : s.description) = *node.value<std::string>();
    } else if (key == "platforms") {
      continue;
    } else if (std::find(tables.begin(), tables.end(), key) != tables.end()) {
      if (!node.is_table())
        throw ConfigError(where + "[" + key + "] must be a table, got " + toml_type(node));
      for (auto&& [k2, value] : *node.as_table()) {
        const std::string dotted = key + "." + std::string(k2.str());
        const Param* p = find_param(params, dotted);
        if (!p)
          throw ConfigError(at(origin, value) + "unknown key " + dotted + " in [" + key +
                            "]; valid keys: " + join(keys_in(params, key)));
        if (!overridden.count(dotted))
          given[dotted] = given_from(value, *p, at(origin, value), Origin::Scenario);
      }
    } else {
      throw ConfigError(where + "unknown key " + key + "; valid: " + valid_top_level(params));
    }
  }

  for (const auto& set : opt.sets) {
    const auto eq = set.find('=');
    const std::string key = trim(set.substr(0, eq));
    if (eq == std::string::npos || key.empty())
      throw ConfigError("--set " + quote(set) + ": expected key=value, e.g. --set workload.bx=4");
    const std::string text = trim(set.substr(eq + 1));
    const std::string where = "--set " + key + "=" + text + ": ";
    if (text.empty()) throw ConfigError(where + "missing value");
    const toml::table t = set_value(text);
    const toml::node& node = *t.get("v");
    if (key == "name" || key == "description") {
      if (!node.is_string()) throw ConfigError(where + key + " must be a string, got " + toml_type(node));
      (key == "name" ? s.name : s.description) = *node.value<std::string>();
      continue;
    }
    if (!find_param(params, key)) {
      std::vector<std::string> keys{"name", "description"};
      for (const auto& p : params) keys.push_back(p.key);
      throw ConfigError("--set: unknown key '" + key + "'; valid keys: " + join(keys));
    }
    given[key] = given_from(node, param(params, key), where, Origin::Set);
  }

  check_name(s.name, origin + ": ");
  std::vector<std::string> missing;
  // A preset gives workload.nx and the other extents (checked below).
  const auto none = Value{std::string("none")};
  const bool preset =
      given.count("workload.preset") > 0 &&
      std::find(given["workload.preset"].values.begin(), given["workload.preset"].values.end(), none) ==
          given["workload.preset"].values.end();
  if (given.count("workload.preset") && !preset && given["workload.preset"].values.size() > 1)
    throw ConfigError(
        "workload.preset sweeps \"none\" together with presets; sweep presets only, or give the "
        "extents (workload.nx, ny, nz, nl, nchem) in a separate scenario");
  const auto& kind_values = given.count("workload.kind")
                                ? given["workload.kind"].values
                                : std::vector<Value>{*param(params, "workload.kind").default_value};
  const bool derived_nx = std::all_of(kind_values.begin(), kind_values.end(), [](const Value& k) {
    return kind_sets_nx(std::get<std::string>(k));
  });  // btio and tile size x from their own keys
  for (const auto& p : params)
    if (p.required() && !given.count(p.key) && !((preset || derived_nx) && p.key == "workload.nx"))
      missing.push_back(p.key + " (" + p.help + ")");
  if (!missing.empty())
    throw ConfigError(origin + ": missing required parameter" + (missing.size() > 1 ? "s " : " ") +
                      join(missing, "; "));

  const auto& kinds = given.count("workload.kind")
                          ? given["workload.kind"].values
                          : std::vector<Value>{*param(params, "workload.kind").default_value};
  const auto uses = [&](const std::string& kind) {
    return std::find(kinds.begin(), kinds.end(), Value{kind}) != kinds.end();
  };
  for (const auto& [key, g] : given) {  // a workload key that no given kind uses is a mistake
    const std::vector<std::string> users = kinds_using(key);
    if (!users.empty() && std::none_of(users.begin(), users.end(), uses))
      throw ConfigError(key + " is given but workload.kind is not " + join(users, " or ") +
                        (users.size() == 1 ? ", the only kind that uses it" : ", the kinds that use it"));
  }
  if (preset) {
    if (!std::all_of(kinds.begin(), kinds.end(),
                     [](const Value& k) { return k == Value{std::string("stem2")}; }))
      throw ConfigError("workload.preset is given but workload.kind is not stem2 at every point");
    for (const char* key : {"workload.nx", "workload.ny", "workload.nz", "workload.nl", "workload.nchem"})
      if (given.count(key))
        throw ConfigError(
            "workload.preset and " + std::string(key) +
            " are both given; the preset sets workload.nx, ny, nz, nl and nchem (give one or the "
            "other)");
  }

  Expander(params, given, std::move(inline_platforms), opt, fs::path(origin).parent_path()).run(s);
  return s;
}

Scenario load_scenario(const fs::path& given, const LoadOptions& opt) {
  std::error_code ec;
  fs::path file = given;
  // A bare name that is no file here is a shipped scenario's: scenarios/NAME.toml in a data directory.
  if (!fs::exists(given, ec) && !given.has_parent_path()) {
    const std::string stem = given.extension() == ".toml" ? given.stem().string() : given.string();
    std::vector<std::string> shipped;
    for (const fs::path& d : opt.data_dirs) {
      const fs::path c = d / "scenarios" / (stem + ".toml");
      if (fs::is_regular_file(c, ec)) {
        file = c;
        break;
      }
      for (const auto& e : fs::directory_iterator(d / "scenarios", ec))
        if (e.path().extension() == ".toml") shipped.push_back(e.path().stem().string());
    }
    if (file == given) {
      std::sort(shipped.begin(), shipped.end());
      shipped.erase(std::unique(shipped.begin(), shipped.end()), shipped.end());
      throw ConfigError("scenario file " + given.string() + " not found, nor is " + stem +
                        " a shipped scenario (" +
                        (shipped.empty() ? std::string("none found") : join(shipped)) + ")");
    }
  }
  if (!fs::is_regular_file(file, ec)) throw ConfigError(not_a_file("scenario file", file));
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) throw ConfigError("cannot read scenario file " + file.string());
  return parse_scenario(text.str(), file.string(), opt);
}

std::string point_label(const RunSpec& spec) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : spec.params) parts.push_back(k + "=" + v);
  return join(parts);
}

namespace {

/// For a platform or network-profile value the scenario sets: "changes platform "uc3m-2007"'s 5e+07
/// (source: ...)" for each platform whose own value differs, so a reader sees which documented values a
/// what-if replaced. "" when the setting changes nothing a platform describes.
std::string changed_note(const Setting& set, const Scenario& s) {
  if (set.origin != Origin::Scenario && set.origin != Origin::Set) return "";
  std::vector<std::string> notes;
  const auto differs = [&](const Value& own) {
    return std::any_of(set.values.begin(), set.values.end(), [&](const Value& v) { return v != own; });
  };
  const auto source_of = [](const PlatformFile& pf, const std::string& key) {
    for (const auto& [k, text] : pf.sources)
      if (k == key + "_source") return " (source: " + text + ")";
    return std::string(" (no source given)");
  };
  for (const auto& [name, pf] : s.platforms) {
    for (const PlatformKey& k : platform_keys()) {
      if (k.key != set.key || !describes_key(pf.spec, k)) continue;
      const Value own = platform_value(pf.spec, k);
      if (not_given(own))
        notes.push_back("platform " + quote(name) + " does not give it: " + k.stands_in + ", " +
                        value_toml(platform_value(pf.spec, platform_key(k.stands_in))) +
                        source_of(pf, k.stands_in));
      else if (differs(own))
        notes.push_back("changes platform " + quote(name) + "'s " + value_toml(own) + source_of(pf, k.key));
    }
    for (const std::string role : {"mpi", "io"})
      for (const ProfileValue& f : profile_values()) {
        if (set.key != "network." + role + "_" + f.field) continue;
        const NetworkProfile& prof =
            network_profile(role == "mpi" ? pf.spec.network_mpi : pf.spec.network_io, pf.spec.networks);
        if (differs(f.get(prof)))
          notes.push_back("changes network profile " + quote(prof.name) + "'s " + value_toml(f.get(prof)) +
                          " (source: " + one_line(prof.source) + ")");
      }
  }
  return join(notes, "; ");
}

}  // namespace

std::string effective_config_toml(const Scenario& s) {
  std::ostringstream out;
  out << "# Effective configuration of scenario " << quote(s.name) << " (ciosim " << kVersion << ").\n"
      << "# Every parameter with the value(s) used; a list is a sweep. The platforms are included as\n"
      << "# loaded, so `ciosim run` on this file reproduces the same runs.\n";
  out << "name = " << quote(s.name) << "\n";
  out << "description = " << quote(s.description) << "\n";
  std::string table;
  for (const auto& set : s.settings) {
    const auto dot = set.key.find('.');
    const std::string t = set.key.substr(0, dot), k = set.key.substr(dot + 1);
    if (t != table) out << "\n[" << (table = t) << "]\n";
    if (set.values.size() > 1 && !set.sweep) {
      std::vector<std::string> vals;
      for (const auto& v : set.values) vals.push_back(value_toml(v));
      out << "# " << k << ": the platform's (differs by platform: " << join(vals) << ")\n";
      continue;
    }
    if (set.values.empty()) continue;
    const auto unused_by_all = [&](const std::string& kind) {
      return std::none_of(s.runs.begin(), s.runs.end(),
                          [&](const RunSpec& r) { return r.workload.kind == kind; });
    };
    if (set.origin == Origin::Default && set.values[0] == Value{std::string()}) {
      out << "# " << k << " = \"\"  # default: none (an empty value cannot be given)\n";
      continue;
    }
    const std::vector<std::string> users = kinds_using(set.key);
    if (set.origin == Origin::Default && !users.empty() &&
        std::all_of(users.begin(), users.end(), unused_by_all)) {
      out << "# " << k << " = " << value_toml(set.values[0]) << "  # default, unused by this workload.kind\n";
      continue;
    }
    const auto preset_given = [&] {
      return !unused_by_all("stem2") &&
             std::any_of(s.settings.begin(), s.settings.end(), [](const Setting& x) {
               return x.key == "workload.preset" && x.origin != Origin::Default;
             });
    };
    if (set.origin == Origin::Default &&
        (set.key == "workload.ny" || set.key == "workload.nz" || set.key == "workload.nl" ||
         set.key == "workload.nchem") &&
        preset_given()) {
      out << "# " << k << " = " << value_toml(set.values[0]) << "  # default, set by workload.preset\n";
      continue;
    }
    std::vector<std::string> vals;
    for (const auto& v : set.values) vals.push_back(value_toml(v));
    // A --set value is written as a one-value sweep so that it stays in the runs' params on reload.
    const bool list = set.sweep || set.origin == Origin::Set;
    out << k << " = " << (list ? "[" + join(vals) + "]" : vals[0]);
    const char* comment = set.origin == Origin::Default    ? "default"
                          : set.origin == Origin::Platform ? "the platform's"
                          : set.origin == Origin::Set      ? "--set"
                                                           : "";
    if (*comment) out << "  # " << comment;
    if (const std::string note = changed_note(set, s); !note.empty())
      out << (*comment ? "; " : "  # ") << note;
    out << "\n";
  }
  for (const auto& [name, pf] : s.platforms) out << "\n" << platform_toml(pf, "platforms." + toml_key(name));
  return out.str();
}

std::string effective_config_json(const Scenario& s) {
  nlohmann::ordered_json j;
  j["ciosim_version"] = kVersion;
  j["name"] = s.name;
  j["description"] = s.description;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& set : s.settings) {
    nlohmann::ordered_json vals = nlohmann::ordered_json::array();
    for (const auto& v : set.values) std::visit([&](const auto& x) { vals.push_back(x); }, v);
    nlohmann::ordered_json e;
    e["value"] = set.sweep || set.values.size() != 1 ? vals : vals[0];
    e["sweep"] = set.sweep;
    e["from"] = origin_name(set.origin);
    if (const std::string note = changed_note(set, s); !note.empty()) e["changes"] = note;
    params[set.key] = std::move(e);
  }
  j["parameters"] = std::move(params);
  nlohmann::ordered_json plats = nlohmann::ordered_json::object();
  for (const auto& [name, pf] : s.platforms) plats[name] = platform_json(pf);
  j["platforms"] = std::move(plats);
  return j.dump(2) + "\n";
}

}  // namespace ciosim::config
