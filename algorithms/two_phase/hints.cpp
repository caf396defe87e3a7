// MPI-IO hints (ROMIO's defaults, as adio/common/ad_hints.c sets them; docs/two-phase.md).
#include "algorithms/two_phase/hints.hpp"

#include <cstdint>
#include <stdexcept>

#include "algorithms/two_phase/cb_config_list.hpp"

namespace ciosim {

const char* cb_mode_name(CbMode m) {
  switch (m) {
    case CbMode::Automatic:
      return "automatic";
    case CbMode::Enable:
      return "enable";
    case CbMode::Disable:
      return "disable";
  }
  return "?";
}

CbMode cb_mode_from_name(const std::string& name) {
  for (CbMode m : {CbMode::Automatic, CbMode::Enable, CbMode::Disable})
    if (name == cb_mode_name(m)) return m;
  throw std::invalid_argument("unknown romio_cb mode '" + name + "' (valid: automatic, enable, disable)");
}

const char* romio_version_name(RomioVersion v) {
  return v == RomioVersion::Modern ? "modern" : "2007";
}

RomioVersion romio_version_from_name(const std::string& name) {
  for (RomioVersion v : {RomioVersion::Modern, RomioVersion::Y2007})
    if (name == romio_version_name(v)) return v;
  throw std::invalid_argument("unknown romio_version '" + name + "' (valid: modern, 2007)");
}

const char* lap_criterion_name(LapCriterion c) {
  switch (c) {
    case LapCriterion::None:
      return "none";
    case LapCriterion::Acn:
      return "acn";
    case LapCriterion::Avn:
      return "avn";
  }
  return "?";
}

LapCriterion lap_criterion_from_name(const std::string& name) {
  for (LapCriterion c : {LapCriterion::None, LapCriterion::Acn, LapCriterion::Avn})
    if (name == lap_criterion_name(c)) return c;
  throw std::invalid_argument("unknown hints.lap '" + name + "' (valid: none, acn, avn)");
}

void check_hints(const IoHints& h) {
  if (h.cb_buffer_size < 1)
    throw std::invalid_argument("hints.cb_buffer_size must be >= 1 byte (got " +
                                std::to_string(h.cb_buffer_size) + ")");
  if (h.cb_buffer_size > INT32_MAX)
    throw std::invalid_argument("hints.cb_buffer_size must fit ROMIO's int sizes (<= 2147483647, got " +
                                std::to_string(h.cb_buffer_size) + ")");
  if (h.cb_nodes < 0)
    throw std::invalid_argument("hints.cb_nodes must be >= 0 (0 = unset; got " + std::to_string(h.cb_nodes) +
                                ")");
  if (h.striping_unit < 0)
    throw std::invalid_argument("hints.striping_unit must be >= 0 (0 = unset; got " +
                                std::to_string(h.striping_unit) + ")");
  if (h.listio_batch < 1)
    throw std::invalid_argument("hints.listio_batch must be >= 1 region (got " +
                                std::to_string(h.listio_batch) + ")");
  parse_cb_config_list(h.cb_config_list);
  if (h.vb_buffer_size < 0)
    throw std::invalid_argument("hints.vb_buffer_size must be >= 0 bytes (0 = hints.cb_buffer_size; got " +
                                std::to_string(h.vb_buffer_size) + ")");
  if (h.vb_pool_size < 1)
    throw std::invalid_argument("hints.vb_pool_size must be >= 1 byte (got " +
                                std::to_string(h.vb_pool_size) + ")");
  if (h.vb_aggregators < 0)
    throw std::invalid_argument("hints.vb_aggregators must be >= 0 (0 = every rank; got " +
                                std::to_string(h.vb_aggregators) + ")");
  if (h.vb_network_buffer < 1 || h.vb_network_buffer > INT32_MAX)
    throw std::invalid_argument("hints.vb_network_buffer must be 1..2147483647 bytes (got " +
                                std::to_string(h.vb_network_buffer) + ")");
}

}  // namespace ciosim
