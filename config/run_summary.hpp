// What each rank of a run records (phase marks, counters, optional call trace) and how a run's results are
// summarised from it. Shared by the simulator (sim/) and the MPI backend (validate/), so both produce
// phases, calls and bytes with the same bookkeeping.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "algorithms/common/process.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

struct RankRecord {
  double start = 0;                                   ///< clock after the common start
  double end = 0;                                     ///< clock when the rank finished
  std::vector<std::pair<std::string, double>> marks;  ///< phase name, clock at its start
  Counters counters;
  std::vector<TraceEvent> trace;  ///< empty unless the run records a trace
};

/// Per phase (first-seen order over ranks): the maximum over ranks of the time the rank spent in it (a
/// phase lasts until the rank's next mark, the last one until its end; repeated names add up).
std::vector<PhaseTime> phase_times(const std::vector<RankRecord>& records);

/// Fills res.sim_time_s (latest end minus earliest start), res.phases, res.calls (summed over ranks, every
/// kind), res.bytes_network (bytes sent) and res.bytes_file (bytes written).
void summarize(const std::vector<RankRecord>& records, RunResult& res);

}  // namespace ciosim::config
