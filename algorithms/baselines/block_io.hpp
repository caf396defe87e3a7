// Block I/O, the reference technique of the IEC comparison (§4.2): every rank writes its local entries, in
// storage order, contiguously after those of the lower ranks. Not a valid collective write (the file is not
// in x's order) but the most efficient I/O: no communication, one contiguous request per rank.
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm",
// The Journal of Supercomputing 47(1):53-75, 2009, §4.2.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "algorithms/common/process.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::block_io {

/// Entry offset at which `rank` writes: the entry counts of ranks 0..rank-1 summed.
std::int64_t rank_offset(const Distribution& d, int rank);

/// "" when Block I/O can run `d` (any partition of x), else a one-line reason.
std::string check(const Distribution& d);

/// One write_at per iteration at rank_offset * element_size (phase mark "write"). The file must be open.
void run(Process& p, const TechniqueInput& in, LocalData local);

/// The read of the same layout: one read_at per iteration of the rank's entries (phase mark "read").
void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out);

}  // namespace ciosim::block_io
