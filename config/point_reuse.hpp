// Points of a sweep that are one simulation: a point whose technique made no MPI call never used the MPI
// network, so a point that differs from it only in network.mpi runs the same simulation (the same actors,
// the same file-system traffic over the same I/O network, the same file) and gets the same results but
// for its labels. The seed-000 study sweeps network.mpi over List I/O and Block I/O, which send no MPI
// message: a quarter of its 176 points. A sweep simulates the first of such twins and gives the others its
// results (app/sweep.cpp; `ciosim run --no-reuse` simulates every point). Whether the first made an MPI
// call is known only once it has run, so nothing is assumed about a technique: a run with any MPI call,
// or any byte on the network, is never reused.
#pragma once

#include <cstddef>
#include <vector>

#include "config/run_spec.hpp"

namespace ciosim::config {

/// For each point (specs[i] is point i + 1), the earliest earlier point that differs from it only in
/// network.mpi (its params equal but for that key, neither writes a file, trace or timeline of its own),
/// or 0. A point's twin has no twin of its own.
std::vector<std::size_t> mpi_twins(const std::vector<RunSpec>& specs);

/// True when the run made no MPI call (every call counter but the file_* ones is 0) and sent no byte
/// over the network between ranks.
bool made_no_mpi_call(const RunResult& r);

/// `r`, a simulation of spec's twin, as the results of `spec`: its labels (algorithm, params, ranks and
/// networks) are spec's, everything the simulation measured is r's.
RunResult twin_result(const RunResult& r, const RunSpec& spec);

}  // namespace ciosim::config
