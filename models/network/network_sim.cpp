#include "models/network/network_sim.hpp"

#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <vector>

namespace ciosim::network {

void use_flow_model() {
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
}

sg4::SplitDuplexLink* create_nic(sg4::NetZone* zone, const std::string& name, const NetworkProfile& p) {
  auto* l = zone->create_split_duplex_link(name, p.link_bandwidth_Bps);
  l->set_latency(p.link_latency_s);
  l->seal();
  return l;
}

void apply_message_factors(const NetworkProfile* mpi, const NetworkProfile* io,
                           std::unordered_set<const sg4::Host*> servers,
                           std::unordered_map<const sg4::Host*, const sg4::Host*> beside) {
  auto* model = sg4::Engine::get_instance()->get_netzone_root()->get_network_model();
  // Whether a message stays inside one node: the same host, or a server and the node it sits beside.
  auto within = [beside = std::move(beside)](const sg4::Host* src, const sg4::Host* dst) {
    if (src == dst) return true;
    if (beside.empty()) return false;
    const auto node = [&beside](const sg4::Host* h) {
      const auto it = beside.find(h);
      return it == beside.end() ? h : it->second;
    };
    return node(src) == node(dst);
  };
  model->set_bw_factor_cb([mpi, io, servers, within](double size, const sg4::Host* src, const sg4::Host* dst,
                                                     const std::vector<sg4::Link*>&,
                                                     const std::unordered_set<sg4::NetZone*>&) {
    if (within(src, dst)) return 1.0;
    const bool file_system = servers.count(src) || servers.count(dst);
    return (file_system ? io : mpi)->bandwidth_factor(size);
  });
  model->set_lat_factor_cb([mpi, servers, within](double size, const sg4::Host* src, const sg4::Host* dst,
                                                  const std::vector<sg4::Link*>&,
                                                  const std::unordered_set<sg4::NetZone*>&) {
    if (within(src, dst) || servers.count(src) || servers.count(dst)) return 1.0;
    // Rendezvous: request-to-send and clear-to-send precede the data: three route traversals.
    return size > static_cast<double>(mpi->eager_threshold) ? 3.0 : 1.0;
  });
}

}  // namespace ciosim::network
