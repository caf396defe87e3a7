// Workloads: how a WorkloadSpec becomes a Distribution of the global vector over the ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/common/bench_distributions.hpp"
#include "algorithms/technique.hpp"
#include "config/run_spec.hpp"

namespace ciosim {

struct WorkloadInfo {
  std::string name;
  std::string description;
};

/// The extents of one of the STEM-II arrays of Multiple-Phase Collective I/O's Table 1 (PDP 2007).
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

/// True for the kinds whose size of x follows from their own keys (btio, tile): workload.nx is not theirs.
bool kind_sets_nx(const std::string& kind);

/// btio: the compute time between two solution writes on `ranks` ranks, in seconds: the 5 time steps
/// between writes, NPB's operation count of a step (btio_step_flops) shared evenly by the ranks at
/// workload.mflops each. Throws std::invalid_argument on an unknown class or non-positive values.
double btio_compute_s(const WorkloadSpec& w, int ranks);

/// tile: the TileSpec of a workload on `ranks` ranks (tiles_x = tiles_y = 0: MPI_Dims_create(ranks, 2), the
/// larger count along x; one of them 0: ranks divided by the other; the header in entries). Throws
/// std::invalid_argument (one line) when tile_x or tile_y is 0, the header is not a whole number of
/// elements, or ranks is not a multiple of the given tile count.
TileSpec tile_spec(const WorkloadSpec& w, int ranks);

/// The registered workload kinds, in a fixed order.
const std::vector<WorkloadInfo>& workloads();

/// The owner rank of each mesh node from a partition file (one non-negative integer per line, METIS's
/// asignacionP format; a trailing empty line is allowed). Throws std::invalid_argument naming the file and
/// the line when a line is not a rank or names a rank >= `ranks`, when the file does not have `nodes`
/// lines, or when it is a partition into a number of parts other than `ranks` (its largest rank + 1).
std::vector<int> read_partition(const std::string& path, std::int64_t nodes, int ranks);

/// A trace replayed call by call (config/trace_replay.hpp): no single distribution (make_distribution
/// refuses it); each collective call brings its own.
bool replays_calls(const WorkloadSpec& w);

/// Builds the distribution; throws std::invalid_argument with a one-line reason (unknown kind naming
/// the valid ones, or sizes the kind cannot divide).
Distribution make_distribution(const WorkloadSpec& w, int ranks);

}  // namespace ciosim
