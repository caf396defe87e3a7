// Builds the SimGrid platform of a run: compute nodes, PVFS metadata and I/O servers with disks, NIC
// links per host, and explicit routes (one full zone, no backbone: a non-blocking crossbar switch).
#pragma once

#include "sim/world.hpp"

namespace ciosim::sim {

/// Creates the hosts, links, disks and routes in the engine's root zone, sets the network model
/// configuration and the message-size factor callbacks, and fills world's host vectors.
void build_platform(World& world);

/// True for the hosts of the PVFS servers (their traffic is PVFS's, not MPI's).
bool is_server(const sg4::Host* h);

}  // namespace ciosim::sim
