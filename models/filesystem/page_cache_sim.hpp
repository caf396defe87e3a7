// A write-back page cache in front of a file system's disk, in the simulation (the accounting:
// page_cache.hpp). One per disk: a PVFS I/O server's, the NFS server's, the node's whose disk holds a local
// file.
//
// After Linux 2.6's writeback (Documentation/admin-guide/sysctl/vm.rst; fs/fs-writeback.c,
// mm/page-writeback.c of that era):
//  - a write copies its bytes into the cache (copy_Bps, on the writer's CPU) and returns: the data is dirty
//    in memory. Before copying, a writer that would take the dirty bytes (writeback included) above
//    dirty_ratio x bytes waits until the flusher has brought them below (balance_dirty_pages): a writer
//    faster than the disk is held to the disk's pace once the limit is reached;
//  - a flusher (pdflush) writes dirty pages back, in batches of at most 1024 pages (MAX_WRITEBACK_PAGES),
//    in the file's offset order from where it last stopped, one disk operation per run of adjacent dirty
//    pages: in the background while the dirty bytes exceed dirty_background_ratio x bytes, for throttled
//    writers and for sync, and, at its periodic wake-up (every writeback_interval_s), the whole file
//    once it has been dirty for dirty_expire_s;
//  - a read copies what is cached and reads each missing run of pages from the disk first (no
//    read-ahead is modelled);
//  - flush() (fsync, the file system's sync or commit) returns when everything dirty at its call is on
//    disk;
//  - clean pages are dropped, least recently used first, when the cache would exceed `bytes`.
// A file system without a cache (bytes = 0) does not create one: its disk is written through as before.
#pragma once

#include <cstdint>
#include <functional>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "models/filesystem/disk_ops_sim.hpp"
#include "models/filesystem/page_cache.hpp"

namespace ciosim::filesystem {

class PageCacheSim {
 public:
  /// Moves `bytes` at `position` to (write) or from the disk, from the calling actor, through `ops`.
  using DiskIo = std::function<void(DiskOps& ops, bool write, Offset position, std::int64_t bytes)>;

  /// The cache of the disk on `host` (its flusher runs there), writing and reading through `io`; its
  /// copies run on `cpu`'s cores when given (a server beside a compute node: server_cpu_sim.hpp), else
  /// in the copying actor's own time.
  PageCacheSim(const PageCacheConfig& cfg, sg4::Host* host, DiskIo io, sg4::Host* cpu = nullptr);
  PageCacheSim(const PageCacheSim&) = delete;
  PageCacheSim& operator=(const PageCacheSim&) = delete;

  /// Starts the flusher; call once, after the platform is sealed.
  void start();
  /// Writes `bytes` at `position` into the cache (waiting while the dirty limit is reached); the copy is
  /// the calling actor's own time (a server's copy runs beside its request decoding: the servers of the
  /// shipped platforms have two CPUs, and a copy queued behind every decode at one would make each small
  /// request wait twice — tried: independent's SL1 write on stem2-cache 0.84 s so, 0.39 s not).
  void write(Offset position, std::int64_t bytes);
  /// Reads `bytes` at `position`: the missing pages from the disk through `ops`, then the copy.
  void read(DiskOps& ops, Offset position, std::int64_t bytes);
  /// Returns when everything dirty now is on the disk.
  void flush();

  [[nodiscard]] const PageCache& state() const { return cache_; }

 private:
  /// Whether the flusher has writing to do now (throttled writers, a sync, the background threshold,
  /// an expired file).
  [[nodiscard]] bool work() const;
  /// When the periodic wake-up finds the file's dirty data expired.
  [[nodiscard]] double due() const;
  void flusher();

  PageCacheConfig cfg_;
  sg4::Host* host_;
  DiskIo io_;
  sg4::Host* cpu_;
  PageCache cache_;
  // Actors run one at a time, so the state needs no lock; waiting is on semaphores (a daemon killed at the
  // end of the simulation while it holds a mutex of a condition variable would hang with thread contexts).
  sg4::SemaphorePtr kick_;                  ///< wakes the flusher (a release may be spurious: it rechecks)
  std::vector<sg4::SemaphorePtr> waiting_;  ///< throttled writers and flushes, released after each batch
  int throttled_ = 0;                       ///< writers waiting for the dirty bytes to fall
  std::int64_t cleaned_ = 0;                ///< bytes written back so far
  std::int64_t flush_to_ = 0;               ///< a flush waits until cleaned_ reaches this
  /// Blocks the caller until the flusher's next batch is on disk.
  void wait_for_batch();
};

}  // namespace ciosim::filesystem
