#include "models/pvfs/write_time.hpp"

#include <algorithm>

namespace ciosim::pvfs {

double lone_contiguous_write_time(std::int64_t bytes, const PvfsConfig& cfg, const NetworkProfile& io) {
  const double k = cfg.io_servers;
  const double S = static_cast<double>(bytes);
  const double L = 2 * io.link_latency_s;
  const double R = io.link_bandwidth_Bps * io.bandwidth_factor(static_cast<double>(cfg.flow_buffer));
  // One server: its strips are contiguous in the file too, so the client sends them as one piece.
  const double strips = cfg.io_servers == 1 ? 1.0 : S / static_cast<double>(cfg.stripe_size);
  const double n = S / (k * static_cast<double>(cfg.flow_buffer));
  const double header = static_cast<double>(cfg.request_header);
  const double t_client = strips * cfg.client_region_overhead_s;
  const double t_req = L + k * (header + strips / k * static_cast<double>(cfg.region_descriptor)) / R;
  const double t_server = cfg.request_overhead_s + cfg.region_overhead_s;
  const double t_net = L + k * static_cast<double>(cfg.flow_buffer) / R;
  const double t_disk = static_cast<double>(cfg.flow_buffer) / cfg.disk_write_Bps;
  const double t_ack = L + k * header / R;
  return t_client + t_req + t_server + t_net + (n - 1) * std::max(t_net, t_disk) + t_disk + t_ack;
}

}  // namespace ciosim::pvfs
