// The scenario parameters, each declared once (name, type, unit, default, range, help; docs/results.md,
// "A scenario"). CLI help, `ciosim list`, validation, sweep expansion, results' typed "params"
// and the saved effective configuration all derive from `parameters()`.
//
// A scenario TOML table maps to dotted keys: `[workload] bx = 4` is `workload.bx`. Any parameter may be
// given as a TOML array: a sweep (cartesian product in declaration order, last key varying fastest).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ciosim::config {

/// Bad input (unknown name, impossible value, malformed or missing file). The message is one line,
/// names the problem and, where there is a fixed set, the valid choices. The CLI exits with code 2.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ParamType {
  Int,     ///< integer that fits an int (counts of ranks, nodes, servers, iterations)
  Size,    ///< 64-bit integer quantity with a unit (entries, bytes); plain integers only
  String,  ///< free text checked by the consumer (run.platform: a platform name or a .toml path)
  Enum,    ///< one of `choices`
  Real     ///< a finite number with a unit (a platform's bandwidths and times); integers are accepted
};
const char* type_name(ParamType t);

/// A parameter value as given: integers for Int/Size, text for String/Enum, a double for Real.
using Value = std::variant<std::int64_t, std::string, double>;
/// `64`, `iec`, `5e+07` (what results' params and CSV cells hold).
std::string value_text(const Value& v);
/// `64`, `"iec"`, `5e+07` (TOML syntax; a Real always reads back as a float).
std::string value_toml(const Value& v);

struct Param {
  std::string key;  ///< dotted: "run.algorithm"
  ParamType type = ParamType::Int;
  std::string unit;                    ///< "" when dimensionless
  std::optional<Value> default_value;  ///< none: required, or taken from the platform
  bool platform_default = false;       ///< the default is the platform file's value
  std::int64_t min = 1;                ///< Int/Size: inclusive range
  std::int64_t max = INT64_MAX;
  double real_min = 0;               ///< Real: the smallest valid value
  bool real_above_min = false;       ///< Real: the value must be strictly greater than real_min
  double real_max = 1e300;           ///< Real: the largest valid value
  std::vector<std::string> choices;  ///< Enum: the valid names; String (run.platform): known names
  std::string help;                  ///< one line

  bool required() const { return !default_value && !platform_default; }
  /// "1", "block-cyclic", "(required)", "(platform's)".
  std::string default_text() const;
  bool numeric() const { return type == ParamType::Int || type == ParamType::Size; }
};

/// Every parameter, in declaration order (the sweep order). Choices come from the registries
/// (techniques(), network_profiles(), config/workload.hpp's workloads()); `platform_names` are the platforms
/// found in the data directories (see platform_file.hpp) and become the choices of run.platform.
std::vector<Param> parameters(const std::vector<std::string>& platform_names = {});

/// The parameter called `key`, or nullptr.
const Param* find_param(const std::vector<Param>& params, std::string_view key);
/// The parameter called `key`; throws ConfigError naming the valid keys.
const Param& param(const std::vector<Param>& params, std::string_view key);

/// Throws ConfigError when `v` is not a valid value of `p` (wrong type, out of range, unknown choice),
/// naming the key, the value and what is allowed. For run.platform, a value that contains '/' or ends in
/// ".toml" (or ".xml") is a path and is accepted here (its existence is checked when it is loaded).
void check_value(const Param& p, const Value& v);

/// True when a run.platform value designates a file rather than a name.
bool is_platform_path(std::string_view value);

/// "a, b, c".
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");
/// `"text"` with TOML/JSON basic-string escapes.
std::string quote(std::string_view text);
/// A TOML key: bare when it is [A-Za-z0-9_-]+, else quoted.
std::string toml_key(std::string_view key);
/// A TOML float: format_double() with ".0" appended when it would otherwise read as an integer.
std::string toml_double(double v);
/// Shortest text that reads back as the same double (std::to_chars), e.g. "4e+07", "0.001".
std::string format_double(double v);

}  // namespace ciosim::config
