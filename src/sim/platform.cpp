#include "sim/platform.hpp"

#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <string>
#include <unordered_set>

#include "config/placement.hpp"

namespace ciosim::sim {

namespace {

using Dir = sg4::LinkInRoute::Direction;

// Host speed in flop/s. Unused for timing: CPU work is charged as time from the platform's cost model
// (memcpy_Bps, tuple_cost_s) so that results do not depend on a flop count.
constexpr double kHostSpeed = 1e9;

sg4::SplitDuplexLink* nic(sg4::NetZone* zone, const std::string& name, const NetworkProfile& p) {
  auto* l = zone->create_split_duplex_link(name, p.link_bandwidth_Bps);
  l->set_latency(p.link_latency_s);
  l->seal();
  return l;
}

struct Endpoint {
  sg4::Host* host = nullptr;
  sg4::Link* loopback = nullptr;
  sg4::SplitDuplexLink* mpi_nic = nullptr;  ///< compute nodes only
  sg4::SplitDuplexLink* io_nic = nullptr;   ///< every host (the same link as mpi_nic when shared)
};

}  // namespace

bool is_server(const sg4::Host* h) {
  const std::string& n = h->get_name();
  return n.rfind("iod", 0) == 0 || n == "mds";
}

void build_platform(World& w) {
  const PlatformSpec& ps = w.spec->platform;
  const bool shared = w.mpi->name == w.io->name;  // one physical network carries MPI and PVFS traffic

  // CM02: latency + size/bandwidth with max-min sharing, no hidden factors (LV08 would multiply the
  // latency by 13.01). Cross-traffic (TCP acks in the reverse direction) is off: framing overhead is in
  // each profile's size factor instead.
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");

  auto* zone = sg4::create_full_zone("cluster");
  std::vector<Endpoint> eps;

  for (int i = 0; i < ps.nodes; ++i) {
    Endpoint e;
    const std::string id = std::to_string(i);
    // The node's cores, shared by the CPU work of the ranks placed on it (SimProcess::do_compute).
    e.host = zone->create_host("node" + id, kHostSpeed)->set_core_count(ps.cpu_cores);
    e.loopback = zone->create_link("lo" + id, ps.loopback_Bps)->set_latency(0)->seal();
    if (shared) {
      e.mpi_nic = e.io_nic = nic(zone, "nic" + id, *w.io);
    } else {
      e.mpi_nic = nic(zone, "mpi" + id, *w.mpi);
      e.io_nic = nic(zone, "io" + id, *w.io);
    }
    eps.push_back(e);
  }
  auto add_server = [&](const std::string& name) {
    Endpoint e;
    e.host = zone->create_host(name, kHostSpeed);
    e.loopback = zone->create_link("lo-" + name, ps.loopback_Bps)->set_latency(0)->seal();
    e.io_nic = nic(zone, "srv-" + name, *w.io);
    eps.push_back(e);
    return e.host;
  };
  w.mds = add_server("mds");
  for (int k = 0; k < ps.pvfs.io_servers; ++k) {
    sg4::Host* h = add_server("iod" + std::to_string(k));
    h->create_disk("disk", ps.pvfs.disk_read_Bps, ps.pvfs.disk_write_Bps)->seal();
    w.iods.push_back(h);
  }

  // Explicit routes for every ordered pair: compute-compute over the MPI NICs, anything touching a
  // server over the I/O NICs (every PVFS message has a server at one end), loopback on the same host.
  for (const Endpoint& a : eps) {
    for (const Endpoint& b : eps) {
      std::vector<sg4::LinkInRoute> links;
      if (a.host == b.host) {
        links.emplace_back(a.loopback);
      } else if (a.mpi_nic && b.mpi_nic) {
        links.emplace_back(a.mpi_nic, Dir::UP);
        links.emplace_back(b.mpi_nic, Dir::DOWN);
      } else {
        links.emplace_back(a.io_nic, Dir::UP);
        links.emplace_back(b.io_nic, Dir::DOWN);
      }
      zone->add_route(a.host->get_netpoint(), b.host->get_netpoint(), nullptr, nullptr, links, false);
    }
  }
  zone->seal();

  // Message-size factors and the rendezvous handshake, per network. MPI traffic (no server at either
  // end) uses the MPI profile; PVFS traffic the I/O profile, always in one traversal (PVFS streams data
  // after its request, it has no eager/rendezvous switch).
  const NetworkProfile* mpi = w.mpi;
  const NetworkProfile* io = w.io;
  auto* model = sg4::Engine::get_instance()->get_netzone_root()->get_network_model();
  model->set_bw_factor_cb([mpi, io](double size, const sg4::Host* src, const sg4::Host* dst,
                                    const std::vector<sg4::Link*>&,
                                    const std::unordered_set<sg4::NetZone*>&) {
    if (src == dst) return 1.0;
    const bool pvfs = is_server(src) || is_server(dst);
    return (pvfs ? io : mpi)->bandwidth_factor(size);
  });
  model->set_lat_factor_cb([mpi](double size, const sg4::Host* src, const sg4::Host* dst,
                                 const std::vector<sg4::Link*>&, const std::unordered_set<sg4::NetZone*>&) {
    if (src == dst || is_server(src) || is_server(dst)) return 1.0;
    // Rendezvous: request-to-send and clear-to-send precede the data: three route traversals.
    return size > static_cast<double>(mpi->eager_threshold) ? 3.0 : 1.0;
  });

  for (int r = 0; r < w.spec->ranks; ++r)
    w.rank_hosts.push_back(eps[static_cast<std::size_t>(config::node_of(*w.spec, r))].host);
}

}  // namespace ciosim::sim
