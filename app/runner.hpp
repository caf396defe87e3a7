// Runs sweep points, each in its own child process: SimGrid's engine can be created only once per
// process. The child calls sim::simulate, writes the RunResult as JSON into a pipe and _exit()s; the
// parent reads the pipe to its end, reaps the child and decodes the result. Points run one after the
// other, in order, so results are deterministic.
#pragma once

#include <functional>
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

/// Simulates one point in a child process. `label` names the point in error messages.
RunResult run_point(const RunSpec& spec, const std::string& label);

/// Called before point i (0-based) of n starts.
using Progress = std::function<void(std::size_t i, std::size_t n, const RunSpec& spec)>;

/// Runs every point in order; throws PointFailed at the first failure.
std::vector<RunResult> run_points(const std::vector<RunSpec>& specs, const Progress& progress);

}  // namespace ciosim::app
