// Fixed-width columns for the text tables of `ciosim plan` (two_phase_view.cpp, multiple_phase_view.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace ciosim::app::columns {

/// `s` right-aligned in `w` columns (never cut).
inline std::string right(const std::string& s, std::size_t w) {
  return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
}
/// `s` left-aligned in `w` columns, at least one space after it.
inline std::string left(const std::string& s, std::size_t w) {
  return s + std::string(w > s.size() ? w - s.size() : 1, ' ');
}
inline std::string num(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace ciosim::app::columns
