#include "models/network/two_network_zone_sim.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <stdexcept>
#include <string>

namespace ciosim::network {

TwoNetworkZone* TwoNetworkZone::create(const std::string& name) {
  return new TwoNetworkZone(name);  // owned by the engine: its root zone, or a child of another zone
}

void TwoNetworkZone::set_links(const sg4::Host* host, sg4::Link* loopback, sg4::SplitDuplexLink* mpi_nic,
                               sg4::SplitDuplexLink* io_nic, int node) {
  const auto hop = [](sg4::Link* l) { return Hop{l->get_impl(), l->get_latency()}; };
  const unsigned long id = host->get_netpoint()->id();
  if (ends_.size() <= id) ends_.resize(id + 1);
  Ends& e = ends_[id];
  e.loopback = hop(loopback);
  e.io_up = hop(io_nic->get_link_up());
  e.io_down = hop(io_nic->get_link_down());
  e.server = mpi_nic == nullptr;
  e.node = node;
  if (mpi_nic) {
    e.mpi_up = hop(mpi_nic->get_link_up());
    e.mpi_down = hop(mpi_nic->get_link_down());
  }
  e.set = true;
}

void TwoNetworkZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                                     const simgrid::kernel::routing::NetPoint* dst,
                                     simgrid::kernel::routing::Route* into, double* latency) {
  const auto ends = [&](const simgrid::kernel::routing::NetPoint* p) -> const Ends& {
    if (p->id() >= ends_.size() || !ends_[p->id()].set)
      throw std::logic_error("TwoNetworkZone: no links declared for " + p->get_name());
    return ends_[p->id()];
  };
  const Ends& a = ends(src);
  const Ends& b = ends(dst);
  const auto add = [&](const Hop& h) {
    into->link_list_.push_back(h.link);
    if (latency) *latency += h.latency;
  };
  if (src == dst || (a.node >= 0 && a.node == b.node)) {
    add(a.loopback);
  } else if (!a.server && !b.server) {
    add(a.mpi_up);
    add(b.mpi_down);
  } else {
    add(a.io_up);
    add(b.io_down);
  }
}

}  // namespace ciosim::network
