#include "sim/comm_stats.hpp"

#include <algorithm>
#include <utility>

namespace ciosim::sim {

std::int64_t CommStats::add_eager(double now, int dst, const char* call) {
  ++eager_by_call[call];
  eager.push_back(Eager{now, -1, -1});
  const auto d = static_cast<std::size_t>(dst);
  unmatched_max[d] = std::max(unmatched_max[d], ++unmatched[d]);
  return static_cast<std::int64_t>(eager.size()) - 1;
}

void CommStats::matched(int dst) {
  --unmatched[static_cast<std::size_t>(dst)];
}

void CommStats::hold(int rank, int delta) {
  const auto r = static_cast<std::size_t>(rank);
  held[r] += delta;
  held_max[r] = std::max(held_max[r], held[r]);
}

void CommStats::wait(int rank) {
  held_at_wait_sum += static_cast<double>(held[static_cast<std::size_t>(rank)]);
  ++waits;
}

void CommStats::report(std::ostream& out) const {
  // Sweep the eager messages' [posted, finished) intervals: how many are in flight at each moment, and
  // the scans of that many nodes their completions cost when they were detached.
  // Starts sort before ends at equal times (a message is in the list when a same-time one finishes).
  std::vector<std::pair<double, int>> ev;  // (time, +1 start / -1 end / 0 late wait: a second scan)
  ev.reserve(eager.size() * 3);
  for (const Eager& e : eager) {
    ev.emplace_back(e.posted, 1);
    if (e.finished >= 0) ev.emplace_back(e.finished, -1);
    if (e.waited >= 0 && e.finished >= 0 && e.waited > e.finished) ev.emplace_back(e.waited, 0);
  }
  std::sort(ev.begin(), ev.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  std::int64_t len = 0, max_len = 0;
  double area = 0, last = ev.empty() ? 0 : ev.front().first, scans = 0, scanned = 0;
  for (const auto& [t, k] : ev) {
    area += static_cast<double>(len) * (t - last);
    last = t;
    if (k > 0) {
      max_len = std::max(max_len, ++len);
    } else {
      scanned += static_cast<double>(len);  // std::list::remove visits every node
      scans += 1;
      if (k < 0) --len;
    }
  }
  const double span = ev.empty() ? 0 : ev.back().first - ev.front().first;
  std::int64_t hmax = 0, umax = 0;
  double hmean = 0, umean = 0;
  for (std::size_t r = 0; r < held_max.size(); ++r) {
    hmax = std::max(hmax, held_max[r]);
    umax = std::max(umax, unmatched_max[r]);
    hmean += static_cast<double>(held_max[r]);
    umean += static_cast<double>(unmatched_max[r]);
  }
  const auto n = static_cast<double>(std::max<std::size_t>(held_max.size(), 1));
  out << "comm-stats: eager messages " << eager.size() << " (by call:";
  for (const auto& [call, count] : eager_by_call) out << " " << call << " " << count;
  out << ")\n"
      << "comm-stats: eager messages in flight (the maestro list when detached): max " << max_len
      << ", time-mean " << (span > 0 ? area / span : 0) << ", scans " << scans << ", mean length per scan "
      << (scans > 0 ? scanned / scans : 0) << ", nodes visited " << scanned << "\n"
      << "comm-stats: rank lists (held comms): max over ranks of the peak " << hmax << ", mean peak "
      << hmean / n << "; waits " << waits << ", mean length per wait "
      << (waits > 0 ? held_at_wait_sum / static_cast<double>(waits) : 0) << ", nodes visited "
      << held_at_wait_sum << "\n"
      << "comm-stats: unmatched eager messages per receiver: max peak " << umax << ", mean peak " << umean / n
      << "\n";
}

}  // namespace ciosim::sim
