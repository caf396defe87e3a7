// An NFSv3 server and its clients as S4U actors behind the file-system seam (see nfs_sim.cpp for the
// model; parameters in nfs_config.hpp; closed forms in nfs_time.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "models/filesystem/disk_ops_sim.hpp"
#include "models/filesystem/file_system_sim.hpp"
#include "models/filesystem/page_cache_sim.hpp"
#include "models/nfs/nfs_config.hpp"

namespace ciosim::nfs {

namespace sg4 = simgrid::s4u;

class NfsSim final : public filesystem::FileSystemSim {
 public:
  NfsSim(const NfsConfig& cfg, filesystem::FileStore& file) : FileSystemSim(file), cfg_(cfg) {}

  /// One server host ("nfs") on the I/O network, with one disk.
  void build(const filesystem::PlatformHooks& platform) override;
  /// The server's dispatcher and, for async commits, its disk flusher (its page cache's, with one).
  void start() override;
  void open(int rank) override;
  void close(int rank) override;
  void write(int rank, std::span<const Extent> regions, std::span<const std::byte> data) override;
  void read(int rank, std::span<const Extent> regions, std::span<std::byte> data) override;
  void sync(int rank) override;

  struct Rpc;

 private:
  /// The WRITE (`writing`) or READ RPCs of `regions` from the calling actor (rank `rank`, -1 for a client
  /// node's flusher), answered to `reply`. With no buffer (wdata or rdata null) the RPCs carry the bytes'
  /// cost only: a client page cache moved the data between the user's buffer and the file already.
  void transfer(int rank, sg4::Mailbox* reply, std::span<const Extent> regions, bool writing,
                const std::byte* wdata, std::byte* rdata);
  /// The page cache of the calling actor's node (client_cache enabled), created at its first use.
  filesystem::PageCacheSim& client_cache();
  void round_trip(int rank, bool commit);
  /// Serves one RPC in a worker of the server (models/filesystem/worker_pool_sim.hpp); returns the disk
  /// operations it issued itself.
  int serve(Rpc* rpc);
  /// One disk operation at `offset` on the server's disk through `ops` (an RPC's actor issues its own; the
  /// flusher, which lives for the whole run, hands them to helpers: disk_ops_sim.hpp), recorded in the
  /// activity log.
  void disk_io(filesystem::DiskOps& ops, bool write, Offset offset, std::int64_t bytes);
  /// The flusher's next write (async commits): the oldest dirty item; on a disk with position, every item
  /// queued behind it up to the next COMMIT marker (at most kElevatorBatch) goes with it, written in the
  /// elevator's order from the head, adjacent ones as one operation.
  void flush_dirty(filesystem::DiskOps& ops);

  const NfsConfig& cfg_;
  sg4::Host* server_ = nullptr;
  std::unique_ptr<filesystem::DiskSim> disk_;
  std::unique_ptr<filesystem::PageCacheSim> cache_;  ///< the server's page cache (if cfg.cache.enabled())
  /// Each client node's page cache (if cfg.client_cache.enabled()), by its host's name.
  std::map<std::string, std::unique_ptr<filesystem::PageCacheSim>> client_caches_;
  int actor_ = -1, disk_actor_ = -1, cpu_res_ = -1, disk_res_ = -1;  ///< activity log ids
  sg4::MutexPtr cpu_;          ///< the server's CPU: RPCs are decoded one at a time
  sg4::SemaphorePtr threads_;  ///< nfsd threads
  // Async commits without a page cache: data received but not yet on disk, written in arrival order by the
  // flusher. A COMMIT
  // queues a marker (length 0) whose semaphore the flusher releases once everything before it is on disk.
  // Actors run one at a time, so the queue needs no lock.
  struct Dirty {
    Offset offset = 0;
    std::int64_t length = 0;
    sg4::SemaphorePtr flushed;  ///< COMMIT markers only
  };
  std::deque<Dirty> dirty_;
  sg4::SemaphorePtr dirty_items_;  ///< counts the queue's entries
};

}  // namespace ciosim::nfs
