// What each rank of a run records (phase marks, counters, optional call trace) and how a run's results are
// summarised from it. Shared by the simulator (sim/) and the MPI backend (validate/), so both produce
// phases, calls and bytes with the same bookkeeping.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/common/process.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

/// What a rank's time inside a phase went to: the Process call it was in (its outermost call; a rank is
/// always in at most one). CPU: compute (CPU work declared by the technique). Network: point-to-point
/// calls, waits and collectives, including the MPI send/receive overheads and any time blocked waiting for a
/// partner. File system: file open/close/read/write/sync, from the call to its return (the client's own
/// per-request CPU, the transfers to the servers, the servers' queues, CPUs and disks). Time outside any
/// call (the technique's own control flow) takes no simulated time; it is the remainder, "other".
enum class Use : int { Cpu, Network, FileSystem };
constexpr int kUses = 3;
using UseTimes = std::array<double, kUses>;

struct RankRecord {
  double start = 0;                                   ///< clock after the common start
  double end = 0;                                     ///< clock when the rank finished
  std::vector<std::pair<std::string, double>> marks;  ///< phase name, clock at its start
  /// Operation sequences (algorithms/sequence.hpp): each operation's name and the clock at its start; an
  /// operation lasts until the next one starts, the last until the rank's end. Empty without a sequence.
  std::vector<std::pair<std::string, double>> ops;
  std::vector<UseTimes> use;  ///< per mark: seconds spent in each Use (empty: not recorded, e.g. MPI runs)
  Counters counters;
  std::vector<TraceEvent> trace;  ///< empty unless the run records a trace
  std::vector<StepTime> steps;    ///< the step clock's sites (Process::record_steps); empty unless recorded
};

/// Per phase, in time order (by its earliest start on any rank): the maximum over ranks of the time the
/// rank spent in it (a phase lasts until the rank's next mark, the last one until its end; repeated names
/// add up), each rank's time, the phase's window (earliest start to latest end), and, when every record
/// has its `use`, each rank's CPU, network and file-system seconds in it.
std::vector<PhaseTime> phase_times(const std::vector<RankRecord>& records);

/// Per operation of a sequence, in order: the maximum over ranks of its time, and its window. Every rank
/// runs the same operations; throws std::invalid_argument when their counts differ.
std::vector<OperationTime> operation_times(const std::vector<RankRecord>& records);

/// Fills res.sim_time_s (latest end minus earliest start), res.phases, res.calls (summed over ranks, every
/// kind), res.bytes_network (bytes sent), res.bytes_file (bytes written) and res.operations.
void summarize(const std::vector<RankRecord>& records, RunResult& res);

}  // namespace ciosim::config
