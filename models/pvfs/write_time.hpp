// Closed form of the PVFS model for one client writing S contiguous bytes from offset 0, with nothing
// else running: the analytic oracle that the simulation (pvfs_sim.cpp) must reproduce.
#pragma once

#include <cstdint>

#include "models/network/profiles.hpp"
#include "models/pvfs/pvfs_config.hpp"

namespace ciosim::pvfs {

/// Time of write_at(0, S bytes) by a lone client, for S a multiple of io_servers * stripe_size and
/// stripe_size a multiple of flow_buffer. With k = io_servers, n = S/(k*flow_buffer) chunks per
/// server, L = 2 * link latency, R = link bandwidth * size factor:
///   client CPU   (S/stripe) * client_region_overhead          one piece per strip (k > 1)
///   requests     L + k * (header + (S/(k*stripe)) * descriptor) / R   k requests share the client NIC
///   server CPU   request_overhead + region_overhead           one local region per server
///   first chunk  t_net = L + k * flow_buffer / R              k flows share the client NIC
///   stream       (n-1) * max(t_net, t_disk) + t_disk          t_disk = flow_buffer / disk_write_Bps
///   acks         L + k * header / R
double lone_contiguous_write_time(std::int64_t bytes, const PvfsConfig& cfg, const NetworkProfile& io);

}  // namespace ciosim::pvfs
