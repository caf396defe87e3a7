// Runs a sweep's remaining points, up to `jobs` at once, each in its own forked child (one SimGrid
// engine per process, app/runner.hpp), saving every finished point into its SweepFolder at once.
// Progress on stderr: the point started, and after each finished point the points done, the time
// elapsed and an estimate of the time left. Signals are deferred while it runs (app/cleanup.hpp): a
// SIGINT/SIGTERM/SIGHUP/SIGQUIT kills the running children, writes the partial results and ends the
// process with that signal. A failed point kills the others, writes the partial results and throws
// PointFailed. Points that are one simulation (config/point_reuse.hpp) are simulated once.
#pragma once

#include <vector>

#include "app/sweep_folder.hpp"
#include "config/run_spec.hpp"

namespace ciosim::app {

struct SweepOptions {
  int jobs = 1;        ///< points simulated at once (-j)
  bool quiet = false;  ///< no progress on stderr
  /// A point that differs from an earlier one only in network.mpi takes its results when that one made
  /// no MPI call (config/point_reuse.hpp); false simulates every point (--no-reuse).
  bool reuse = true;
};

/// Simulates every point of `folder.mine()` not yet done (specs[point - 1]), then writes the results.
void run_sweep(const std::vector<RunSpec>& specs, SweepFolder& folder, const SweepOptions& opt);

}  // namespace ciosim::app
