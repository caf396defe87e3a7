// The mesh workload's partition computed with METIS (G. Karypis, V. Kumar, "A Fast and High Quality
// Multilevel Scheme for Partitioning Irregular Graphs", SIAM J. Sci. Comput. 20(1), 1998), as BIPS3D
// partitions its mesh (Filgueira et al., VECPAR 2008; the kernel reads the result, asignacionP). Debian's
// libmetis-dev (METIS 5.1, METIS_PartGraphKway). The partitions shipped with the LAP repository were made
// with an older METIS: a partition computed here need not equal them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ciosim {

/// An undirected graph in compressed rows (0-based), as METIS takes it.
struct CsrGraph {
  std::vector<std::int32_t> xadj;    ///< nodes + 1 offsets into adjncy
  std::vector<std::int32_t> adjncy;  ///< neighbours, 0-based
  std::int64_t nodes() const { return xadj.empty() ? 0 : static_cast<std::int64_t>(xadj.size()) - 1; }
};

/// Reads a METIS graph file: a header `N M` (optionally `N M 0`; lines starting with '%' are comments),
/// then one line per node listing its neighbours, 1-based. Throws std::invalid_argument naming the file
/// and line on a malformed line, weights (fmt other than 0), a neighbour outside [1, N], a node count
/// other than `nodes`, or an adjacency count other than 2M.
CsrGraph read_metis_graph(const std::string& path, std::int64_t nodes);

/// METIS_PartGraphKway of `g` into `parts` parts with METIS's defaults and a fixed seed (deterministic).
/// parts = 1 gives every node to part 0 (METIS is not called). Throws std::invalid_argument when parts < 1,
/// the graph is empty, or METIS fails.
std::vector<int> metis_partition(const CsrGraph& g, int parts);

}  // namespace ciosim
