#include "config/workload.hpp"

#include <stdexcept>

#include "algorithms/distribution.hpp"

namespace ciosim {

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> list = {
      {"block-cyclic",
       "1-D vector of Nx entries dealt to the ranks in blocks of Bx entries, round-robin (block b on rank "
       "b mod Np): the generic block-cyclic distribution of the IEC paper (seed 000 §3, Fig. 1)."},
      {"irregular",
       "1-D vector of Nx entries dealt to the ranks at random (seeded), each rank holding Nx/Np^2 entries of "
       "each of the Np file chunks: an arbitrary offset-length distribution as in the IEC paper's Fig. 11."},
  };
  return list;
}

Distribution make_distribution(const WorkloadSpec& w, int ranks) {
  if (w.element_size <= 0) throw std::invalid_argument("workload.element_size must be positive");
  if (w.kind == "block-cyclic") return block_cyclic(w.nx, ranks, w.bx);
  if (w.kind == "irregular") return irregular(w.nx, ranks, w.seed);
  std::string valid;
  for (const auto& k : workloads()) valid += (valid.empty() ? "" : ", ") + k.name;
  throw std::invalid_argument("unknown workload '" + w.kind + "' (valid: " + valid + ")");
}

}  // namespace ciosim
