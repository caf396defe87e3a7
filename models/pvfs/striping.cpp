#include "models/pvfs/striping.hpp"

#include <algorithm>
#include <stdexcept>

namespace ciosim::pvfs {

namespace {

/// The strip that holds a file offset, kept from one lookup to the next: a list request's regions,
/// ascending and often many to a strip, cost a division only when they enter another strip.
class StripAt {
 public:
  StripAt(std::int64_t stripe_size, int servers) : stripe_(stripe_size), servers_(servers) {}
  /// Moves to the strip holding `off` (>= 0).
  void at(Offset off) {
    if (found_ && off >= lo_ && off - lo_ < stripe_) return;
    found_ = true;
    strip_ = off / stripe_;
    lo_ = strip_ * stripe_;
    server_ = static_cast<int>(strip_ % servers_);
    local_lo_ = (strip_ / servers_) * stripe_;
  }
  std::int64_t strip() const { return strip_; }
  int server() const { return server_; }
  Offset lo() const { return lo_; }              ///< the strip's first file offset
  Offset local_lo() const { return local_lo_; }  ///< its first offset in its server's local file

 private:
  std::int64_t stripe_;
  std::int64_t servers_;
  std::int64_t strip_ = 0;
  Offset lo_ = 0;
  bool found_ = false;  ///< a strip was looked up
  int server_ = 0;
  Offset local_lo_ = 0;
};

}  // namespace

std::vector<ServerPart> split_by_stripe(std::span<const Extent> regions, std::int64_t stripe_size,
                                        int servers) {
  if (stripe_size <= 0 || servers <= 0)
    throw std::invalid_argument("stripe_size and servers must be positive");
  std::vector<ServerPart> parts(static_cast<std::size_t>(servers));
  for (int k = 0; k < servers; ++k) parts[static_cast<std::size_t>(k)].server = k;
  // Each server's pieces at most (a region's part of a strip each, before merging), reserved at once: a
  // list request's 64 small regions would otherwise grow a vector seven times.
  std::vector<std::int64_t> most(static_cast<std::size_t>(servers), 0);
  StripAt strip(stripe_size, servers);
  for (const Extent& e : regions) {
    if (e.length <= 0 || e.offset < 0) continue;
    strip.at(e.offset);
    if (e.offset - strip.lo() < stripe_size - (e.length - 1)) {  // within the strip
      ++most[static_cast<std::size_t>(strip.server())];
      continue;
    }
    const std::int64_t first = strip.strip();
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
      strip.at(off);
      const Offset within = off - strip.lo();
      const Offset n = std::min(left, stripe_size - within);
      ServerPart& part = parts[static_cast<std::size_t>(strip.server())];
      const Offset local = strip.local_lo() + within;
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
