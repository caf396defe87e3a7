#include "config/point_reuse.hpp"

#include <map>
#include <string>

namespace ciosim::config {
namespace {

constexpr const char* kMpiKey = "network.mpi";

/// What a point's simulation depends on but network.mpi, as text: its params without that key. Empty
/// when the point cannot share a simulation (its own export file, trace or timeline).
std::string twin_key(const RunSpec& s) {
  if (!s.export_file.empty() || !s.trace_file.empty() || !s.timeline_formats.empty() || !s.rank_nodes.empty())
    return "";
  std::string key = "|";
  for (const auto& [k, v] : s.params) {
    if (k == kMpiKey) continue;
    key += k;
    key += '=';
    key += std::to_string(v.size());  // length-prefixed: no value can fake a separator
    key += ':';
    key += v;
    key += '|';
  }
  return key;
}

}  // namespace

std::vector<std::size_t> mpi_twins(const std::vector<RunSpec>& specs) {
  std::vector<std::size_t> twin(specs.size(), 0);
  std::map<std::string, std::size_t> first;  // twin key -> the first point with it
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::string key = twin_key(specs[i]);
    if (key.empty()) continue;
    const auto [it, fresh] = first.emplace(key, i + 1);
    if (!fresh) twin[i] = it->second;
  }
  return twin;
}

bool made_no_mpi_call(const RunResult& r) {
  if (r.bytes_network != 0) return false;
  for (const auto& [call, n] : r.calls)
    if (call.rfind("file_", 0) != 0 && n != 0) return false;
  return true;
}

RunResult twin_result(const RunResult& r, const RunSpec& spec) {
  RunResult out = r;
  out.algorithm = spec.algorithm;
  out.params = spec.params;
  out.ranks = spec.ranks;
  out.network_mpi = spec.network_mpi;
  out.network_io = spec.network_io;
  return out;
}

}  // namespace ciosim::config
