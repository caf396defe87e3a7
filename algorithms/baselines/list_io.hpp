// List I/O: independent noncontiguous access with one file-system request per batch of offset-length
// regions. A. Ching, A. Choudhary, W.-K. Liao, R. Ross, W. Gropp, "Noncontiguous I/O through PVFS",
// IEEE Cluster 2002; as ROMIO's PVFS2 driver issues it (ad_pvfs2 WriteStrided: at most MAX_ARRAY_SIZE =
// 64 regions per PVFS_sys_write; docs/two-phase.md, "List I/O, independent, gathered"). Compared in
// Singh, Isaila, Pichel, Carretero, J. Supercomputing 47(1):53-75, 2009, §4.2.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::list_io {

/// "" when list I/O can run `d` (any partition of x).
std::string check(const Distribution& d);

/// Writes the pieces of `dt` (storage order, adjacent ones merged) with synchronous write_list calls of
/// at most `batch` regions each, the regions' bytes taken back to back from `local`. Charges the walk that
/// fills each batch's offset/length arrays as one tuple per region (the PVFS model charges its own
/// client and server per-region costs; see docs/models.md).
void write_pieces(Process& p, const Datatype& dt, std::int64_t element_size, int batch, LocalData local);
/// The same with read_list into `out`.
void read_pieces(Process& p, const Datatype& dt, std::int64_t element_size, int batch,
                 std::span<std::byte> out);

/// The technique: write_pieces with hints.listio_batch, `iterations` times (phase "write").
void run_write(Process& p, const TechniqueInput& in, LocalData local);
void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out);

}  // namespace ciosim::list_io
