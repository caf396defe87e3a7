// Sequential output, the "Sec NFS" / "Sec /tmp" baselines of Multiple-Phase Collective I/O (Singh, Isaila,
// Calderón, García, Carretero, PDP 2007, §5): the whole array is gathered at one
// process (the "1st level" communication of Figs. 9/10; STEM-II's Gather of Fig. 1) and that process writes
// it with one contiguous write. Which file system it lands on (NFS, a local disk, PVFS) is the platform's.
#pragma once

#include <string>

#include "algorithms/common/process.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::sequential {

/// "" when the technique can run `d` (any partition of x).
std::string check(const Distribution& d);
/// Gatherv of every rank's entries (storage order) at rank 0, which rearranges them into x's order
/// (phase "gather"), then one write_at of the whole file by rank 0 (phase "write"); `iterations` times.
void run_write(Process& p, const TechniqueInput& in, LocalData local);

}  // namespace ciosim::sequential
