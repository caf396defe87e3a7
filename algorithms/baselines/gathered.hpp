// Gathered ("sequential") I/O: all data goes to rank 0 with point-to-point messages and rank 0 alone
// accesses the file, sequentially in file order, in chunks of cb_buffer_size bytes. The baseline that the
// collective I/O papers call sequential or "one process does all I/O" (Thakur, Gropp, Lusk, "Data
// Sieving and Collective I/O in ROMIO", Frontiers '99, §1; Singh, Isaila, Pichel, Carretero,
// J. Supercomputing 47(1):53-75, 2009, §1).
#pragma once

#include <span>
#include <string>

#include "algorithms/common/process.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::gathered {

/// "" when the technique can run `d` (a partition of x, so the chunks have no holes).
std::string check(const Distribution& d);

/// Per rank: its offset/length list (Gather of the counts, then one message per rank to rank 0); then
/// for every cb_buffer_size-aligned chunk of the file, each rank with data in it sends those bytes to
/// rank 0 (one Isend per chunk, waited at the end), and rank 0 receives them, places them and writes the
/// chunk with one write_at. Phases "offsets", "metadata_exchange", "exchange", "write".
void run_write(Process& p, const TechniqueInput& in, LocalData local);
/// The reverse: rank 0 reads each chunk with one read_at and sends every rank its bytes.
void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out);

}  // namespace ciosim::gathered
