// A write-back page cache in the simulation; see page_cache_sim.hpp.
#include "models/filesystem/page_cache_sim.hpp"

#include <algorithm>
#include <cmath>

#include "models/filesystem/server_cpu_sim.hpp"

namespace ciosim::filesystem {

namespace {

/// Pages the flusher writes back per batch: Linux 2.6's MAX_WRITEBACK_PAGES (fs/fs-writeback.c), 4 MiB.
constexpr std::int64_t kBatchPages = 1024;

double now() {
  return sg4::Engine::get_clock();
}

}  // namespace

PageCacheSim::PageCacheSim(const PageCacheConfig& cfg, sg4::Host* host, DiskIo io, sg4::Host* cpu)
    : cfg_(cfg), host_(host), io_(std::move(io)), cpu_(cpu) {}

void PageCacheSim::start() {
  kick_ = sg4::Semaphore::create(0);
  sg4::Actor::create("flusher", host_, [this] {
    sg4::Actor::self()->daemonize();
    flusher();
  });
}

double PageCacheSim::due() const {
  // The periodic wake-up that finds the file dirty for longer than the expiry.
  return std::ceil((cache_.dirtied_when() + cfg_.dirty_expire_s) / cfg_.writeback_interval_s) *
         cfg_.writeback_interval_s;
}

bool PageCacheSim::work() const {
  if (cache_.dirty() == 0) return false;
  if (throttled_ > 0 || flush_to_ > cleaned_) return true;
  if (static_cast<double>(cache_.dirty()) > cfg_.background_limit()) return true;
  return now() >= due();
}

void PageCacheSim::wait_for_batch() {
  const sg4::SemaphorePtr done = sg4::Semaphore::create(0);
  waiting_.push_back(done);
  kick_->release();
  done->acquire();
}

void PageCacheSim::flusher() {
  DiskOps ops(host_, 0);  // it lives for the whole run: disk_ops_sim.hpp
  for (;;) {
    if (!work()) {
      if (cache_.dirty() > 0)
        kick_->acquire_timeout(std::max(0.0, due() - now()));
      else
        kick_->acquire();
      continue;
    }
    const std::vector<Extent> batch = cache_.take_dirty(kBatchPages * PageCache::kPage);
    std::int64_t bytes = 0;
    for (const Extent& e : batch) bytes += e.length;
    for (const Extent& e : batch) io_(ops, true, e.offset, e.length);
    cache_.written(bytes);
    cleaned_ += bytes;
    std::vector<sg4::SemaphorePtr> waiters;
    waiters.swap(waiting_);
    for (const auto& w : waiters) w->release();
  }
}

void PageCacheSim::write(Offset position, std::int64_t bytes) {
  const auto limit = static_cast<std::int64_t>(cfg_.dirty_limit());
  const auto capacity = static_cast<std::int64_t>(cfg_.bytes);
  while (bytes > 0) {
    while (cache_.dirty() + cache_.writeback() >= limit) {
      ++throttled_;
      wait_for_batch();
      --throttled_;
    }
    const std::int64_t room = limit - (cache_.dirty() + cache_.writeback());
    const std::int64_t n = std::min(bytes, std::max(room, PageCache::kPage));
    spend_cpu(cpu_, static_cast<double>(n) / cfg_.copy_Bps);
    cache_.write(position, n, now());
    cache_.evict(capacity);
    kick_->release();  // past the background threshold, or a first dirty page whose expiry it must time
    position += n;
    bytes -= n;
  }
}

void PageCacheSim::read(DiskOps& ops, Offset position, std::int64_t bytes) {
  const auto capacity = static_cast<std::int64_t>(cfg_.bytes);
  for (const Extent& e : cache_.misses(position, bytes)) {
    io_(ops, false, e.offset, e.length);
    cache_.insert_clean(e.offset, e.length);
    cache_.evict(capacity);
  }
  cache_.touch(position, bytes);
  if (bytes > 0) spend_cpu(cpu_, static_cast<double>(bytes) / cfg_.copy_Bps);
}

void PageCacheSim::flush() {
  const std::int64_t target = cleaned_ + cache_.dirty() + cache_.writeback();
  flush_to_ = std::max(flush_to_, target);
  while (cleaned_ < target) wait_for_batch();
}

}  // namespace ciosim::filesystem
