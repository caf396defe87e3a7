// A write-back page cache in the simulation; see page_cache_sim.hpp.
#include "models/filesystem/page_cache_sim.hpp"

#include <algorithm>
#include <cmath>

namespace ciosim::filesystem {

namespace {

/// Pages the flusher writes back per batch: Linux 2.6's MAX_WRITEBACK_PAGES (fs/fs-writeback.c), 4 MiB.
constexpr std::int64_t kBatchPages = 1024;

double now() {
  return sg4::Engine::get_clock();
}

}  // namespace

PageCacheSim::PageCacheSim(const PageCacheConfig& cfg, sg4::Host* host, DiskIo io)
    : cfg_(cfg), host_(host), io_(std::move(io)) {}

void PageCacheSim::start() {
  mutex_ = sg4::Mutex::create();
  wake_ = sg4::ConditionVariable::create();
  done_ = sg4::ConditionVariable::create();
  sg4::Actor::create("flusher", host_, [this] {
    sg4::Actor::self()->daemonize();
    flusher();
  });
}

bool PageCacheSim::work() const {
  if (cache_.dirty() == 0) return false;
  if (throttled_ > 0 || flush_to_ > cleaned_) return true;
  if (static_cast<double>(cache_.dirty()) > cfg_.background_limit()) return true;
  // The periodic wake-up that finds the file dirty for longer than the expiry.
  const double due = std::ceil((cache_.dirtied_when() + cfg_.dirty_expire_s) / cfg_.writeback_interval_s) *
                     cfg_.writeback_interval_s;
  return now() >= due;
}

void PageCacheSim::flusher() {
  DiskOps ops(host_, 0);  // it lives for the whole run: disk_ops_sim.hpp
  std::unique_lock lock(*mutex_);
  for (;;) {
    if (!work()) {
      if (cache_.dirty() > 0) {
        const double due =
            std::ceil((cache_.dirtied_when() + cfg_.dirty_expire_s) / cfg_.writeback_interval_s) *
            cfg_.writeback_interval_s;
        wake_->wait_until(lock, due);
      } else {
        wake_->wait(lock);
      }
      continue;
    }
    const std::vector<Extent> batch = cache_.take_dirty(kBatchPages * PageCache::kPage);
    std::int64_t bytes = 0;
    for (const Extent& e : batch) bytes += e.length;
    lock.unlock();
    for (const Extent& e : batch) io_(ops, true, e.offset, e.length);
    lock.lock();
    cache_.written(bytes);
    cleaned_ += bytes;
    done_->notify_all();
  }
}

void PageCacheSim::write(Offset position, std::int64_t bytes) {
  const auto limit = static_cast<std::int64_t>(cfg_.dirty_limit());
  const auto capacity = static_cast<std::int64_t>(cfg_.bytes);
  while (bytes > 0) {
    std::unique_lock lock(*mutex_);
    while (cache_.dirty() + cache_.writeback() >= limit) {
      ++throttled_;
      wake_->notify_one();
      done_->wait(lock);
      --throttled_;
    }
    const std::int64_t room = limit - (cache_.dirty() + cache_.writeback());
    const std::int64_t n = std::min(bytes, std::max(room, PageCache::kPage));
    lock.unlock();
    sg4::this_actor::sleep_for(static_cast<double>(n) / cfg_.copy_Bps);
    lock.lock();
    cache_.write(position, n, now());
    cache_.evict(capacity);
    wake_->notify_one();  // past the background threshold, or a first dirty page whose expiry it must time
    position += n;
    bytes -= n;
  }
}

void PageCacheSim::read(DiskOps& ops, Offset position, std::int64_t bytes) {
  const auto capacity = static_cast<std::int64_t>(cfg_.bytes);
  std::vector<Extent> missing;
  {
    std::unique_lock lock(*mutex_);
    missing = cache_.misses(position, bytes);
  }
  for (const Extent& e : missing) {
    io_(ops, false, e.offset, e.length);
    std::unique_lock lock(*mutex_);
    cache_.insert_clean(e.offset, e.length);
    cache_.evict(capacity);
  }
  {
    std::unique_lock lock(*mutex_);
    cache_.touch(position, bytes);
  }
  if (bytes > 0) sg4::this_actor::sleep_for(static_cast<double>(bytes) / cfg_.copy_Bps);
}

void PageCacheSim::flush() {
  std::unique_lock lock(*mutex_);
  const std::int64_t target = cleaned_ + cache_.dirty() + cache_.writeback();
  if (target == cleaned_) return;
  flush_to_ = std::max(flush_to_, target);
  wake_->notify_one();
  while (cleaned_ < target) done_->wait(lock);
}

}  // namespace ciosim::filesystem
