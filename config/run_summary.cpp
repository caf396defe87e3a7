#include "config/run_summary.hpp"

#include <algorithm>
#include <stdexcept>

namespace ciosim::config {

std::vector<PhaseTime> phase_times(const std::vector<RankRecord>& records) {
  std::vector<PhaseTime> out;
  std::vector<std::vector<double>> per_rank;  // [phase][rank]
  auto index = [&](const std::string& name) {
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i].name == name) return i;
    out.push_back(PhaseTime{name, 0});
    per_rank.emplace_back(records.size(), 0.0);
    return out.size() - 1;
  };
  for (std::size_t r = 0; r < records.size(); ++r) {
    const auto& marks = records[r].marks;
    for (std::size_t i = 0; i < marks.size(); ++i) {
      const double until = i + 1 < marks.size() ? marks[i + 1].second : records[r].end;
      per_rank[index(marks[i].first)][r] += until - marks[i].second;
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i].time_s = *std::max_element(per_rank[i].begin(), per_rank[i].end());
  return out;
}

void summarize(const std::vector<RankRecord>& records, RunResult& res) {
  if (records.empty()) throw std::invalid_argument("summarize: a run has at least one rank");
  double t0 = records.front().start;
  double t1 = records.front().end;
  for (const auto& rec : records) {
    t0 = std::min(t0, rec.start);
    t1 = std::max(t1, rec.end);
  }
  res.sim_time_s = t1 - t0;
  res.phases = phase_times(records);
  res.calls.clear();
  for (int c = 0; c < kCallKinds; ++c) {
    std::int64_t total = 0;
    for (const auto& rec : records) total += rec.counters.calls[static_cast<std::size_t>(c)];
    res.calls[call_name(static_cast<Call>(c))] = total;
  }
  res.bytes_network = 0;
  res.bytes_file = 0;
  for (const auto& rec : records) {
    res.bytes_network += rec.counters.bytes_sent;
    res.bytes_file += rec.counters.bytes_written;
  }
}

}  // namespace ciosim::config
