#include "config/time_use.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace ciosim::config {
namespace {

using activity::ResourceKind;

std::string pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f %%", 100.0 * fraction);
  return buf;
}

std::string plural(const std::string& kind) {
  if (kind == "rank-cpu") return "rank CPUs";
  if (kind == "server-cpu") return "server CPUs";
  if (kind == "disk") return "disks";
  if (kind == "link-out") return "network links (sending)";
  if (kind == "link-in") return "network links (receiving)";
  return kind;
}

/// The resource kind to name as the phase's bound: the highest mean busy fraction (a kind with one busy
/// member counts as its mean). Null if nothing was busy.
const ResourceUse* busiest_kind(const PhaseTime& p) {
  const ResourceUse* best = nullptr;
  for (const ResourceUse& u : p.resources)
    if (!best || u.busy_mean > best->busy_mean) best = &u;
  return best;
}

/// Names in natural order ("iod2" before "iod10"), so that resources are summed and ties broken in an
/// order that does not depend on which of two simultaneous events the simulation recorded first.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  std::size_t j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ie = i;
      std::size_t je = j;
      while (ie < a.size() && a[ie] == '0') ++ie;  // leading zeros do not count
      while (je < b.size() && b[je] == '0') ++je;
      std::size_t ie_end = ie;
      std::size_t je_end = je;
      while (ie_end < a.size() && digit(a[ie_end])) ++ie_end;
      while (je_end < b.size() && digit(b[je_end])) ++je_end;
      if (ie_end - ie != je_end - je) return ie_end - ie < je_end - je;
      if (const int c = a.compare(ie, ie_end - ie, b, je, je_end - je); c != 0) return c < 0;
      i = ie_end;
      j = je_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

}  // namespace

void describe_use(const activity::Log& log, RunResult& res) {
  std::vector<const activity::Resource*> resources;
  for (const activity::Resource& r : log.resources()) resources.push_back(&r);
  std::sort(resources.begin(), resources.end(), [](const activity::Resource* a, const activity::Resource* b) {
    return natural_less(a->name, b->name);
  });
  for (PhaseTime& p : res.phases) {
    p.resources.clear();
    const double t0 = p.start_s;
    const double t1 = p.end_s;
    const double window = t1 - t0;
    if (window <= 0) continue;
    for (int k = 0; k < static_cast<int>(ResourceKind::kCount); ++k) {
      ResourceUse u;
      u.kind = activity::resource_kind_name(static_cast<ResourceKind>(k));
      double sum = 0;
      double bytes = 0;
      for (const activity::Resource* r : resources) {
        if (static_cast<int>(r->kind) != k) continue;
        const double busy = r->busy.busy_within(t0, t1) / window;
        if (busy <= 0) continue;
        ++u.count;
        sum += busy;
        bytes += r->busy.bytes_within(t0, t1);
        if (busy > u.busy_max) {
          u.busy_max = busy;
          u.busiest = r->name;
        }
      }
      if (u.count == 0) continue;
      u.busy_mean = sum / u.count;
      u.bytes_per_s = bytes / u.count / window;
      p.resources.push_back(std::move(u));
    }
  }
  res.bottleneck = bottleneck_line(res);
}

std::string bottleneck_line(const RunResult& res) {
  const PhaseTime* longest = nullptr;
  for (const PhaseTime& p : res.phases)
    if (!longest || p.time_s > longest->time_s) longest = &p;
  if (!longest || longest->time_s <= 0) return "";
  const PhaseTime& p = *longest;
  std::string line = p.name;
  if (res.sim_time_s > 0) line += " (" + pct(p.time_s / res.sim_time_s) + " of the run)";
  line += ": ";
  const ResourceUse* u = busiest_kind(p);
  char rate[64] = "";
  if (!u || u->busy_mean < 0.5) {
    line += "no kind of resource is busy half of it (";
    line += u ? plural(u->kind) + " busy " + pct(u->busy_mean) + ", the most" : "nothing is busy";
    line += "): latency and waiting bound it";
  } else {
    line += plural(u->kind) + " busy " + pct(u->busy_mean) + " of it (" + std::to_string(u->count) +
            (u->count == 1 ? " of them: " + u->busiest
                           : " of them, busiest " + u->busiest + " " + pct(u->busy_max)) +
            ")";
    if (u->bytes_per_s > 0) {
      std::snprintf(rate, sizeof rate, ", %.1f MB/s each", u->bytes_per_s / 1e6);
      line += rate;
    }
  }
  if (!p.rank_cpu_s.empty()) {
    std::size_t slow = 0;
    for (std::size_t r = 1; r < p.rank_time_s.size(); ++r)
      if (p.rank_time_s[r] > p.rank_time_s[slow]) slow = r;
    const double t = p.rank_time_s[slow];
    if (t > 0)
      line += "; its slowest rank (rank " + std::to_string(slow) + ") spent " + pct(p.rank_cpu_s[slow] / t) +
              " in CPU work, " + pct(p.rank_network_s[slow] / t) + " in MPI calls, " +
              pct(p.rank_filesystem_s[slow] / t) + " in file-system calls";
  }
  return line;
}

}  // namespace ciosim::config
