// A node's own disk: the "Sec /tmp" baseline of Singh et al., "Multiple-Phase Collective I/O" (the
// gathering process writes the whole array to its node's /tmp). No network: the data goes from the
// rank's memory to its node's disk.
//  - a read or write call costs request_overhead_s of the calling rank's time, and each further contiguous
//    region of a list call region_overhead_s (a platform file without that key gets request_overhead_s:
//    one pwrite/pread per region, the model before the key); an open costs open_overhead_s and a close
//    close_overhead_s, the MPI-IO library's own work in them included (a platform file without those keys
//    gets request_overhead_s for each: one system call, the model before the keys);
//  - the data is written through to the disk at disk_write_Bps (read from it at disk_read_Bps); the
//    ranks of one node share its disk (SimGrid shares the disk's bandwidth among concurrent requests;
//    a disk with a geometry serves them one at a time in elevator order, each after a seek and rotation
//    unless its head is already there: models/filesystem/disk_sim.hpp).
//    Without a page cache (local.page_cache_bytes = 0) a write returns when its data is on the disk;
//    with one, the node's page cache (models/filesystem/page_cache_sim.hpp) takes it at the node's memory
//    copy speed and writes it back as Linux does; sync (fsync) waits for it, close does not (ext3 and ext4
//    do not flush at close). A write into the page cache holds the file's inode lock while it copies, as
//    Linux's buffered writes do (ext4_buffered_write_iter and XFS's buffered write take the inode's
//    i_rwsem exclusively around the copy, dirty throttling included), so the writes of several ranks to
//    one file are copied one at a time, each call's own cost (request_overhead_s, region_overhead_s: the
//    pages found and allocated, the checks) inside the lock as well: measured on the developers' VM (ext4,
//    Linux 6.x), two ranks' 8 MiB pwrite at once return after 1.8 and 3.6 ms. Reads take no such lock;
//    without a page cache the write's time is the disk's, outside the lock (the kernel syncs after
//    unlocking);
//  - the file lives on node `node`'s disk: a read or write by a rank on another node is an error (open
//    and close are allowed everywhere: every rank opens a file of that name on its own node, as MPI-IO
//    does for a path in /tmp, but only node `node`'s holds the data).
#include "models/local/local_sim.hpp"

#include <mutex>
#include <stdexcept>
#include <string>

namespace ciosim::local {

void LocalDiskSim::build(const filesystem::PlatformHooks& platform) {
  if (cfg_.node < 0 || static_cast<std::size_t>(cfg_.node) >= platform.nodes.size())
    throw std::invalid_argument("local.node = " + std::to_string(cfg_.node) +
                                " is not a node of the platform (0.." +
                                std::to_string(platform.nodes.size() - 1) + ")");
  nodes_ = platform.nodes;
  for (sg4::Host* h : nodes_) {
    sg4::Disk* disk = h->create_disk("local-disk", cfg_.disk_read_Bps, cfg_.disk_write_Bps)->seal();
    if (h == nodes_[static_cast<std::size_t>(cfg_.node)])
      disk_ = std::make_unique<filesystem::DiskSim>(disk, cfg_.disk, cfg_.disk_read_Bps, cfg_.disk_write_Bps);
  }
  const std::string host = nodes_[static_cast<std::size_t>(cfg_.node)]->get_name();
  disk_actor_ = log().actor(activity::ActorKind::Disk, host + " disk", host);
  disk_res_ = log().resource(activity::ResourceKind::Disk, host + " disk", host);
  if (cfg_.cache.enabled())
    cache_ = std::make_unique<filesystem::PageCacheSim>(
        cfg_.cache, nodes_[static_cast<std::size_t>(cfg_.node)],
        [this](filesystem::DiskOps& ops, bool write, Offset position, std::int64_t bytes) {
          disk_io(*disk_, ops, write, position, bytes, disk_actor_, disk_res_);
        });
}

void LocalDiskSim::start() {
  inode_lock_ = sg4::Mutex::create();
  if (cache_) cache_->start();
}

void LocalDiskSim::sync(int) {
  if (cache_) cache_->flush();
}

filesystem::DiskSim& LocalDiskSim::disk_of_caller(int rank, const char* what) const {
  sg4::Host* here = sg4::this_actor::get_host();
  sg4::Host* there = nodes_[static_cast<std::size_t>(cfg_.node)];
  if (here != there)
    throw std::runtime_error(
        std::string(what) + " the file from " + here->get_name() +
        ", but with filesystem kind \"local\" the file lives on " + there->get_name() +
        "'s own disk (local.node = " + std::to_string(cfg_.node) + "), which only the ranks on " +
        there->get_name() + " can reach (rank " + std::to_string(rank) +
        " is not one of them); use a technique whose file access is all on that node, or a "
        "shared file system (pvfs, nfs)");
  return *disk_;
}

void LocalDiskSim::open(int) {
  sg4::this_actor::sleep_for(cfg_.open_overhead_s);
}

void LocalDiskSim::close(int) {
  sg4::this_actor::sleep_for(cfg_.close_overhead_s);
}

void LocalDiskSim::write(int rank, std::span<const Extent> regions, std::span<const std::byte> data) {
  filesystem::DiskSim& disk = disk_of_caller(rank, "writes");
  filesystem::DiskOps ops(sg4::this_actor::get_host(), 0);  // a rank lives on: disk_ops_sim.hpp
  std::int64_t pos = 0;
  for (const Extent& e : regions) {
    const double call = &e == regions.data() ? cfg_.request_overhead_s : cfg_.region_overhead_s;
    if (e.length > 0 && cache_) {
      // The call's own work (finding and allocating the page cache's pages, the checks) is done under the
      // lock too: ext4's buffered write takes it before generic_perform_write, which does both.
      const std::scoped_lock inode(*inode_lock_);
      const bool adds = !cache_->state().misses(e.offset, e.length).empty();
      sg4::this_actor::sleep_for(call + (adds ? cfg_.new_pages_call_s : 0));
      cache_->write(e.offset, e.length);
    } else {
      sg4::this_actor::sleep_for(call);
      if (e.length > 0) disk_io(disk, ops, true, e.offset, e.length, disk_actor_, disk_res_);
    }
    file().write(e.offset, data.subspan(static_cast<std::size_t>(pos), static_cast<std::size_t>(e.length)));
    pos += e.length;
  }
}

void LocalDiskSim::read(int rank, std::span<const Extent> regions, std::span<std::byte> data) {
  filesystem::DiskSim& disk = disk_of_caller(rank, "reads");
  filesystem::DiskOps ops(sg4::this_actor::get_host(), 0);  // a rank lives on: disk_ops_sim.hpp
  std::int64_t pos = 0;
  for (const Extent& e : regions) {
    sg4::this_actor::sleep_for(&e == regions.data() ? cfg_.request_overhead_s : cfg_.region_overhead_s);
    if (e.length > 0 && cache_)
      cache_->read(ops, e.offset, e.length);
    else if (e.length > 0)
      disk_io(disk, ops, false, e.offset, e.length, disk_actor_, disk_res_);
    file().read(e.offset, data.subspan(static_cast<std::size_t>(pos), static_cast<std::size_t>(e.length)));
    pos += e.length;
  }
}

}  // namespace ciosim::local
