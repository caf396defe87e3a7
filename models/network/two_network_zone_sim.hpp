// A SimGrid netzone for a cluster whose compute nodes have two NICs, one on the MPI network and one on
// the I/O network, and whose file-system servers sit on the I/O network: a message between two compute
// nodes crosses the sender's MPI NIC (up) and the receiver's (down); a message with a server at either end
// crosses the two hosts' I/O NICs; a host to itself, its loopback. A server may sit beside a compute node
// (a host of its own, so that its messages are known to be file-system traffic, with that node's I/O NIC
// and loopback): between it and its node, the node's loopback. One network for both is the same zone with
// each compute node's MPI NIC its I/O NIC. Routes are computed per pair from
// each host's links, so memory and build time are linear in hosts (SimGrid's full zone stores a route per
// ordered pair, and its star zone gives a host one set of links whatever the destination).
#pragma once

#include <simgrid/kernel/routing/ClusterZone.hpp>
#include <simgrid/s4u.hpp>
#include <vector>

namespace ciosim::network {

namespace sg4 = simgrid::s4u;

class TwoNetworkZone final : public simgrid::kernel::routing::ClusterZone {
 public:
  /// Creates the zone (the engine's root zone if none exists yet) and returns it.
  static TwoNetworkZone* create(const std::string& name);

  /// Declares a host's links once the host and its links exist: `mpi_nic` is null for a server. `node` is
  /// the compute node the host is or sits beside (hosts of one node reach each other through `loopback`),
  /// -1 for a server of its own.
  void set_links(const sg4::Host* host, sg4::Link* loopback, sg4::SplitDuplexLink* mpi_nic,
                 sg4::SplitDuplexLink* io_nic, int node);

  sg4::NetZone* iface() { return get_iface(); }

 protected:
  void get_local_route(const simgrid::kernel::routing::NetPoint* src,
                       const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                       double* latency) override;

 private:
  using ClusterZone::ClusterZone;

  struct Hop {
    simgrid::kernel::resource::StandardLinkImpl* link = nullptr;
    double latency = 0;
  };
  struct Ends {
    Hop loopback, mpi_up, mpi_down, io_up, io_down;
    bool server = true;  ///< no MPI NIC
    int node = -1;       ///< the compute node it is or sits beside; -1: a host of its own
    bool set = false;
  };
  std::vector<Ends> ends_;  ///< by netpoint id
};

}  // namespace ciosim::network
