// The file-system seam: every file call of the simulated Process (sim/sim_file.cpp) reaches one
// FileSystemSim, chosen by the platform file's [filesystem] kind (sim/file_system.cpp). A file system
// adds its own hosts and disks while the platform is built, starts its server actors, and serves the
// client calls inside the calling rank's actor. Implementations: models/pvfs/pvfs_sim.cpp,
// models/nfs/nfs_sim.cpp, models/local/local_sim.cpp.
#pragma once

#include <cstddef>
#include <functional>
#include <simgrid/s4u.hpp>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/process.hpp"
#include "models/activity/activity_log.hpp"
#include "models/filesystem/disk_sim.hpp"
#include "models/filesystem/file_store.hpp"

namespace ciosim::filesystem {

namespace sg4 = simgrid::s4u;

/// What the platform builder offers a file system while the platform is being built.
struct PlatformHooks {
  /// Creates a server host reached over the I/O network (a NIC with the I/O profile) and returns it.
  std::function<sg4::Host*(const std::string& name)> add_server;
  /// Creates a server host beside compute node `node` (an index into `nodes`): a host of its own, so
  /// that a message knows whether it is file-system or MPI traffic, but reached through that node's I/O
  /// NIC, and through its loopback from the node itself. Only when servers_beside_nodes() says so.
  std::function<sg4::Host*(const std::string& name, int node)> add_server_beside;
  /// The compute nodes' hosts, node 0 first.
  std::vector<sg4::Host*> nodes;
};

class FileSystemSim {
 public:
  explicit FileSystemSim(FileStore& file) : file_(file) {}
  virtual ~FileSystemSim() = default;
  FileSystemSim(const FileSystemSim&) = delete;
  FileSystemSim& operator=(const FileSystemSim&) = delete;

  /// Whether build() places servers beside compute nodes (PlatformHooks::add_server_beside), which
  /// the platform's routing must know before the file system is built.
  [[nodiscard]] virtual bool servers_beside_nodes() const { return false; }
  /// Adds the file system's hosts and disks; called once, before the routes are built.
  virtual void build(const PlatformHooks& platform) = 0;
  /// Starts its server actors (if any); called once, after the platform is sealed.
  virtual void start() {}

  // Client side, called from rank `rank`'s actor on its node's host; each returns when the operation is
  // complete as the file system defines completion (e.g. data on disk, or in the server's memory).
  virtual void open(int rank) = 0;
  virtual void close(int rank) = 0;
  virtual void write(int rank, std::span<const Extent> regions, std::span<const std::byte> data) = 0;
  virtual void read(int rank, std::span<const Extent> regions, std::span<std::byte> data) = 0;
  virtual void sync(int rank) = 0;

  /// Where the servers' CPU and disk activity is recorded (models/activity/activity_log.hpp); set before
  /// build(). Without it, a log of the file system's own collects the same records unread.
  void set_log(activity::Log* log) { log_ = log; }

 protected:
  FileStore& file() { return file_; }
  activity::Log& log() { return *log_; }
  /// Records one disk operation of `disk_actor` (timeline) on resource `disk_res` (busy time).
  void record_disk(int disk_actor, int disk_res, const char* op, double start, double end,
                   std::int64_t bytes) {
    log_->busy(disk_res, start, end, bytes);
    log_->span(disk_actor, op, start, end, bytes);
  }
  /// Writes (or reads) `bytes` at `position` on `disk` through `ops` (disk_sim.hpp) and records it: the
  /// disk busy from the head's first move to the transfer's end, a "position" span for the seek and
  /// rotation (if any) and the operation's span for the transfer.
  void disk_io(DiskSim& disk, DiskOps& ops, bool write, std::int64_t position, std::int64_t bytes,
               int disk_actor, int disk_res) {
    const DiskSim::Service s = disk.io(ops, write, position, bytes);
    const double end = sg4::Engine::get_clock();
    if (s.transfer > s.start) {
      log_->busy(disk_res, s.start, s.transfer, 0);
      log_->span(disk_actor, "position", s.start, s.transfer, 0);
    }
    record_disk(disk_actor, disk_res, write ? "write" : "read", s.transfer, end, bytes);
  }
  /// Records a completed transfer of file-system data or requests from host `from` to host `to` on their
  /// I/O links' busy time (sending side of `from`, receiving side of `to`).
  void record_transfer(const sg4::Host* from, const sg4::Host* to, const sg4::CommPtr& comm,
                       std::int64_t bytes) {
    if (from == to) return;
    const double s = comm->get_start_time();
    const double e = comm->get_finish_time();
    log_->busy(
        log_->resource(activity::ResourceKind::LinkOut, from->get_name() + " I/O link out", from->get_name()),
        s, e, bytes);
    log_->busy(
        log_->resource(activity::ResourceKind::LinkIn, to->get_name() + " I/O link in", to->get_name()), s, e,
        bytes);
  }

 private:
  FileStore& file_;
  activity::Log own_log_;
  activity::Log* log_ = &own_log_;
};

}  // namespace ciosim::filesystem
