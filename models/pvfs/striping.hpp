// Client-side request splitting of a PVFS-style striped file (PVFS 1.6 / PVFS2 simple_stripe): the file
// is cut into strips of `stripe_size` bytes placed round-robin on the I/O servers, starting at server 0.
// Server k stores its strips back to back in its local file, so strip s lives on server s % n at local
// offset (s / n) * stripe_size.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algorithms/common/process.hpp"

namespace ciosim::pvfs {

/// A contiguous piece of one request that lands on one server.
struct Piece {
  Offset file_offset = 0;   ///< in the logical file
  Offset local_offset = 0;  ///< in the server's local file
  Offset length = 0;
  Offset data_offset = 0;  ///< position in the client's buffer (regions back to back)
};

/// What one client request sends to one server.
struct ServerPart {
  int server = 0;
  std::vector<Piece> pieces;  ///< in client-buffer order
  Offset bytes = 0;
  /// Contiguous regions in the server's local file after merging pieces that are adjacent there
  /// (what the server's per-region cost applies to).
  std::int64_t local_regions = 0;
};

/// Splits a list request (regions back to back in the client's buffer) by strip; one part per server
/// touched, in increasing server order. Zero-length regions are skipped.
std::vector<ServerPart> split_by_stripe(std::span<const Extent> regions, std::int64_t stripe_size,
                                        int servers);

}  // namespace ciosim::pvfs
