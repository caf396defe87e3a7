#include "config/phase_json.hpp"

namespace ciosim::config {

nlohmann::ordered_json phase_to_json(const PhaseTime& p) {
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["time_s"] = p.time_s;
  if (!p.calls.empty()) j["calls"] = p.calls;
  if (!p.bytes_sent.empty()) j["bytes_sent"] = p.bytes_sent;
  if (p.rank_time_s.empty()) return j;
  j["start_s"] = p.start_s;
  j["end_s"] = p.end_s;
  nlohmann::ordered_json ranks;
  ranks["time_s"] = p.rank_time_s;
  if (!p.rank_cpu_s.empty()) {
    ranks["cpu_s"] = p.rank_cpu_s;
    ranks["network_s"] = p.rank_network_s;
    ranks["filesystem_s"] = p.rank_filesystem_s;
  }
  if (!p.rank_calls.empty()) ranks["calls"] = p.rank_calls;
  j["ranks"] = std::move(ranks);
  j["resources"] = nlohmann::ordered_json::array();
  for (const ResourceUse& u : p.resources)
    j["resources"].push_back(nlohmann::ordered_json{{"kind", u.kind},
                                                    {"count", u.count},
                                                    {"busy_mean", u.busy_mean},
                                                    {"busy_max", u.busy_max},
                                                    {"busiest", u.busiest},
                                                    {"bytes_per_s", u.bytes_per_s}});
  return j;
}

PhaseTime phase_from_json(const nlohmann::ordered_json& j) {
  PhaseTime p;
  if (j.is_array()) {
    p.name = j.at(0).get<std::string>();
    p.time_s = j.at(1).get<double>();
    return p;
  }
  p.name = j.at("name").get<std::string>();
  p.time_s = j.at("time_s").get<double>();
  if (j.contains("calls")) p.calls = j.at("calls").get<std::map<std::string, std::int64_t>>();
  if (j.contains("bytes_sent")) p.bytes_sent = j.at("bytes_sent").get<std::map<std::string, std::int64_t>>();
  if (!j.contains("ranks")) return p;
  p.start_s = j.at("start_s").get<double>();
  p.end_s = j.at("end_s").get<double>();
  const auto& ranks = j.at("ranks");
  p.rank_time_s = ranks.at("time_s").get<std::vector<double>>();
  if (ranks.contains("cpu_s")) {
    p.rank_cpu_s = ranks.at("cpu_s").get<std::vector<double>>();
    p.rank_network_s = ranks.at("network_s").get<std::vector<double>>();
    p.rank_filesystem_s = ranks.at("filesystem_s").get<std::vector<double>>();
  }
  if (ranks.contains("calls"))
    p.rank_calls = ranks.at("calls").get<std::vector<std::map<std::string, std::int64_t>>>();
  for (const auto& u : j.at("resources"))
    p.resources.push_back(ResourceUse{u.at("kind").get<std::string>(), u.at("count").get<int>(),
                                      u.at("busy_mean").get<double>(), u.at("busy_max").get<double>(),
                                      u.at("busiest").get<std::string>(), u.at("bytes_per_s").get<double>()});
  return p;
}

}  // namespace ciosim::config
