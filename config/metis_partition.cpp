// METIS k-way partitioning of the mesh workload's graph (see metis_partition.hpp).
#include "config/metis_partition.hpp"

#include <metis.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "config/input_files.hpp"

namespace ciosim {

namespace {

bool next_line(std::istream& in, std::string& line, std::int64_t& no) {
  while (std::getline(in, line)) {
    ++no;
    if (!line.empty() && line[0] == '%') continue;
    return true;
  }
  return false;
}

}  // namespace

CsrGraph read_metis_graph(const std::string& path, std::int64_t nodes) {
  // METIS's 32-bit indices hold at most INT32_MAX nodes and 2 * edges entries: at most 11 bytes each.
  std::ifstream in =
      config::open_input("workload.graph", path, std::uintmax_t{11} * 2 * INT32_MAX + 4096,
                         "a METIS graph file", "bytes a graph with METIS's 32-bit indices can take");
  const auto fail = [&](std::int64_t no, const std::string& why) {
    throw std::invalid_argument("workload.graph '" + path + "' line " + std::to_string(no) + ": " + why);
  };
  std::string line;
  std::int64_t no = 0;
  if (!next_line(in, line, no)) fail(1, "missing the header `N M` (nodes, edges)");
  std::istringstream head(line);
  std::int64_t n = -1, m = -1, fmt = 0;
  if (!(head >> n >> m) || n < 1 || m < 0) fail(no, "the header must be `N M` with N >= 1 and M >= 0");
  if (head >> fmt && fmt != 0)
    fail(no, "weighted graphs (fmt " + std::to_string(fmt) + ") are not supported");
  if (n != nodes)
    throw std::invalid_argument("workload.graph '" + path + "' has " + std::to_string(n) +
                                " nodes but workload.nx = " + std::to_string(nodes));
  if (n > INT32_MAX || m > INT32_MAX / 2) fail(no, "the graph is too large for METIS's 32-bit indices");
  CsrGraph g;
  g.xadj.push_back(0);
  for (std::int64_t i = 0; i < n; ++i) {
    if (!next_line(in, line, no)) fail(no + 1, "missing the neighbour list of node " + std::to_string(i + 1));
    std::istringstream s(line);
    std::int64_t v = 0;
    while (s >> v) {
      if (v < 1 || v > n || v == i + 1)
        fail(no, "neighbour " + std::to_string(v) + " of node " + std::to_string(i + 1) + " is not in [1, " +
                     std::to_string(n) + "] or is the node itself");
      g.adjncy.push_back(static_cast<std::int32_t>(v - 1));
    }
    if (!s.eof()) fail(no, "'" + line + "' is not a list of node numbers");
    g.xadj.push_back(static_cast<std::int32_t>(g.adjncy.size()));
  }
  for (std::int32_t i = 0; i < static_cast<std::int32_t>(n); ++i)  // METIS needs a symmetric graph
    for (std::int32_t k = g.xadj[static_cast<std::size_t>(i)]; k < g.xadj[static_cast<std::size_t>(i) + 1];
         ++k) {
      const std::int32_t v = g.adjncy[static_cast<std::size_t>(k)];
      const auto b = g.adjncy.begin() + g.xadj[static_cast<std::size_t>(v)];
      const auto e = g.adjncy.begin() + g.xadj[static_cast<std::size_t>(v) + 1];
      if (std::find(b, e, i) == e)
        throw std::invalid_argument("workload.graph '" + path + "': node " + std::to_string(i + 1) +
                                    " lists " + std::to_string(v + 1) +
                                    " but not the other way round (the graph must be "
                                    "undirected)");
    }
  if (static_cast<std::int64_t>(g.adjncy.size()) != 2 * m)
    throw std::invalid_argument("workload.graph '" + path + "' lists " + std::to_string(g.adjncy.size()) +
                                " adjacencies, the header's " + std::to_string(m) + " edges need " +
                                std::to_string(2 * m));
  return g;
}

std::vector<int> metis_partition(const CsrGraph& g, int parts) {
  if (parts < 1) throw std::invalid_argument("METIS: parts must be >= 1 (got " + std::to_string(parts) + ")");
  if (g.nodes() < 1) throw std::invalid_argument("METIS: the graph has no nodes");
  if (parts == 1) return std::vector<int>(static_cast<std::size_t>(g.nodes()), 0);
  idx_t nvtxs = static_cast<idx_t>(g.nodes());
  idx_t ncon = 1;
  idx_t nparts = parts;
  idx_t objval = 0;
  std::vector<idx_t> xadj(g.xadj.begin(), g.xadj.end());
  std::vector<idx_t> adjncy(g.adjncy.begin(), g.adjncy.end());
  std::vector<idx_t> part(static_cast<std::size_t>(nvtxs), 0);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;
  const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, nullptr,
                                     &nparts, nullptr, nullptr, options, &objval, part.data());
  if (rc != METIS_OK)
    throw std::invalid_argument("METIS_PartGraphKway failed (status " + std::to_string(rc) + ") for " +
                                std::to_string(parts) + " parts");
  return {part.begin(), part.end()};
}

}  // namespace ciosim
