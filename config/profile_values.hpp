// The values of a network profile (models/network/profiles.hpp) a scenario may set for the point's MPI or
// I/O network: network.mpi_link_bandwidth_Bps, network.io_link_latency_s, ... Declared once: params.cpp
// derives the parameters from this table, scenario.cpp applies them.
#pragma once

#include <string>
#include <vector>

#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "models/network/profiles.hpp"

namespace ciosim::config {

struct ProfileValue {
  const char* field;  ///< the profile's field, "link_bandwidth_Bps"
  ParamType type;     ///< Real or Size
  const char* unit;
  bool above_zero;  ///< the value must be > 0 (else >= 0)
  const char* help;
  Value (*get)(const NetworkProfile&);
  void (*set)(NetworkProfile&, const Value&);
};

/// The settable values, in the order `ciosim list` shows them.
const std::vector<ProfileValue>& profile_values();

/// The values a profile's field can physically take: the platform values' ranges by unit
/// (config::physical_range_of), a size at most 1 TiB. So a platform file's [network.profiles.NAME] and a
/// scenario's network.mpi_* / network.io_* are held to the same range as every platform value.
PhysicalRange physical_range(const ProfileValue& v);
/// The entry of `field` ("link_bandwidth_Bps"), or null.
const ProfileValue* find_profile_value(const std::string& field);

}  // namespace ciosim::config
