// A page cache's accounting; see page_cache.hpp.
#include "models/filesystem/page_cache.hpp"

#include <algorithm>
#include <sstream>

namespace ciosim::filesystem {

namespace {

Offset page_floor(Offset x) {
  return x / PageCache::kPage * PageCache::kPage;
}
Offset page_ceil(Offset x) {
  return (x + PageCache::kPage - 1) / PageCache::kPage * PageCache::kPage;
}

std::string num(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

std::string PageCacheConfig::problem(const std::string& prefix) const {
  if (!enabled()) return "";
  if (bytes < static_cast<double>(PageCache::kPage))
    return prefix + "bytes = " + num(bytes) +
           " holds less than one 4096-byte page; give 0 (no cache) or more";
  if (dirty_ratio <= 0 || dirty_ratio > 1)
    return prefix + "dirty_ratio must be in (0, 1] (a fraction of " + prefix + "bytes), got " +
           num(dirty_ratio);
  if (dirty_background_ratio <= 0 || dirty_background_ratio > dirty_ratio)
    return prefix + "dirty_background_ratio (" + num(dirty_background_ratio) + ") must be > 0 and at most " +
           prefix + "dirty_ratio (" + num(dirty_ratio) +
           "): the flusher must start before writers are throttled (Linux silently halves the limit instead; "
           "give the value meant)";
  if (dirty_limit() < static_cast<double>(PageCache::kPage))
    return prefix + "dirty_ratio x " + prefix +
           "bytes is less than one 4096-byte page: no write could proceed";
  if (writeback_interval_s <= 0)
    return prefix + "writeback_interval_s must be > 0 (the flusher's period), got " +
           num(writeback_interval_s);
  return "";
}

void PageCache::split(Offset at) {
  auto it = runs_.upper_bound(at);
  if (it == runs_.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  Run tail = it->second;
  it->second.end = at;
  runs_.emplace(at, tail);
}

std::int64_t PageCache::assign(Offset a, Offset b, bool dirty) {
  split(a);
  split(b);
  std::int64_t was_dirty = 0;
  std::int64_t was_cached = 0;
  for (auto it = runs_.lower_bound(a); it != runs_.end() && it->first < b;) {
    const std::int64_t len = it->second.end - it->first;
    was_cached += len;
    if (it->second.dirty) was_dirty += len;
    it = runs_.erase(it);
  }
  runs_.emplace(a, Run{b, dirty, ++clock_});
  cached_ += (b - a) - was_cached;
  dirty_ += (dirty ? b - a : 0) - was_dirty;
  join_around(a);
  return was_dirty;
}

void PageCache::join_around(Offset start) {
  auto it = runs_.find(start);
  const auto joinable = [](const Run& x, const Run& y) {
    return x.dirty == y.dirty && (x.dirty || x.used == y.used);
  };
  if (it != runs_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end == it->first && joinable(prev->second, it->second)) {
      prev->second.end = it->second.end;
      prev->second.used = std::max(prev->second.used, it->second.used);
      runs_.erase(it);
      it = prev;
    }
  }
  auto next = std::next(it);
  if (next != runs_.end() && it->second.end == next->first && joinable(it->second, next->second)) {
    it->second.end = next->second.end;
    it->second.used = std::max(it->second.used, next->second.used);
    runs_.erase(next);
  }
}

std::int64_t PageCache::write(Offset offset, std::int64_t length, double now) {
  if (length <= 0) return 0;
  const Offset a = page_floor(offset);
  const Offset b = page_ceil(offset + length);
  const bool was_clean = dirty_ == 0;
  const std::int64_t already = assign(a, b, true);
  if (was_clean) dirtied_when_ = now;
  return (b - a) - already;
}

std::vector<Extent> PageCache::misses(Offset offset, std::int64_t length) const {
  std::vector<Extent> out;
  if (length <= 0) return out;
  Offset at = page_floor(offset);
  const Offset b = page_ceil(offset + length);
  auto it = runs_.upper_bound(at);
  if (it != runs_.begin() && std::prev(it)->second.end > at) --it;
  for (; at < b; ++it) {
    const Offset next = it == runs_.end() ? b : std::min(b, it->first);
    if (next > at) out.push_back(Extent{at, next - at});
    if (it == runs_.end()) break;
    at = std::max(at, it->second.end);
  }
  return out;
}

void PageCache::insert_clean(Offset offset, std::int64_t length) {
  for (const Extent& e : misses(offset, length)) assign(e.offset, e.offset + e.length, false);
}

void PageCache::touch(Offset offset, std::int64_t length) {
  if (length <= 0) return;
  const Offset b = offset + length;
  auto it = runs_.upper_bound(offset);
  if (it != runs_.begin()) --it;
  const std::uint64_t stamp = ++clock_;
  for (; it != runs_.end() && it->first < b; ++it)
    if (it->second.end > offset) it->second.used = stamp;
}

std::vector<Extent> PageCache::take_dirty(std::int64_t max_bytes) {
  std::vector<Extent> out;
  max_bytes = std::max<std::int64_t>(PageCache::kPage, page_floor(max_bytes));
  if (dirty_ == 0) return out;
  split(writeback_index_);
  std::int64_t taken = 0;
  const auto collect = [&](auto from, auto to) {
    for (auto it = from; it != to && taken < max_bytes; ++it) {
      if (!it->second.dirty) continue;
      const std::int64_t len = std::min(it->second.end - it->first, max_bytes - taken);
      out.push_back(Extent{it->first, len});
      taken += len;
    }
  };
  const auto pivot = runs_.lower_bound(writeback_index_);
  collect(pivot, runs_.end());
  collect(runs_.begin(), pivot);
  for (const Extent& e : out) assign(e.offset, e.offset + e.length, false);
  writeback_ += taken;
  if (!out.empty()) writeback_index_ = out.back().offset + out.back().length;
  return out;
}

void PageCache::written(std::int64_t bytes) {
  writeback_ -= std::min(bytes, writeback_);
}

void PageCache::evict(std::int64_t capacity) {
  while (cached_ > capacity) {
    auto victim = runs_.end();
    for (auto it = runs_.begin(); it != runs_.end(); ++it)
      if (!it->second.dirty && (victim == runs_.end() || it->second.used < victim->second.used)) victim = it;
    if (victim == runs_.end()) return;  // only dirty pages left: they cannot go
    const Offset start = victim->first;
    const Run run = victim->second;
    const std::int64_t drop = std::min(run.end - start, page_ceil(cached_ - capacity));
    runs_.erase(victim);
    if (start + drop < run.end) runs_.emplace(start + drop, run);
    cached_ -= drop;
  }
}

}  // namespace ciosim::filesystem
