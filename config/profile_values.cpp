#include "config/profile_values.hpp"

namespace ciosim::config {

const std::vector<ProfileValue>& profile_values() {
  static const std::vector<ProfileValue> values = {
      {"link_bandwidth_Bps", ParamType::Real, "bytes/s", true, "bandwidth per NIC direction (wire rate)",
       [](const NetworkProfile& p) -> Value { return p.link_bandwidth_Bps; },
       [](NetworkProfile& p, const Value& v) { p.link_bandwidth_Bps = std::get<double>(v); }},
      {"link_latency_s", ParamType::Real, "seconds", false,
       "latency per NIC link (a route between two hosts crosses two)",
       [](const NetworkProfile& p) -> Value { return p.link_latency_s; },
       [](NetworkProfile& p, const Value& v) { p.link_latency_s = std::get<double>(v); }},
      {"send_overhead_s", ParamType::Real, "seconds", false, "sender's CPU time per message",
       [](const NetworkProfile& p) -> Value { return p.send_overhead_s; },
       [](NetworkProfile& p, const Value& v) { p.send_overhead_s = std::get<double>(v); }},
      {"recv_overhead_s", ParamType::Real, "seconds", false, "receiver's CPU time per message",
       [](const NetworkProfile& p) -> Value { return p.recv_overhead_s; },
       [](NetworkProfile& p, const Value& v) { p.recv_overhead_s = std::get<double>(v); }},
      {"eager_threshold", ParamType::Size, "bytes", false, "largest message sent eagerly",
       [](const NetworkProfile& p) -> Value { return p.eager_threshold; },
       [](NetworkProfile& p, const Value& v) { p.eager_threshold = std::get<std::int64_t>(v); }},
  };
  return values;
}

PhysicalRange physical_range(const ProfileValue& v) {
  if (const auto r = physical_range_of(v.field, 0, v.type == ParamType::Real)) return *r;
  return {0, 1099511627776.0, "at most 1 TiB"};
}

const ProfileValue* find_profile_value(const std::string& field) {
  for (const auto& v : profile_values())
    if (field == v.field) return &v;
  return nullptr;
}

}  // namespace ciosim::config
