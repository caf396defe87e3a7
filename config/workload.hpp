// Workloads: how a WorkloadSpec becomes a Distribution of the global vector over the ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/technique.hpp"
#include "config/run_spec.hpp"

namespace ciosim {

struct WorkloadInfo {
  std::string name;
  std::string description;
};

/// The extents of one of the STEM-II arrays of Multiple-Phase Collective I/O's Table 1 (shared/seeds/003).
struct Stem2Preset {
  std::string name;  ///< "sl1", ...
  std::int64_t nx, ny, nz, nl, nchem;
};
/// SL1, SL2, SL3 of Table 1, in that order.
const std::vector<Stem2Preset>& stem2_presets();
/// The preset called `name`; throws std::invalid_argument naming the valid ones.
const Stem2Preset& stem2_preset(const std::string& name);

/// The workload kinds that use a workload.* key ("workload.bx": block-cyclic; ...), or none when every kind
/// uses it or the key is not a kind-specific workload key.
std::vector<std::string> kinds_using(const std::string& key);

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
