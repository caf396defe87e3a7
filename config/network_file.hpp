// Network profiles defined in a platform file (models are parameter sets on one mechanism; docs/models.md):
// besides the named profiles of models/network/profiles.cpp, a platform may define its own, e.g. the ones
// `ciosim calibrate` measures, as tables under [network.profiles]:
//
//   [network]
//   mpi = "local-shm"              # a built-in name or one defined below
//   io = "local-io"
//   [network.profiles.local-shm]
//   description = "..."            # optional
//   source = "..."                 # optional: where the numbers come from
//   link_bandwidth_Bps = 5.1e9     # > 0, per NIC direction
//   link_latency_s = 2.5e-7        # >= 0, per NIC link (a host-to-host route crosses two)
//   send_overhead_s = 2.5e-7       # >= 0
//   recv_overhead_s = 2.5e-7       # >= 0
//   eager_threshold = 4096         # bytes, >= 0
//   size_factors = [[0, 1.0]]      # optional: [min_bytes, bandwidth factor in (0, 1]] pairs
//   # any key ending in _source documents a value
//
// The profiles are registered for the runs on that platform only (PlatformSpec::networks; the simulator
// looks names up there first). A defined name may not shadow a built-in one. Scenario keys network.mpi /
// network.io still take built-in names; a platform's own profiles are selected by its [network] mpi/io.
#pragma once

#include <toml++/toml.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "models/network/profiles.hpp"

namespace ciosim::config {

/// Parses the [network.profiles] table: one NetworkProfile per sub-table, in file order. "_source" keys are
/// appended to `sources` as "network.profiles.NAME.KEY_source". `where` prefixes messages. Throws
/// ConfigError (one line) on unknown keys, wrong types, missing or impossible values, or a built-in name.
std::vector<NetworkProfile> parse_network_profiles(const toml::node& profiles, const std::string& origin,
                                                   std::vector<std::pair<std::string, std::string>>& sources);

/// The profiles as TOML tables [PREFIX.NAME] with their "_source" keys (sources as parse_network_profiles
/// stores them); parses back to the same profiles.
std::string network_profiles_toml(const std::vector<NetworkProfile>& profiles, const std::string& prefix,
                                  const std::vector<std::pair<std::string, std::string>>& sources);

/// {NAME: {description, source, link_bandwidth_Bps, ..., size_factors, *_source}} for effective-config.json.
nlohmann::ordered_json network_profiles_json(const std::vector<NetworkProfile>& profiles,
                                             const std::vector<std::pair<std::string, std::string>>& sources);

}  // namespace ciosim::config
