// Where a simulated run's time goes. Two views, both from what the run recorded:
//  - per rank and phase, the time the rank spent in CPU work, in MPI calls and in file-system calls
//    (config::Use in run_summary.hpp defines each; the three add up to the rank's phase time but for time
//    outside any call, which the simulator charges nothing for);
//  - per phase, how busy each kind of resource was during the phase's window (its earliest start on any
//    rank to its latest end): rank CPUs, file-system server CPUs, disks, and the hosts' network links in
//    each direction. A resource is busy while at least one operation uses it (a disk while it reads or
//    writes, a server CPU while it decodes a request, a link while a transfer crosses it), whatever share
//    of its capacity that operation gets; the busy fraction is busy time / window.
// From these, one line per run names what bounds its longest phase.
#pragma once

#include <string>

#include "config/run_spec.hpp"
#include "models/activity/activity_log.hpp"

namespace ciosim::config {

/// Fills every phase's `resources` from the log's busy times (log.finish() must have run), and
/// res.bottleneck. res.phases must carry their windows and per-rank times (summarize).
void describe_use(const activity::Log& log, RunResult& res);

/// The one-line summary of res's longest phase (what describe_use stores in res.bottleneck):
/// "write (93 % of the run): disks busy 99 % of it (8 of them, busiest iod3 disk 100 %), 50.0 MB/s each;
/// its slowest rank (rank 2) spent 2 % in CPU work, 5 % in MPI calls, 93 % in file-system calls".
std::string bottleneck_line(const RunResult& res);

}  // namespace ciosim::config
