#include "sim/platform.hpp"

#include <cmath>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "config/placement.hpp"
#include "models/network/network_sim.hpp"
#include "models/network/two_network_zone_sim.hpp"

namespace ciosim::sim {

namespace {

using Dir = sg4::LinkInRoute::Direction;

// Host speed in flop/s. Unused for timing: CPU work is charged as time from the platform's cost model
// (memcpy_Bps, tuple_cost_s) so that results do not depend on a flop count.
constexpr double kHostSpeed = 1e9;

using network::create_nic;

struct Endpoint {
  sg4::Host* host = nullptr;
  sg4::Link* loopback = nullptr;
  sg4::SplitDuplexLink* mpi_nic = nullptr;  ///< compute nodes only
  sg4::SplitDuplexLink* io_nic = nullptr;   ///< every host (the same link as mpi_nic when shared)
  /// Compute nodes with nodes.memory_Bps: the disk standing for the node's memory, whose bandwidth its
  /// ranks' concurrent copies share (a copy writes its bytes to it while its core works: do_compute).
  sg4::Disk* memory = nullptr;
  int node = -1;  ///< the compute node it is or sits beside (-1: a server host of its own)
};

}  // namespace

void build_platform(World& w) {
  const PlatformSpec& ps = w.spec->platform;
  const bool shared = w.mpi->name == w.io->name;  // one physical network carries MPI and PVFS traffic

  network::use_flow_model();

  // One network: every host reaches every other through its own NIC (up) and the other's NIC (down), a
  // SimGrid star zone. Two networks (MPI and I/O on separate NICs): the NIC depends on the pair (a server
  // at either end: the I/O NICs), which a star cannot express, so a zone of our own computes each route;
  // so do servers beside compute nodes (a server and its node share the node's loopback, which a star
  // cannot say either). Either way routes are computed per pair: memory and build time linear in hosts.
  const bool star = shared && !w.fs->servers_beside_nodes();
  network::TwoNetworkZone* two = star ? nullptr : network::TwoNetworkZone::create("cluster");
  sg4::NetZone* zone = star ? sg4::create_star_zone("cluster") : two->iface();
  std::vector<Endpoint> eps;

  for (int i = 0; i < ps.nodes; ++i) {
    Endpoint e;
    e.node = i;
    const std::string id = std::to_string(i);
    // The node's cores, shared by the CPU work of the ranks placed on it (SimProcess::do_compute).
    e.host = zone->create_host("node" + id, kHostSpeed)->set_core_count(ps.cpu_cores);
    if (!std::isnan(ps.memory_Bps))
      e.memory = e.host->create_disk("memory", ps.memory_Bps, ps.memory_Bps)->seal();
    e.loopback = zone->create_link("lo" + id, ps.loopback_Bps)->set_latency(0)->seal();
    if (shared) {
      e.mpi_nic = e.io_nic = create_nic(zone, "nic" + id, *w.io);
    } else {
      e.mpi_nic = create_nic(zone, "mpi" + id, *w.mpi);
      e.io_nic = create_nic(zone, "io" + id, *w.io);
    }
    eps.push_back(e);
  }
  // The file system adds its servers (on the I/O network) and disks: models/filesystem/file_system_sim.hpp.
  filesystem::PlatformHooks hooks;
  hooks.add_server = [&](const std::string& name) {
    Endpoint e;
    e.host = zone->create_host(name, kHostSpeed);
    e.loopback = zone->create_link("lo-" + name, ps.loopback_Bps)->set_latency(0)->seal();
    e.io_nic = create_nic(zone, "srv-" + name, *w.io);
    eps.push_back(e);
    w.servers.push_back(e.host);
    return e.host;
  };
  hooks.add_server_beside = [&](const std::string& name, int node) {
    const Endpoint n = eps.at(static_cast<std::size_t>(node));  // a copy: eps grows below
    Endpoint e;
    e.host = zone->create_host(name, kHostSpeed);
    e.loopback = n.loopback;
    e.io_nic = n.io_nic;
    e.node = node;
    eps.push_back(e);
    w.servers.push_back(e.host);
    return e.host;
  };
  for (const Endpoint& e : eps) hooks.nodes.push_back(e.host);
  w.fs->build(hooks);

  if (star) {
    for (const Endpoint& e : eps) {
      zone->add_route(e.host->get_netpoint(), nullptr, nullptr, nullptr, {{e.io_nic, Dir::UP}}, false);
      zone->add_route(nullptr, e.host->get_netpoint(), nullptr, nullptr, {{e.io_nic, Dir::DOWN}}, false);
      zone->add_route(e.host->get_netpoint(), e.host->get_netpoint(), nullptr, nullptr,
                      {sg4::LinkInRoute(e.loopback)}, false);
    }
  } else {
    // Compute-compute over the MPI NICs, anything touching a server over the I/O NICs (every file-system
    // message has a server at one end), loopback within a node: models/network/two_network_zone_sim.hpp.
    for (const Endpoint& e : eps) two->set_links(e.host, e.loopback, e.mpi_nic, e.io_nic, e.node);
  }
  zone->seal();

  // Message-size factors and the rendezvous handshake, per network (models/network/network_sim.hpp).
  std::unordered_map<const sg4::Host*, const sg4::Host*> beside;  // server -> the node it sits beside
  for (const Endpoint& e : eps)
    if (e.node >= 0 && e.host != eps[static_cast<std::size_t>(e.node)].host)
      beside.emplace(e.host, eps[static_cast<std::size_t>(e.node)].host);
  network::apply_message_factors(w.mpi, w.io, {w.servers.begin(), w.servers.end()}, std::move(beside));

  for (int r = 0; r < w.spec->ranks; ++r) {
    const Endpoint& node = eps[static_cast<std::size_t>(config::node_of(*w.spec, r))];
    w.rank_hosts.push_back(node.host);
    w.rank_memory.push_back(node.memory);
  }
}

}  // namespace ciosim::sim
