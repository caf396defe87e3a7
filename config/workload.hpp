// Workloads: how a WorkloadSpec becomes a Distribution of the global vector over the ranks.
#pragma once

#include <string>
#include <vector>

#include "algorithms/technique.hpp"
#include "config/run_spec.hpp"

namespace ciosim {

struct WorkloadInfo {
  std::string name;
  std::string description;
};

/// The registered workload kinds, in a fixed order.
const std::vector<WorkloadInfo>& workloads();

/// Builds the distribution; throws std::invalid_argument with a one-line reason (unknown kind naming
/// the valid ones, or sizes the kind cannot divide).
Distribution make_distribution(const WorkloadSpec& w, int ranks);

}  // namespace ciosim
