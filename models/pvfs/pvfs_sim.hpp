// The PVFS-style parallel file system as S4U actors behind the file-system seam (see pvfs_sim.cpp for
// the model; parameters in pvfs_config.hpp; request splitting in striping.hpp).
#pragma once

#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "models/filesystem/file_system_sim.hpp"
#include "models/filesystem/page_cache_sim.hpp"
#include "models/pvfs/pvfs_config.hpp"

namespace ciosim::pvfs {

namespace sg4 = simgrid::s4u;

class PvfsSim final : public filesystem::FileSystemSim {
 public:
  PvfsSim(const PvfsConfig& cfg, filesystem::FileStore& file) : FileSystemSim(file), cfg_(cfg) {}

  /// pvfs.server_placement = compute-nodes.
  [[nodiscard]] bool servers_beside_nodes() const override;
  /// One metadata server host ("mds"), then io_servers I/O server hosts ("iod0", ...) with a disk each,
  /// on hosts of their own or beside compute nodes (the metadata server beside node 0, I/O server k beside
  /// node k mod nodes).
  void build(const filesystem::PlatformHooks& platform) override;
  /// The metadata server (a receiving actor and a CPU worker) and one daemon per I/O server.
  void start() override;
  void open(int rank) override;
  void close(int rank) override;
  void write(int rank, std::span<const Extent> regions, std::span<const std::byte> data) override;
  void read(int rank, std::span<const Extent> regions, std::span<std::byte> data) override;
  /// Without page caches data is on disk when a write returns: nothing to flush. With them, a flush
  /// request to every I/O server, answered once its cache has written everything back (PVFS's flush).
  void sync(int rank) override;

  struct IoRequest;

 private:
  /// Sends the rank's requests for `regions` (or, with `flush`, a flush request to every server).
  void io(int rank, std::span<const Extent> regions, const std::byte* wdata, std::byte* rdata,
          bool flush = false);
  /// Serves one request in a worker of its server (models/filesystem/worker_pool_sim.hpp); returns the
  /// disk operations it issued itself.
  int serve_io(IoRequest* req, const sg4::MutexPtr& cpu, const sg4::SemaphorePtr& disk_slots);
  /// Spends `seconds` of I/O server k's single CPU (one request at a time: `cpu`).
  void charge_cpu(std::size_t k, const sg4::MutexPtr& cpu, double seconds);
  void run_flows(std::span<const std::unique_ptr<IoRequest>> reqs);
  void metadata_round_trip(int rank, const char* what);

  const PvfsConfig& cfg_;
  sg4::Host* mds_ = nullptr;
  std::vector<sg4::Host*> iods_;
  // Beside compute nodes: the node each server's CPU work runs on and whose NIC carries its traffic
  // (null when it has a host of its own).
  sg4::Host* mds_node_ = nullptr;
  std::vector<sg4::Host*> iod_node_;
  /// The host whose NIC carries I/O server k's traffic (where it is recorded): its node, or its own host.
  [[nodiscard]] const sg4::Host* iod_nic(std::size_t k) const {
    return iod_node_[k] ? iod_node_[k] : iods_[k];
  }
  std::vector<std::unique_ptr<filesystem::DiskSim>> disks_;        ///< each I/O server's disk
  std::vector<std::unique_ptr<filesystem::PageCacheSim>> caches_;  ///< their page caches (if enabled)
  std::vector<sg4::Mailbox*> iod_mailbox_;                         ///< each I/O server's request mailbox
  /// The data and acknowledgement mailboxes of (rank, server), at rank * io_servers + server; a rank has
  /// one request in flight per server at a time, so a pair's mailboxes serve all its requests.
  std::vector<std::pair<sg4::Mailbox*, sg4::Mailbox*>> pair_mailboxes_;
  // Activity log ids (models/activity/activity_log.hpp): per server its timeline actor and CPU resource,
  // per I/O server its disk's actor and resource.
  int mds_actor_ = -1;
  int mds_cpu_ = -1;
  std::vector<int> iod_actor_, iod_cpu_, disk_actor_, disk_res_;
};

}  // namespace ciosim::pvfs
