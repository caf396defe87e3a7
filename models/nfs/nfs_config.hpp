// Parameters of the NFS model (models/nfs/nfs_sim.cpp). Values and their sources live in the platform
// files' [nfs] table; the defaults below are those of uc3m-2007.
#pragma once

#include <cstdint>
#include <string>

#include "models/filesystem/disk_geometry.hpp"
#include "models/filesystem/page_cache.hpp"

namespace ciosim {

struct NfsConfig {
  /// "sync": every WRITE is stable, answered once its data is on the server's disk. "async": WRITEs are
  /// UNSTABLE, answered once the data is in the server's memory, and a COMMIT at close (or sync) waits
  /// until the server has written all of it to disk (NFSv3, RFC 1813 §3.3.7 and §3.3.21).
  std::string commit = "async";
  std::int64_t wsize = 32768;            ///< bytes per WRITE RPC (the client cuts writes at wsize boundaries)
  std::int64_t rsize = 32768;            ///< bytes per READ RPC
  int max_outstanding = 16;              ///< RPCs a client keeps in flight (the RPC transport's slot table)
  int server_threads = 8;                ///< nfsd threads: RPCs the server works on at once
  double rpc_overhead_s = 50e-6;         ///< server CPU time per RPC (decode, file system call), s
  double client_rpc_overhead_s = 20e-6;  ///< client CPU time per RPC it issues, s
  std::int64_t rpc_header = 200;         ///< bytes of an RPC call or reply besides its data
  double disk_write_Bps = 50e6;          ///< the server's disk, sustained write, bytes/s
  double disk_read_Bps = 55e6;           ///< the server's disk, sustained read, bytes/s
  filesystem::DiskGeometry disk;         ///< the disk's head (none by default: a bandwidth only)
  filesystem::PageCacheConfig cache;     ///< the server's page cache (none by default: see nfs_sim.cpp)
  filesystem::PageCacheConfig client_cache;  ///< each client node's page cache (none by default)

  bool sync_commit() const { return commit == "sync"; }
};

}  // namespace ciosim
