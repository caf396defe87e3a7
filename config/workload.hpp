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

/// The owner rank of each mesh node from a partition file (one non-negative integer per line, METIS's
/// asignacionP format; a trailing empty line is allowed). Throws std::invalid_argument naming the file and
/// the line when a line is not a rank or names a rank >= `ranks`, when the file does not have `nodes`
/// lines, or when it is a partition into a number of parts other than `ranks` (its largest rank + 1).
std::vector<int> read_partition(const std::string& path, std::int64_t nodes, int ranks);

/// Builds the distribution; throws std::invalid_argument with a one-line reason (unknown kind naming
/// the valid ones, or sizes the kind cannot divide).
Distribution make_distribution(const WorkloadSpec& w, int ranks);

}  // namespace ciosim
