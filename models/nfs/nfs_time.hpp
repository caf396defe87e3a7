// Closed forms of the NFS model (nfs_sim.cpp) for one client alone with the server and one RPC in flight
// (max_outstanding = 1): the analytic oracle the simulation must reproduce.
#pragma once

#include <cstdint>

#include "models/network/profiles.hpp"
#include "models/nfs/nfs_config.hpp"

namespace ciosim::nfs {

struct LoneWriteTimes {
  double write_s = 0;  ///< write_at(0, S bytes): until the last WRITE's reply
  double close_s = 0;  ///< the close after it: the COMMIT round trip and the disk flush it waits for (async)
};

/// With n = ceil(S / wsize) WRITEs of len_i bytes, c = client_rpc_overhead_s, s = rpc_overhead_s,
/// m(x) = 2 link latencies + x / (bandwidth * size factor(x)) (one message on the I/O network), h =
/// rpc_header, D = disk_write_Bps:
///   sync   write = sum_i (c + m(h + len_i) + s + len_i / D + m(h));   close = 0 (nothing to commit)
///   async  write = sum_i (c + m(h + len_i) + s + m(h)); WRITE i's data is in memory at a_i (after s) and
///          the server's disk writes it from max(a_i, done_{i-1}) for len_i / D; the COMMIT reaches the
///          server at T + c + m(h) (T = end of the write), costs s, waits for done_n, and is answered:
///          close = max(c + m(h) + s, done_n - T) + m(h).
LoneWriteTimes lone_write_times(std::int64_t bytes, const NfsConfig& cfg, const NetworkProfile& io);

/// One message of `bytes` on the I/O network between a client and the server (m(x) above).
double message_time(double bytes, const NetworkProfile& io);

}  // namespace ciosim::nfs
