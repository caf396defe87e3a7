#include "config/run_summary.hpp"

#include <algorithm>
#include <stdexcept>

namespace ciosim::config {

std::vector<PhaseTime> phase_times(const std::vector<RankRecord>& records) {
  std::vector<PhaseTime> out;
  auto index = [&](const std::string& name, double at) {
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i].name == name) return i;
    PhaseTime p;
    p.name = name;
    p.start_s = p.end_s = at;
    p.rank_time_s.assign(records.size(), 0.0);
    out.push_back(std::move(p));
    return out.size() - 1;
  };
  const bool with_use = std::all_of(records.begin(), records.end(),
                                    [](const RankRecord& r) { return r.use.size() == r.marks.size(); });
  std::vector<std::vector<UseTimes>> use;  // [phase][rank]
  for (std::size_t r = 0; r < records.size(); ++r) {
    const auto& marks = records[r].marks;
    for (std::size_t i = 0; i < marks.size(); ++i) {
      const double until = i + 1 < marks.size() ? marks[i + 1].second : records[r].end;
      const std::size_t k = index(marks[i].first, marks[i].second);
      PhaseTime& p = out[k];
      p.rank_time_s[r] += until - marks[i].second;
      p.start_s = std::min(p.start_s, marks[i].second);
      p.end_s = std::max(p.end_s, until);
      if (!with_use) continue;
      if (use.size() <= k) use.resize(k + 1, std::vector<UseTimes>(records.size(), UseTimes{}));
      for (int u = 0; u < kUses; ++u)
        use[k][r][static_cast<std::size_t>(u)] += records[r].use[i][static_cast<std::size_t>(u)];
    }
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    PhaseTime& p = out[k];
    p.time_s = *std::max_element(p.rank_time_s.begin(), p.rank_time_s.end());
    if (!with_use) continue;
    for (const UseTimes& u : use[k]) {
      p.rank_cpu_s.push_back(u[static_cast<std::size_t>(Use::Cpu)]);
      p.rank_network_s.push_back(u[static_cast<std::size_t>(Use::Network)]);
      p.rank_filesystem_s.push_back(u[static_cast<std::size_t>(Use::FileSystem)]);
    }
  }
  // In time order: by the phase's earliest start on any rank (ties keep first-seen order).
  std::stable_sort(out.begin(), out.end(),
                   [](const PhaseTime& a, const PhaseTime& b) { return a.start_s < b.start_s; });
  return out;
}

std::vector<OperationTime> operation_times(const std::vector<RankRecord>& records) {
  std::vector<OperationTime> out;
  if (records.empty()) return out;
  const std::size_t n = records.front().ops.size();
  for (const auto& rec : records)
    if (rec.ops.size() != n)
      throw std::invalid_argument("the ranks ran different numbers of operations (" + std::to_string(n) +
                                  " and " + std::to_string(rec.ops.size()) + ")");
  for (std::size_t i = 0; i < n; ++i) {
    OperationTime o;
    o.name = records.front().ops[i].first;
    o.start_s = records.front().ops[i].second;
    o.end_s = o.start_s;
    for (const auto& rec : records) {
      const double from = rec.ops[i].second;
      const double until = i + 1 < n ? rec.ops[i + 1].second : rec.end;
      o.time_s = std::max(o.time_s, until - from);
      o.start_s = std::min(o.start_s, from);
      o.end_s = std::max(o.end_s, until);
    }
    out.push_back(std::move(o));
  }
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
  for (PhaseTime& p : res.phases) {
    p.rank_calls.assign(records.size(), {});
    for (std::size_t r = 0; r < records.size(); ++r) {
      const auto it = records[r].counters.phase_calls.find(p.name);
      if (it == records[r].counters.phase_calls.end()) continue;
      for (int c = 0; c < kCallKinds; ++c)
        if (const std::int64_t n = it->second[static_cast<std::size_t>(c)]; n > 0) {
          p.rank_calls[r][call_name(static_cast<Call>(c))] = n;
          p.calls[call_name(static_cast<Call>(c))] += n;
        }
      const auto bytes = records[r].counters.phase_bytes.find(p.name);
      if (bytes == records[r].counters.phase_bytes.end()) continue;
      for (int c = 0; c < kCallKinds; ++c)
        if (const std::int64_t n = bytes->second[static_cast<std::size_t>(c)]; n > 0)
          p.bytes_sent[call_name(static_cast<Call>(c))] += n;
    }
  }
  res.operations = operation_times(records);
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
