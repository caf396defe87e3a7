// phases.csv: the long ("tidy") form of every run's phase times, one row per run, phase and rank, for
// pandas and R: run (the row number of results.csv), phase, rank, time_s, cpu_s, network_s,
// filesystem_s (config::Use in run_summary.hpp), calls (the rank's calls in the phase by kind,
// "allgather=2 isend=3"). Phases in each run's time order, ranks ascending.
#pragma once

#include <string>
#include <vector>

#include "config/run_spec.hpp"

namespace ciosim::config {

/// A run without per-rank times (not simulated) gives one row per phase with an empty rank, its maximum
/// as time_s and empty cpu_s, network_s and filesystem_s. RFC 4180 quoting, "\n" line ends.
/// `numbers`: each run's point number in its sweep (a shard's or a partial sweep's are not 1..n); empty:
/// 1, 2, ...
std::string phases_csv(const std::vector<RunResult>& runs, const std::vector<std::size_t>& numbers = {});

}  // namespace ciosim::config
