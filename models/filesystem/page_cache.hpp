// What a write-back page cache in front of a disk holds: which bytes of the file are cached, which of them
// are dirty (written by an application, not yet on disk) and which are being written back. Pure C++, so
// that the accounting the simulation runs (models/filesystem/page_cache_sim.hpp) is tested on its own.
//
// Modelled after Linux's page cache and its writeback (Documentation/admin-guide/sysctl/vm.rst for the
// tunables; Bovet and Cesati, "Understanding the Linux Kernel", 3rd ed., ch. 15–16, for 2.6's mechanism):
//  - the cache holds whole pages (4 KiB): a write dirties every page it touches, a read brings in every
//    page it misses;
//  - dirty pages are written back in file-offset order, resuming where the previous writeback of the file
//    stopped and wrapping around at its end (the kernel's per-file writeback index), at most a batch at a
//    time; pages under writeback count as clean in the map (a new write dirties them again) but are
//    counted apart until the disk has them;
//  - when the cache must give memory back, it drops clean pages, least recently used first. The grain is a
//    run of adjacent cached pages that were last used together, coarser than the kernel's per-page lists.
// The file's "dirtied when" is the moment it went from clean to dirty, as the kernel keeps it per inode:
// the periodic writeback writes the whole file once that is older than the expiry.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "algorithms/common/process.hpp"

namespace ciosim::filesystem {

/// A page cache's tunables (the platform file's page_cache_* keys of a file system's table).
struct PageCacheConfig {
  double bytes = 0;          ///< memory the cache may use (0: no cache, the disk is written through)
  double dirty_ratio = 0.2;  ///< fraction of `bytes` dirty (or under writeback) above which writers wait
  double dirty_background_ratio = 0.1;  ///< fraction of `bytes` dirty above which the flusher starts writing
  double dirty_expire_s = 30;       ///< dirty data older than this is written by the periodic writeback, s
  double writeback_interval_s = 5;  ///< period of the flusher's periodic wake-up, s
  double copy_Bps = 350e6;  ///< the host's memory copy: what a write into or read from the cache costs

  [[nodiscard]] bool enabled() const { return bytes > 0; }
  /// Dirty bytes (writeback included) at which writers are throttled.
  [[nodiscard]] double dirty_limit() const { return dirty_ratio * bytes; }
  /// Dirty bytes at which the flusher starts writing in the background.
  [[nodiscard]] double background_limit() const { return dirty_background_ratio * bytes; }
  /// "" when the values describe a cache (or none), else what is wrong, naming the keys under `prefix`
  /// ("pvfs.page_cache_").
  [[nodiscard]] std::string problem(const std::string& prefix) const;
};

class PageCache {
 public:
  static constexpr std::int64_t kPage = 4096;  ///< x86 Linux's page size, bytes

  /// Dirties the pages of [offset, offset + length) at time `now`; returns the bytes that became dirty
  /// (pages that were clean or not cached).
  std::int64_t write(Offset offset, std::int64_t length, double now);
  /// The page-aligned ranges of [offset, offset + length) not in the cache, in offset order.
  [[nodiscard]] std::vector<Extent> misses(Offset offset, std::int64_t length) const;
  /// Puts the pages of [offset, offset + length), just read from the disk, in the cache as clean (pages
  /// already cached keep their state).
  void insert_clean(Offset offset, std::int64_t length);
  /// Marks the cached pages of [offset, offset + length) as just used (a read that hit).
  void touch(Offset offset, std::int64_t length);
  /// Takes up to `max_bytes` of dirty pages for writeback, from the writeback index onwards in offset
  /// order, wrapping around once; they become clean and are counted as under writeback until written().
  std::vector<Extent> take_dirty(std::int64_t max_bytes);
  /// `bytes` taken by take_dirty are on the disk.
  void written(std::int64_t bytes);
  /// Drops clean pages, least recently used first, until at most `capacity` bytes are cached (dirty and
  /// writeback pages stay).
  void evict(std::int64_t capacity);

  [[nodiscard]] std::int64_t dirty() const { return dirty_; }
  [[nodiscard]] std::int64_t writeback() const { return writeback_; }
  [[nodiscard]] std::int64_t cached() const { return cached_; }
  /// When the file went from clean to dirty (meaningless while it is clean).
  [[nodiscard]] double dirtied_when() const { return dirtied_when_; }

 private:
  struct Run {
    Offset end;
    bool dirty;
    std::uint64_t used;  ///< the last operation that touched it (a counter: deterministic)
  };
  /// Cuts the run holding `at` (if any) in two at `at`.
  void split(Offset at);
  /// Makes [a, b) one run with the given state (after splitting at a and b); returns the dirty bytes it
  /// covered before.
  std::int64_t assign(Offset a, Offset b, bool dirty);
  /// Joins the run starting at `start` with its neighbours where adjacent and in the same state.
  void join_around(Offset start);

  std::map<Offset, Run> runs_;  ///< disjoint, page-aligned, keyed by their first byte
  std::int64_t dirty_ = 0;
  std::int64_t writeback_ = 0;
  std::int64_t cached_ = 0;
  Offset writeback_index_ = 0;
  double dirtied_when_ = 0;
  std::uint64_t clock_ = 0;
};

}  // namespace ciosim::filesystem
