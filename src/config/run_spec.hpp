// One simulation run after sweep expansion, and what it produces (DESIGN.md "Results schema v1").
// No SimGrid here: app/ and config/ build RunSpecs; sim/ runs them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/network/profiles.hpp"
#include "models/pvfs/pvfs_config.hpp"

namespace ciosim {

/// A cluster: compute nodes, their CPU cost model, the PVFS servers, and the default networks.
struct PlatformSpec {
  std::string name;
  std::string description;
  int nodes = 16;                  ///< compute nodes
  int cores_per_node = 1;          ///< ranks placed per node (rank r on node r / cores_per_node)
  double memcpy_Bps = 300e6;       ///< CPU cost of copying, bytes/s
  double tuple_cost_s = 50e-9;     ///< CPU cost per offset-length tuple processed, s
  double loopback_Bps = 1e9;       ///< intra-node message bandwidth, bytes/s
  std::string network_mpi = "myrinet";  ///< default profile of the MPI network
  std::string network_io = "myrinet";   ///< default profile of the network PVFS uses
  PvfsConfig pvfs;
};

struct WorkloadSpec {
  std::string kind = "block-cyclic";  ///< "block-cyclic" or "irregular"
  std::int64_t nx = 0;                ///< entries of the global vector
  std::int64_t bx = 1;                ///< block size in entries (block-cyclic)
  std::int64_t element_size = 4;      ///< bytes per entry
  std::uint64_t seed = 1;             ///< irregular: random seed
  std::string file;                   ///< lists: TOML file with each rank's (offset, length) tuples
};

struct RunSpec {
  std::string algorithm;
  int ranks = 4;
  WorkloadSpec workload;
  PlatformSpec platform;
  std::string network_mpi;  ///< profile name (already defaulted from the platform)
  std::string network_io;
  int iterations = 1;
  std::string export_file;  ///< if not empty, the simulated file is written here
  /// Every swept or set key with its value, as written in results' "params".
  std::vector<std::pair<std::string, std::string>> params;
};

struct PhaseTime {
  std::string name;
  double time_s = 0;  ///< max over ranks of the time spent in the phase
};

struct RunResult {
  std::string algorithm;
  std::vector<std::pair<std::string, std::string>> params;
  int ranks = 0;
  std::string network_mpi;
  std::string network_io;
  double sim_time_s = 0;  ///< simulated time from the common start to the last rank's end
  std::vector<PhaseTime> phases;
  std::map<std::string, std::int64_t> calls;  ///< summed over ranks
  std::int64_t bytes_network = 0;
  std::int64_t bytes_file = 0;
  bool file_verified = false;
};

}  // namespace ciosim
