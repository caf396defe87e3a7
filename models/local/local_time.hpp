// Closed form of the local-disk model (local_sim.cpp): the analytic oracle the simulation must reproduce.
#pragma once

#include <cstdint>

#include "models/local/local_config.hpp"

namespace ciosim::local {

/// A write of `regions` contiguous regions totalling `bytes` by one of `sharing` ranks of the file's
/// node that write alike at the same time: each region costs one system call (request_overhead_s)
/// and the node's disk moves all sharing * bytes at disk_write_Bps:
///   regions * request_overhead_s + sharing * bytes / disk_write_Bps.
double write_time(std::int64_t bytes, std::int64_t regions, int sharing, const LocalDiskConfig& cfg);

}  // namespace ciosim::local
