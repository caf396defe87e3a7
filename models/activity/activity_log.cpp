#include "models/activity/activity_log.hpp"

#include <algorithm>

namespace ciosim::activity {

const char* resource_kind_name(ResourceKind k) {
  switch (k) {
    case ResourceKind::RankCpu:
      return "rank-cpu";
    case ResourceKind::ServerCpu:
      return "server-cpu";
    case ResourceKind::Disk:
      return "disk";
    case ResourceKind::LinkOut:
      return "link-out";
    case ResourceKind::LinkIn:
      return "link-in";
    case ResourceKind::kCount:
      break;
  }
  return "?";
}

void Busy::add(double start, double end, std::int64_t bytes) {
  if (end < start) end = start;
  if (!spans_.empty() && start <= spans_.back().end && start >= spans_.back().start) {
    Interval& last = spans_.back();
    last.end = std::max(last.end, end);
    last.bytes += static_cast<double>(bytes);
    return;
  }
  spans_.push_back(Interval{start, end, static_cast<double>(bytes)});
}

void Busy::finish() {
  std::stable_sort(spans_.begin(), spans_.end(),
                   [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> merged;
  for (const Interval& i : spans_) {
    if (!merged.empty() && i.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, i.end);
      merged.back().bytes += i.bytes;
    } else {
      merged.push_back(i);
    }
  }
  spans_ = std::move(merged);
}

double Busy::busy_within(double t0, double t1) const {
  double sum = 0;
  for (const Interval& i : spans_) sum += std::max(0.0, std::min(t1, i.end) - std::max(t0, i.start));
  return sum;
}

double Busy::bytes_within(double t0, double t1) const {
  double sum = 0;
  for (const Interval& i : spans_) {
    const double overlap = std::min(t1, i.end) - std::max(t0, i.start);
    if (i.end == i.start) {
      if (i.start >= t0 && i.start <= t1) sum += i.bytes;
    } else if (overlap > 0) {
      sum += i.bytes * overlap / (i.end - i.start);
    }
  }
  return sum;
}

double Busy::total_busy() const {
  double sum = 0;
  for (const Interval& i : spans_) sum += i.end - i.start;
  return sum;
}

int Log::resource(ResourceKind kind, const std::string& name, const std::string& host) {
  const auto key = std::make_pair(static_cast<int>(kind), name);
  if (const auto it = resource_ids_.find(key); it != resource_ids_.end()) return it->second;
  resources_.push_back(Resource{kind, name, host, {}});
  const int id = static_cast<int>(resources_.size()) - 1;
  resource_ids_.emplace(key, id);
  return id;
}

int Log::actor(ActorKind kind, const std::string& name, const std::string& host, int rank) {
  const auto key = std::make_pair(static_cast<int>(kind), name);
  if (const auto it = actor_ids_.find(key); it != actor_ids_.end()) return it->second;
  actors_.push_back(Actor{kind, name, host, rank});
  const int id = static_cast<int>(actors_.size()) - 1;
  actor_ids_.emplace(key, id);
  return id;
}

void Log::finish() {
  for (Resource& r : resources_) r.busy.finish();
}

}  // namespace ciosim::activity
