// Entry points of the simulator. No SimGrid in this header.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "algorithms/common/payload.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/technique.hpp"
#include "config/run_spec.hpp"
#include "models/filesystem/file_store.hpp"

namespace ciosim::sim {

/// Runs one point in this process and returns its results. SimGrid's engine can be created once per
/// process: call this (or run_with) at most once per process (the CLI forks a child per point).
RunResult simulate(const RunSpec& spec);

/// The machinery under simulate(): builds spec's platform, starts the PVFS servers and runs `body` on
/// every rank after a common start (the file is opened before and closed after `body`, in phases "open"
/// and "close"). Fills every field of the result except file_verified; `on_file` sees the simulated file
/// after the run. spec.algorithm and spec.workload are not used. When `initial_file` is given, the
/// simulated file holds those bytes before the run (written without simulated cost), e.g. for reads.
/// Under payload::Mode::Elided (a payload::ModeScope around the call) the file store is elided, and
/// `initial_pieces` lays it out instead of `initial_file`.
RunResult run_with(const RunSpec& spec, const std::function<void(Process&)>& body,
                   const std::function<void(const filesystem::FileStore&)>& on_file = {},
                   const std::vector<std::byte>* initial_file = nullptr,
                   const std::vector<payload::Piece>* initial_pieces = nullptr);

/// Whether run.payload makes this point elided (auto: from 1 GiB of data in pieces of 4 KiB on average,
/// when the technique supports it). Throws std::invalid_argument (one line naming why and the choices)
/// when run.payload = elided cannot be used for it.
bool payload_elided(const RunSpec& spec, const TechniqueInfo& tech, const Distribution& dist);

}  // namespace ciosim::sim
