// Parameters of the node-local disk model (models/local/local_sim.cpp). Values and their sources live
// in the platform files' [local] table; the defaults below are those of uc3m-2007.
#pragma once

#include "models/filesystem/disk_geometry.hpp"
#include "models/filesystem/page_cache.hpp"

namespace ciosim {

struct LocalDiskConfig {
  int node = 0;                       ///< the compute node whose disk holds the file
  double disk_write_Bps = 50e6;       ///< sustained write bandwidth of a node's disk, bytes/s
  double disk_read_Bps = 55e6;        ///< sustained read bandwidth, bytes/s
  filesystem::DiskGeometry disk;      ///< the disk's head (none by default: a bandwidth only)
  filesystem::PageCacheConfig cache;  ///< the node's page cache (none by default: written through)
  double request_overhead_s = 2e-5;   ///< CPU time of one system call on the local file system (open, close,
                                      ///< and each contiguous region of a read or write), s
};

}  // namespace ciosim
