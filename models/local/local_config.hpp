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
                                      ///< and a read or write call's first contiguous region), s
  double region_overhead_s = 2e-5;    ///< CPU time of each further region of one list call (what the
                                      ///< library does per region of a list it is handed at once), s
  double open_overhead_s = 2e-5;      ///< a rank's time in a collective open of a file on it (the MPI-IO
                                      ///< library's set-up and the system call), s
  double close_overhead_s = 2e-5;     ///< a rank's time in a collective close the ranks reach together, s
  double new_pages_call_s = 0;        ///< with a page cache: the extra time of a write call that adds pages
                                ///< to it (block reservation, page allocation), inside the inode lock, s
};

}  // namespace ciosim
