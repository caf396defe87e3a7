// What a point will cost to simulate, before it is simulated: an estimate of the simulation's events (the
// messages, file requests and buffer blocks its technique makes, the chunks the file system moves the file
// in, and the pieces its code walks, weighted by what they cost against an activity), from the workload's
// size and the technique's hints in closed form — no distribution is built.
// `run --dry-run` prints it (a relative cost: what to size a cluster job by, and which points of a sweep
// are the long ones), and a point whose estimate exceeds `--max-work` is refused before anything runs,
// naming what makes it large.
#pragma once

#include <string>

#include "config/resources.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

struct WorkEstimate {
  double events = 0;   ///< 0: not estimated (a trace replayed as one write, or a capture that cannot be read)
  std::string detail;  ///< "3.1e9 events, mostly view-based's 2.1e9 blocks of hints.vb_buffer_size = 1"
  std::string knob;    ///< what lowers it most: "raise hints.vb_buffer_size"
};

/// The default --max-work: 1e9 events. The developers' 2-core VM simulates 26,000 to 81,000 of them a
/// second (docs/benchmarks.md, "The work of a point"), so the default refuses points of several hours.
inline constexpr double kDefaultMaxWork = 1e9;

/// The estimate for `spec` on a workload of `size` (workload_size): a lower bound for the kinds whose tuples
/// are known only with their distribution (irregular, lists, mesh).
WorkEstimate estimate_work(const RunSpec& spec, const WorkloadSize& size);

/// "" when `e` is within `max_work` (0: no bound), else one line naming the estimate, what dominates it,
/// the bound and what to change.
std::string work_refusal(const WorkEstimate& e, double max_work);

/// "2.1e+06", "68" (two significant digits).
std::string format_events(double events);

}  // namespace ciosim::config
