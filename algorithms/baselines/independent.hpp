// Independent I/O without any optimisation: every rank writes (reads) each contiguous piece of its data
// with its own contiguous request, the POSIX-style baseline of the collective I/O literature (Thakur,
// Gropp, Lusk, "Data Sieving and Collective I/O in ROMIO", Frontiers '99, §2: "the simplest way ... is to
// make a separate read/write call for each contiguous piece").
#pragma once

#include <span>
#include <string>

#include "algorithms/common/process.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::independent {

/// "" when the technique can run `d` (any partition of x).
std::string check(const Distribution& d);
/// One write_at per contiguous piece in storage order, `iterations` times (phase "write").
void run_write(Process& p, const TechniqueInput& in, LocalData local);
/// One read_at per contiguous piece (phase "read").
void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out);

}  // namespace ciosim::independent
