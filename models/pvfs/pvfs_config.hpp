// Parameters of the PVFS-style parallel file system model (models/pvfs). Values and their sources live
// in the platform files (platforms/*.toml); the defaults below are those of uc3m-2007.
#pragma once

#include <cstdint>
#include <string>

#include "models/filesystem/disk_geometry.hpp"
#include "models/filesystem/page_cache.hpp"

namespace ciosim {

struct PvfsConfig {
  int io_servers = 8;                      ///< I/O server hosts (PVFS iod), each with one disk
  std::int64_t stripe_size = 65536;        ///< bytes per strip, round-robin over servers from server 0
  double disk_write_Bps = 40e6;            ///< sustained disk write bandwidth, bytes/s
  double disk_read_Bps = 45e6;             ///< sustained disk read bandwidth, bytes/s
  filesystem::DiskGeometry disk;           ///< the disk's head (none by default: a bandwidth only)
  filesystem::PageCacheConfig cache;       ///< each server's page cache (none by default: written through)
  double request_overhead_s = 100e-6;      ///< server CPU time per request (decode, job setup)
  double metadata_overhead_s = 100e-6;     ///< metadata server CPU time per operation (a rank's open, close)
  double region_overhead_s = 5e-6;         ///< server CPU time per contiguous region of a list request
  double client_region_overhead_s = 1e-6;  ///< client CPU time per region it puts in a request
  std::int64_t flow_buffer = 65536;        ///< bytes per pipelined network/disk chunk
  int max_outstanding = 8;                 ///< disk I/Os a server keeps in flight
  std::int64_t request_header = 256;       ///< bytes of a request/ack message besides its data/regions
  std::int64_t region_descriptor = 16;     ///< bytes per (offset, length) region in a list request
  /// Where the servers run: "dedicated", hosts of their own on the I/O network; "compute-nodes", the
  /// metadata server on node 0 and I/O server k on node k mod nodes, sharing that node's NIC (its MPI
  /// NIC too when one network carries both), its cores and its loopback (models/pvfs/pvfs_sim.cpp).
  std::string server_placement = "dedicated";
};

}  // namespace ciosim
