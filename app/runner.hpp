// Runs sweep points, each in its own child process: SimGrid's engine can be created only once per
// process. The child calls sim::simulate, writes the RunResult as JSON into a pipe and _exit()s; the
// parent reads the pipe to its end, reaps the child and decodes the result. run_point runs one point;
// app/sweep.hpp runs several at once (start_point / finish_point).
#pragma once

#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "config/run_spec.hpp"

namespace ciosim::app {

/// A point that failed: the simulation threw (the exception's message) or the child died (signal or
/// exit status). The message is one line and names the point.
class PointFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// A point that ran out of memory (std::bad_alloc in the simulation): bad input for this machine, so
/// `ciosim` exits 2 with one line naming the point and what to change, as for a refused estimate.
class OutOfMemory : public PointFailed {
 public:
  using PointFailed::PointFailed;
};

/// Simulates one point in a child process. `label` names the point in error messages.
RunResult run_point(const RunSpec& spec, const std::string& label);

/// A point's child process, started and not yet reaped: its result arrives on `fd` (read it to EOF,
/// then waitpid the child and call finish_point). The child is registered with app/cleanup.hpp.
struct PointChild {
  pid_t pid = -1;
  int fd = -1;
};
/// Forks the child simulating `spec`. `name` ("point 3 of 8 (...)") names it in errors.
PointChild start_point(const RunSpec& spec, const std::string& name);
/// The result of a reaped child from what it wrote (`payload`) and its wait status; throws PointFailed.
RunResult finish_point(pid_t pid, const std::string& payload, int status, const std::string& name);
/// "point 3 of 8 (run.algorithm=iec, workload.bx=4)"; "the run" for a lone point without params.
std::string point_name(const std::vector<RunSpec>& specs, std::size_t i);

}  // namespace ciosim::app
