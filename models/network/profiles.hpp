// Named network profiles: parameter sets on one mechanism (SimGrid's CM02 flow model with split-duplex
// NIC links, plus per-message CPU overheads, an eager/rendezvous threshold and message-size bandwidth
// factors applied through SimGrid's bandwidth-factor callback). Every value carries its unit and source
// in profiles.cpp. No SimGrid here: sim/ turns a profile into links.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ciosim {

/// Effective-bandwidth fraction for messages of at least `min_bytes` (last matching entry wins).
struct SizeFactor {
  std::int64_t min_bytes = 0;
  double bandwidth_factor = 1.0;
};

struct NetworkProfile {
  std::string name;
  std::string description;
  double link_bandwidth_Bps = 0;         ///< per NIC direction, bytes/s (wire rate)
  double link_latency_s = 0;             ///< per NIC link; a host-to-host route crosses two NIC links
  double send_overhead_s = 0;            ///< CPU time the sender spends per message (LogP o_s)
  double recv_overhead_s = 0;            ///< CPU time the receiver spends per message (LogP o_r)
  std::int64_t eager_threshold = 0;      ///< messages of at most this many bytes are sent eagerly
  std::vector<SizeFactor> size_factors;  ///< effective/wire bandwidth by message size
  std::string source;                    ///< where the numbers come from

  double bandwidth_factor(double bytes) const;
  /// One-way time of a lone message of `bytes` on a two-link route: what the model must produce.
  double lone_message_time(double bytes) const;
};

/// All profiles, in a fixed order.
const std::vector<NetworkProfile>& network_profiles();
/// The profile called `name`; throws std::invalid_argument naming the valid choices.
const NetworkProfile& network_profile(const std::string& name);
/// The same, looking in `extra` (a platform's own profiles) first.
const NetworkProfile& network_profile(const std::string& name, const std::vector<NetworkProfile>& extra);

}  // namespace ciosim
