#include "models/network/profiles.hpp"

#include <stdexcept>

namespace ciosim {

namespace {

// Ethernet framing efficiency for a full-size TCP segment: 1460 payload bytes per 1538 bytes on the
// wire (preamble 8 + Ethernet header 14 + IP 20 + TCP 20 + payload 1460 + FCS 4 + inter-frame gap 12).
// Source: IEEE 802.3 frame format; RFC 791/793 header sizes.
constexpr double kTcpOverEthernetEfficiency = 1460.0 / 1538.0;

std::vector<NetworkProfile> make_profiles() {
  std::vector<NetworkProfile> v;

  // Myrinet-2000 with GM and MPICH-GM, as in the uc3m-2007 cluster (Singh et al., J. Supercomputing 2009,
  // §4).
  v.push_back(NetworkProfile{
      .name = "myrinet",
      .description = "Myrinet-2000 (2 Gb/s links, crossbar switch) with GM/MPICH-GM, PCI-64 NICs (2003-2007)",
      // 2.0 Gbit/s per link direction = 250e6 B/s (Myricom, Myrinet-2000 link specification).
      .link_bandwidth_Bps = 250e6,
      // ~7 us MPI one-way latency for MPICH-GM on PCI-64 LANai 9 NICs (Myricom GM performance pages,
      // 2003); split over the two NIC links of a host-switch-host route.
      .link_latency_s = 3.5e-6,
      // Host CPU time per message for GM's OS-bypass send/receive: ~0.3 us each on PIII-class hosts
      // (Myricom GM documentation: "host overhead" figures); rounded to 0.5 us.
      .send_overhead_s = 0.5e-6,
      .recv_overhead_s = 0.5e-6,
      // MPICH-GM switches from eager to rendezvous at 16 KiB (MPICH-GM README, GMPI_EAGER default).
      .eager_threshold = 16384,
      // Large-message MPICH-GM ping-pong bandwidth ~230 MB/s on 64-bit/66 MHz PCI, i.e. 0.92 of the
      // link rate (PCI DMA limits; Myricom GM performance pages).
      .size_factors = {{0, 0.92}},
      .source = "Myricom Myrinet-2000 link spec; Myricom GM/MPICH-GM performance figures (PCI-64)",
  });

  // Fast Ethernet with MPICH 1.2.6 ch_p4 (TCP), as in the papers' Fast Ethernet runs.
  v.push_back(NetworkProfile{
      .name = "fast-ethernet",
      .description = "100 Mb/s switched Fast Ethernet, TCP/IP, MPICH 1.2 ch_p4",
      // 100 Mbit/s per direction = 12.5e6 B/s (IEEE 802.3u).
      .link_bandwidth_Bps = 12.5e6,
      // ~60 us one-way TCP latency on 100 Mb/s NICs with a store-and-forward switch (NetPIPE TCP
      // measurements of the era); split over the two NIC links.
      .link_latency_s = 30e-6,
      // Kernel TCP/IP send and receive path on an 800 MHz PIII: ~10 us each (NetPIPE/LogP studies).
      .send_overhead_s = 10e-6,
      .recv_overhead_s = 10e-6,
      // MPICH 1.2 ch_p4 uses eager delivery up to 128 KiB (ch_p4 P4_SOCKBUFSIZE-sized eager messages).
      .eager_threshold = 131072,
      .size_factors = {{0, kTcpOverEthernetEfficiency}},
      .source = "IEEE 802.3u; TCP/IP framing (RFC 791/793); NetPIPE-era TCP latency",
  });

  v.push_back(NetworkProfile{
      .name = "gigabit-ethernet",
      .description = "1 Gb/s switched Ethernet, TCP/IP (Open MPI tcp BTL)",
      // 1 Gbit/s per direction = 125e6 B/s (IEEE 802.3ab).
      .link_bandwidth_Bps = 125e6,
      // ~25 us one-way TCP latency with interrupt coalescing (NetPIPE on GbE); two links.
      .link_latency_s = 12.5e-6,
      .send_overhead_s = 5e-6,
      .recv_overhead_s = 5e-6,
      // Open MPI btl_tcp_eager_limit default: 64 KiB.
      .eager_threshold = 65536,
      .size_factors = {{0, kTcpOverEthernetEfficiency}},
      .source = "IEEE 802.3ab; TCP/IP framing; Open MPI btl_tcp defaults",
  });

  // InfiniBand 4x: 8b/10b encoding, so the data rate is 0.8 of the signalling rate.
  // Packet efficiency at the 2048-byte MTU: 2048 / (2048 + LRH 8 + BTH 12 + ICRC 4 + VCRC 2) = 0.987
  // (InfiniBand Architecture Specification vol. 1, packet format).
  v.push_back(NetworkProfile{
      .name = "infiniband-sdr",
      .description = "InfiniBand 4x SDR (10 Gb/s signalling, 8 Gb/s data), verbs MPI",
      .link_bandwidth_Bps = 1e9,  // 8 Gbit/s data rate = 1e9 B/s (IBA spec, 4x SDR with 8b/10b)
      // ~4 us one-way MPI latency for MVAPICH/Open MPI on 4x SDR PCI-X HCAs (OSU micro-benchmarks of
      // the era); two links.
      .link_latency_s = 2e-6,
      .send_overhead_s = 0.3e-6,
      .recv_overhead_s = 0.3e-6,
      // Open MPI btl_openib_eager_limit default: 12 KiB.
      .eager_threshold = 12288,
      .size_factors = {{0, 2048.0 / 2074.0}},
      .source =
          "InfiniBand Architecture Spec vol. 1; OSU latency benchmarks (SDR era); Open MPI openib defaults",
  });

  v.push_back(NetworkProfile{
      .name = "infiniband-ddr",
      .description = "InfiniBand 4x DDR (20 Gb/s signalling, 16 Gb/s data), verbs MPI",
      .link_bandwidth_Bps = 2e9,  // 16 Gbit/s data rate = 2e9 B/s (IBA spec, 4x DDR with 8b/10b)
      // ~2.5 us one-way MPI latency on 4x DDR PCIe HCAs (OSU micro-benchmarks); two links.
      .link_latency_s = 1.25e-6,
      .send_overhead_s = 0.3e-6,
      .recv_overhead_s = 0.3e-6,
      .eager_threshold = 12288,
      .size_factors = {{0, 2048.0 / 2074.0}},
      .source =
          "InfiniBand Architecture Spec vol. 1; OSU latency benchmarks (DDR era); Open MPI openib defaults",
  });
  return v;
}

}  // namespace

double NetworkProfile::bandwidth_factor(double bytes) const {
  double f = 1.0;
  for (const auto& sf : size_factors)
    if (bytes >= static_cast<double>(sf.min_bytes)) f = sf.bandwidth_factor;
  return f;
}

double NetworkProfile::lone_message_time(double bytes) const {
  // Eager: one traversal of the two-link route. Rendezvous: request-to-send and clear-to-send
  // control messages precede the data, so the route latency is paid three times.
  const double traversals = bytes > static_cast<double>(eager_threshold) ? 3.0 : 1.0;
  return send_overhead_s + traversals * 2 * link_latency_s +
         bytes / (link_bandwidth_Bps * bandwidth_factor(bytes)) + recv_overhead_s;
}

const std::vector<NetworkProfile>& network_profiles() {
  static const std::vector<NetworkProfile> profiles = make_profiles();
  return profiles;
}

const NetworkProfile& network_profile(const std::string& name) {
  return network_profile(name, {});
}

const NetworkProfile& network_profile(const std::string& name, const std::vector<NetworkProfile>& extra) {
  std::string valid;
  for (const auto* list : {&extra, &network_profiles()}) {
    for (const auto& p : *list) {
      if (p.name == name) return p;
      valid += (valid.empty() ? "" : ", ") + p.name;
    }
  }
  throw std::invalid_argument("unknown network '" + name + "' (valid: " + valid + ")");
}

}  // namespace ciosim
