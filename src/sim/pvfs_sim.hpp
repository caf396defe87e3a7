// PVFS servers and client calls inside the simulation (see pvfs_sim.cpp for the model).
#pragma once

#include <span>

#include "sim/world.hpp"

namespace ciosim::sim {

/// Starts the metadata server and one daemon per I/O server.
void start_pvfs_servers(World& w);

// Client side, called from a rank's actor; each returns when the operation is complete.
void pvfs_open(World& w, int rank);
void pvfs_close(World& w, int rank);
void pvfs_write(World& w, int rank, std::span<const Extent> regions, std::span<const std::byte> data);
void pvfs_read(World& w, int rank, std::span<const Extent> regions, std::span<std::byte> data);

}  // namespace ciosim::sim
