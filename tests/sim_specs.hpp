// Points and distributions the simulator tests share: a small PVFS test platform (a node per rank, 2 I/O
// servers, Myrinet for both networks), block-cyclic and STEM-II workloads on it, and a distribution whose
// file has holes.
#pragma once

#include <string>
#include <vector>

#include "algorithms/technique.hpp"
#include "config/run_spec.hpp"

namespace ciosim::test {

/// A run of no technique (the test gives the ranks' calls) on `ranks` ranks and `nodes` nodes with
/// file system `filesystem` (pvfs, nfs or local, each with its defaults), Myrinet for both networks.
inline RunSpec filesystem_spec(const std::string& filesystem, int ranks, int nodes) {
  RunSpec s;
  s.algorithm = "none";
  s.ranks = ranks;
  s.platform.name = "test";
  s.platform.nodes = nodes;
  s.platform.filesystem = filesystem;
  s.platform.filesystems = {"pvfs", "nfs", "local"};
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  return s;
}

/// `algorithm` on block-cyclic Nx = `nx`, Bx = `bx`, one rank per node of the test platform.
inline RunSpec block_cyclic_spec(const std::string& algorithm, std::int64_t nx, std::int64_t bx,
                                 int ranks = 4) {
  RunSpec s;
  s.algorithm = algorithm;
  s.ranks = ranks;
  s.platform.name = "test";
  s.platform.nodes = ranks;
  s.platform.pvfs.io_servers = 2;
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  s.workload.nx = nx;
  s.workload.bx = bx;
  return s;
}

/// `algorithm` on a small STEM-II array (ny = 13: uneven over 4 and 8 ranks), run.phases = `phases`.
inline RunSpec stem2_spec(const std::string& algorithm, int ranks, int phases) {
  RunSpec s = block_cyclic_spec(algorithm, 5, 1, ranks);
  s.phases = phases;
  s.workload.kind = "stem2";
  s.workload.ny = 13;
  s.workload.nz = 4;
  s.workload.nl = 3;
  s.workload.nchem = 2;
  return s;
}

/// 512 entries on 4 ranks in blocks of 8: the first 4 entries of block b are held by rank b % 4, the other
/// 4 by nobody, so the file has holes (two-phase reads such windows before writing them).
inline Distribution half_held_blocks() {
  std::vector<std::vector<Tuple>> lists(4);
  for (std::int64_t b = 0; b < 64; ++b) lists[static_cast<std::size_t>(b % 4)].push_back({8 * b, 4});
  Distribution d;
  d.nx = 512;
  for (auto& l : lists) d.per_rank.push_back(Datatype{l, 1, 0});
  return d;
}

}  // namespace ciosim::test
