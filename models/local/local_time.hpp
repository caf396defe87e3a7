// Closed form of the local-disk model (local_sim.cpp): the analytic oracle the simulation must reproduce.
#pragma once

#include <cstdint>

#include "models/local/local_config.hpp"

namespace ciosim::local {

/// A write call of `regions` contiguous regions totalling `bytes` by one of `sharing` ranks of the file's
/// node that write alike at the same time (no page cache): the call costs request_overhead_s, each
/// further region region_overhead_s, and the node's disk moves all sharing * bytes at disk_write_Bps:
///   request_overhead_s + (regions - 1) * region_overhead_s + sharing * bytes / disk_write_Bps.
double write_time(std::int64_t bytes, std::int64_t regions, int sharing, const LocalDiskConfig& cfg);

}  // namespace ciosim::local
