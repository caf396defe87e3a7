// A file on one compute node's own disk behind the file-system seam (see local_sim.cpp).
#pragma once

#include <memory>
#include <vector>

#include "models/filesystem/disk_ops_sim.hpp"
#include "models/filesystem/file_system_sim.hpp"
#include "models/filesystem/page_cache_sim.hpp"
#include "models/local/local_config.hpp"

namespace ciosim::local {

namespace sg4 = simgrid::s4u;

class LocalDiskSim final : public filesystem::FileSystemSim {
 public:
  LocalDiskSim(const LocalDiskConfig& cfg, filesystem::FileStore& file) : FileSystemSim(file), cfg_(cfg) {}

  /// A disk ("local-disk") on every compute node; the file lives on node cfg.node's.
  void build(const filesystem::PlatformHooks& platform) override;
  /// Starts the page cache's flusher (with a cache).
  void start() override;
  void open(int rank) override;
  void close(int rank) override;
  void write(int rank, std::span<const Extent> regions, std::span<const std::byte> data) override;
  void read(int rank, std::span<const Extent> regions, std::span<std::byte> data) override;
  /// Without a page cache writes are on disk when they return: nothing to flush; with one, fsync.
  void sync(int rank) override;

 private:
  /// The file's disk, after checking that the calling rank runs on the file's node.
  filesystem::DiskSim& disk_of_caller(int rank, const char* what) const;

  const LocalDiskConfig& cfg_;
  std::vector<sg4::Host*> nodes_;
  std::unique_ptr<filesystem::DiskSim> disk_;        ///< node cfg.node's disk, which holds the file
  std::unique_ptr<filesystem::PageCacheSim> cache_;  ///< that node's page cache (if cfg.cache.enabled())
  int disk_actor_ = -1, disk_res_ = -1;              ///< activity log ids of the file's disk
  /// The file's inode lock: a buffered write holds it while it copies into the page cache (below).
  sg4::MutexPtr inode_lock_;
};

}  // namespace ciosim::local
