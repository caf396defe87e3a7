#include "config/placement.hpp"

#include <algorithm>

#include "config/params.hpp"

namespace ciosim::config {

int node_of(const RunSpec& spec, int r) {
  return spec.rank_nodes.empty() ? r / spec.platform.cores_per_node
                                 : spec.rank_nodes[static_cast<std::size_t>(r)];
}

std::vector<int> host_indices(const std::vector<std::string>& names) {
  std::vector<std::string> distinct;
  std::vector<int> out;
  for (const auto& n : names) {
    auto it = std::find(distinct.begin(), distinct.end(), n);
    if (it == distinct.end()) it = distinct.insert(distinct.end(), n);
    out.push_back(static_cast<int>(it - distinct.begin()));
  }
  return out;
}

void check_memory_mode(const std::string& option, const std::string& mode) {
  if (mode != "warm" && mode != "cold")
    throw ConfigError(option +
                      " must be 'warm' (memory kept, one untimed run first) or 'cold' (every run timed, "
                      "first-touch page faults included), got " +
                      quote(mode));
}

}  // namespace ciosim::config
