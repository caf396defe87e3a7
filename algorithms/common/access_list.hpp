// A rank's file access as offset-length pieces in bytes, the way ROMIO's ADIOI_Calc_my_off_len walks a
// flattened file view (ROMIO adio/common/ad_read_coll.c; docs/two-phase.md, the `offsets` phase), plus
// the storage-order walk that independent and list I/O use (docs/two-phase.md, "List I/O, independent,
// gathered").
//
// A Distribution gives each rank's entries in the order the rank stores them (its memory order). An MPI
// file view must be monotone, so a rank whose entries are not in increasing file order describes the
// permutation with its memory datatype instead: then the pieces are sorted by file offset and each keeps
// its memory offset (ROMIO's "buftype is not contiguous" case).
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/process.hpp"

namespace ciosim {

struct AccessList {
  std::vector<Offset> offsets;  ///< file byte offset of each piece, increasing
  std::vector<Offset> lens;     ///< bytes of each piece (> 0)
  /// Byte offset of each piece in the rank's buffer when memory order differs from file order; empty when
  /// the pieces lie back to back in the buffer in file order (a contiguous buftype).
  std::vector<Offset> mem;
  Offset start = 0;  ///< first byte accessed (0 for an empty access: view displacement 0, as ROMIO)
  Offset end = -1;   ///< last byte accessed (start - 1 for an empty access)
  Offset bytes = 0;  ///< sum of lens
  std::int64_t count() const { return static_cast<std::int64_t>(offsets.size()); }
  bool memory_contiguous() const { return mem.empty(); }
};

/// The access of a rank holding `dt`'s entries (element_size bytes each): pieces in increasing file
/// offset, those adjacent both in the file and in memory merged (as ROMIO's flattening merges adjacent
/// blocks). Throws std::invalid_argument if element_size <= 0 or two entries overlap in the file.
AccessList file_access(const Datatype& dt, std::int64_t element_size);

/// Calls fn(file_offset, length) in bytes for the contiguous pieces of `dt` in storage order (the rank's
/// memory order), merging a piece with the previous one when it continues it in the file. The pieces'
/// data lie back to back in the rank's buffer in this order.
template <class Fn>
void for_each_storage_piece(const Datatype& dt, std::int64_t element_size, Fn&& fn) {
  Offset cur_off = 0;
  Offset cur_len = 0;
  for (std::int64_t j = 0; j < dt.count; ++j) {
    for (const Tuple& t : dt.tuples) {
      if (t.length <= 0) continue;
      const Offset off = (t.offset + j * dt.stride) * element_size;
      const Offset len = t.length * element_size;
      if (cur_len > 0 && cur_off + cur_len == off) {
        cur_len += len;
        continue;
      }
      if (cur_len > 0) fn(cur_off, cur_len);
      cur_off = off;
      cur_len = len;
    }
  }
  if (cur_len > 0) fn(cur_off, cur_len);
}

/// Number of pieces for_each_storage_piece produces.
std::int64_t storage_piece_count(const Datatype& dt, std::int64_t element_size);

}  // namespace ciosim
