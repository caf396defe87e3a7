// Helpers of the tests that parse scenario text: load options that find the shipped platforms, the
// one-line ConfigError a text gives, and a substring test.
#pragma once

#include <string>
#include <vector>

#include "config/params.hpp"
#include "config/scenario.hpp"

namespace ciosim::test {

/// Load options with the source tree as data directory (platforms/), and `sets` as --set overrides.
inline config::LoadOptions scenario_options(std::vector<std::string> sets = {}) {
  config::LoadOptions o;
  o.sets = std::move(sets);
  o.data_dirs = {CIOSIM_SOURCE_DIR};
  return o;
}

/// The ConfigError message of parsing `text` with `sets` ("" when it parses).
inline std::string scenario_error(const std::string& text, std::vector<std::string> sets = {}) {
  try {
    config::parse_scenario(text, "s.toml", scenario_options(std::move(sets)));
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace ciosim::test
