#include "models/pvfs/striping.hpp"

#include <algorithm>
#include <stdexcept>

namespace ciosim::pvfs {

std::vector<ServerPart> split_by_stripe(std::span<const Extent> regions, std::int64_t stripe_size,
                                        int servers) {
  if (stripe_size <= 0 || servers <= 0)
    throw std::invalid_argument("stripe_size and servers must be positive");
  std::vector<ServerPart> parts(static_cast<std::size_t>(servers));
  for (int k = 0; k < servers; ++k) parts[static_cast<std::size_t>(k)].server = k;
  // Each server's pieces at most (a region's part of a strip each, before merging), reserved at once: a
  // list request's 64 small regions would otherwise grow a vector seven times.
  std::vector<std::int64_t> most(static_cast<std::size_t>(servers), 0);
  for (const Extent& e : regions) {
    if (e.length <= 0 || e.offset < 0) continue;
    const std::int64_t first = e.offset / stripe_size;
    const std::int64_t last = (e.offset + e.length - 1) / stripe_size;
    if (last - first + 1 >= servers) {
      for (std::int64_t& m : most) m += (last - first + 1) / servers + 1;
    } else {
      for (std::int64_t s = first; s <= last; ++s) ++most[static_cast<std::size_t>(s % servers)];
    }
  }
  for (std::size_t k = 0; k < parts.size(); ++k) parts[k].pieces.reserve(static_cast<std::size_t>(most[k]));
  Offset data = 0;
  for (const Extent& e : regions) {
    if (e.length < 0 || e.offset < 0) throw std::invalid_argument("negative file region");
    Offset off = e.offset;
    Offset left = e.length;
    while (left > 0) {
      const std::int64_t strip = off / stripe_size;
      const Offset within = off % stripe_size;
      const Offset n = std::min(left, stripe_size - within);
      ServerPart& part = parts[static_cast<std::size_t>(strip % servers)];
      const Offset local = (strip / servers) * stripe_size + within;
      Piece* last = part.pieces.empty() ? nullptr : &part.pieces.back();
      if (last && last->local_offset + last->length == local && last->data_offset + last->length == data &&
          last->file_offset + last->length == off) {
        last->length += n;  // continues the previous piece in every space
      } else {
        if (!last || last->local_offset + last->length != local) ++part.local_regions;
        part.pieces.push_back(Piece{off, local, n, data});
      }
      part.bytes += n;
      off += n;
      data += n;
      left -= n;
    }
  }
  std::erase_if(parts, [](const ServerPart& p) { return p.pieces.empty(); });
  return parts;
}

}  // namespace ciosim::pvfs
