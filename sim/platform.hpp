// Builds the SimGrid platform of a run: compute nodes, the file system's servers and disks (added by
// world.fs), NIC links per host, and explicit routes (one full zone, no backbone: a non-blocking
// crossbar switch).
#pragma once

#include "sim/world.hpp"

namespace ciosim::sim {

/// Creates the hosts, links, disks and routes in the engine's root zone, sets the network model
/// configuration and the message-size factor callbacks, and fills world's host vectors. world.fs must
/// be set: it adds its own hosts and disks.
void build_platform(World& world);

}  // namespace ciosim::sim
