#include "models/nfs/nfs_time.hpp"

#include <algorithm>

namespace ciosim::nfs {

double message_time(double bytes, const NetworkProfile& io) {
  return 2 * io.link_latency_s + bytes / (io.link_bandwidth_Bps * io.bandwidth_factor(bytes));
}

LoneWriteTimes lone_write_times(std::int64_t bytes, const NfsConfig& cfg, const NetworkProfile& io) {
  const double c = cfg.client_rpc_overhead_s;
  const double s = cfg.rpc_overhead_s;
  const double h = static_cast<double>(cfg.rpc_header);
  const double reply = message_time(h, io);
  LoneWriteTimes t;
  double done = 0;  // when the server's disk has written the data received so far (async)
  for (std::int64_t off = 0; off < bytes; off += cfg.wsize) {
    const double len = static_cast<double>(std::min(cfg.wsize, bytes - off));
    const double disk = len / cfg.disk_write_Bps;
    const double in_memory = t.write_s + c + message_time(h + len, io) + s;
    if (cfg.sync_commit()) {
      t.write_s = in_memory + disk + reply;
    } else {
      done = std::max(in_memory, done) + disk;
      t.write_s = in_memory + reply;
    }
  }
  if (!cfg.sync_commit()) t.close_s = std::max(c + reply + s, done - t.write_s) + reply;
  return t;
}

}  // namespace ciosim::nfs
