// View-based collective I/O (J. García Blas, F. Isaila, D. E. Singh, J. Carretero, "View-based collective
// I/O for MPI-IO", CCGrid 2008): the pure pieces. The view a rank ships at set_view (§V-A: the filetype
// decoded, packed and sent to every aggregator, which rebuilds it), the map from view bytes to file
// bytes the aggregators scatter through (§V-C), the static round-robin mapping of file blocks to
// aggregators (§IV), and the LRU pool of collective buffers (§IV, §V-C).
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "algorithms/common/access_list.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/view_based/view_based.hpp"

namespace ciosim::view_based {

View make_view(const Datatype& dt, std::int64_t element_size, Offset displacement, bool& in_file_order) {
  View v;
  v.displacement = displacement;
  v.element_size = element_size;
  const AccessList a = file_access(dt, element_size);
  in_file_order = a.memory_contiguous();
  if (in_file_order) {
    v.filetype = dt;  // already monotone: ship it as the application built it (indexed + hvector)
    return v;
  }
  for (std::size_t i = 0; i < a.offsets.size(); ++i)
    v.filetype.tuples.push_back({a.offsets[i] / element_size, a.lens[i] / element_size});
  return v;
}

std::vector<std::int64_t> serialize(const View& v) {
  std::vector<std::int64_t> w{v.displacement, v.element_size, v.filetype.count, v.filetype.stride,
                              static_cast<std::int64_t>(v.filetype.tuples.size())};
  w.reserve(w.size() + 2 * v.filetype.tuples.size());
  for (const Tuple& t : v.filetype.tuples) {
    w.push_back(t.offset);
    w.push_back(t.length);
  }
  return w;
}

View deserialize(std::span<const std::int64_t> w) {
  if (w.size() < 5 || w[4] < 0 || w.size() != 5 + 2 * static_cast<std::size_t>(w[4]))
    throw std::invalid_argument("view-based: a malformed view message (" + std::to_string(w.size()) +
                                " words)");
  View v;
  v.displacement = w[0];
  v.element_size = w[1];
  v.filetype.count = w[2];
  v.filetype.stride = w[3];
  v.filetype.tuples.resize(static_cast<std::size_t>(w[4]));
  for (std::size_t i = 0; i < v.filetype.tuples.size(); ++i)
    v.filetype.tuples[i] = {w[5 + 2 * i], w[6 + 2 * i]};
  if (v.element_size <= 0) throw std::invalid_argument("view-based: a view with element size <= 0");
  return v;
}

ViewMap::ViewMap(View v) : view_(std::move(v)), idx_(view_.filetype) {}

Offset ViewMap::file_begin() const {
  return idx_.size() == 0 ? 0 : view_.displacement + idx_.map(0) * view_.element_size;
}

Offset ViewMap::file_end() const {
  return idx_.size() == 0 ? 0 : view_.displacement + (idx_.map(idx_.size() - 1) + 1) * view_.element_size;
}

Offset ViewMap::file_byte(Offset v) const {
  const Offset es = view_.element_size;
  return view_.displacement + idx_.map(v / es) * es + v % es;
}

Offset ViewMap::first_view_byte_at_or_after(Offset f) const {
  const Offset es = view_.element_size;
  // The first entry whose last byte is at or after f (file positions increase with the entry index).
  std::int64_t lo = 0;
  std::int64_t hi = idx_.size();
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (view_.displacement + (idx_.map(mid) + 1) * es > f)
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo == idx_.size()) return bytes();
  const Offset start = view_.displacement + idx_.map(lo) * es;
  return lo * es + std::clamp<Offset>(f - start, 0, es);
}

Extent ViewMap::interval(Offset lo, Offset hi) const {
  const Offset a = first_view_byte_at_or_after(lo);
  const Offset b = first_view_byte_at_or_after(hi);
  return {a, std::max<Offset>(0, b - a)};
}

std::int64_t ViewMap::run_count(Offset v0, Offset len) const {
  std::int64_t n = 0;
  for_runs(v0, len, [&](Offset, Offset, Offset) { ++n; });
  return n;
}

std::vector<int> aggregator_ranks(int nprocs, int wanted) {
  const int a = (wanted <= 0 || wanted > nprocs) ? nprocs : wanted;
  std::vector<int> r(static_cast<std::size_t>(a));
  for (int k = 0; k < a; ++k)
    r[static_cast<std::size_t>(k)] =
        static_cast<int>(static_cast<std::int64_t>(k) * nprocs / a);  // evenly spread over the ranks
  return r;
}

Offset block_size(const IoHints& h) {
  return h.vb_buffer_size > 0 ? h.vb_buffer_size : h.cb_buffer_size;
}

int pool_buffers(const IoHints& h) {
  return static_cast<int>(std::clamp<std::int64_t>(h.vb_pool_size / block_size(h), 1, INT32_MAX));
}

std::vector<Piece> clip(std::span<const Piece> pieces, Offset v0, Offset v1) {
  std::vector<Piece> out;
  for (const Piece& pc : pieces) {
    const Offset lo = std::max(pc.view_start, v0);
    const Offset hi = std::min(pc.view_start + pc.length, v1);
    if (lo < hi) out.push_back({pc.block, pc.rank, lo, hi - lo});
  }
  return out;
}

std::vector<std::vector<Piece>> coalesce(std::span<const Piece> pieces, Offset nb) {
  if (nb < 1) throw std::invalid_argument("view-based: a network buffer must hold at least one byte");
  std::vector<std::vector<Piece>> out;
  Offset used = 0;
  for (const Piece& pc : pieces) {
    Offset start = pc.view_start;
    Offset left = pc.length;
    while (left > 0) {
      if (out.empty() || (used > 0 && used + left > nb)) {
        out.emplace_back();
        used = 0;
      }
      const Offset n = std::min(left, nb - used);
      out.back().push_back({pc.block, pc.rank, start, n});
      used += n;
      start += n;
      left -= n;
    }
  }
  return out;
}

Offset message_bytes(std::span<const Piece> message) {
  Offset n = 0;
  for (const Piece& pc : message) n += pc.length;
  return n;
}

std::vector<Piece> pieces_of(const ViewMap& m, int rank, Offset bs) {
  std::vector<Piece> out;
  if (m.bytes() == 0) return out;
  const std::int64_t first = block_of(m.file_begin(), bs);
  const std::int64_t last = block_of(m.file_end() - 1, bs);
  for (std::int64_t b = first; b <= last; ++b) {
    const Extent e = m.interval(b * bs, (b + 1) * bs);
    if (e.length > 0) out.push_back({b, rank, e.offset, e.length});
  }
  return out;
}

void ByteRanges::add(Offset off, Offset len) {
  if (len <= 0) return;
  // Insert, then merge with every range it touches or overlaps.
  auto it = std::lower_bound(r_.begin(), r_.end(), off,
                             [](const Extent& e, Offset o) { return e.offset + e.length < o; });
  Offset lo = off;
  Offset hi = off + len;
  auto end = it;
  while (end != r_.end() && end->offset <= hi) {
    lo = std::min(lo, end->offset);
    hi = std::max(hi, end->offset + end->length);
    ++end;
  }
  it = r_.erase(it, end);
  r_.insert(it, Extent{lo, hi - lo});
}

std::int64_t ByteRanges::add_all(std::span<const Extent> added) {
  // Both lists sorted, then merged: linear in the ranges held when `more` comes in order (a piece's runs),
  // which a block scattered into by many pieces does once per piece.
  const auto by_offset = [](const Extent& a, const Extent& b) { return a.offset < b.offset; };
  std::vector<Extent> sorted;  // a copy only when `added` is out of order
  std::span<const Extent> more = added;
  auto walked = static_cast<std::int64_t>(added.size() + r_.size() + added.size());  // the check, the merge
  if (!std::is_sorted(added.begin(), added.end(), by_offset)) {
    sorted.assign(added.begin(), added.end());
    std::sort(sorted.begin(), sorted.end(), by_offset);
    more = sorted;
    walked += static_cast<std::int64_t>(added.size()) * std::bit_width(added.size());  // n log2 n comparisons
  }
  std::vector<Extent> out;
  out.reserve(r_.size() + 1);
  const auto put = [&out](const Extent& e) {
    if (e.length <= 0) return;
    if (!out.empty() && e.offset <= out.back().offset + out.back().length)
      out.back().length = std::max(out.back().length, e.offset + e.length - out.back().offset);
    else
      out.push_back(e);
  };
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < more.size() || j < r_.size())
    put(j == r_.size() || (i < more.size() && by_offset(more[i], r_[j])) ? more[i++] : r_[j++]);
  r_ = std::move(out);
  return walked;
}

bool ByteRanges::covers(Offset off, Offset len) const {
  if (len <= 0) return true;
  auto it =
      std::upper_bound(r_.begin(), r_.end(), off, [](Offset o, const Extent& e) { return o < e.offset; });
  if (it == r_.begin()) return false;
  --it;
  return it->offset <= off && off + len <= it->offset + it->length;
}

Buffer* BufferPool::find(std::int64_t block) {
  auto w = where_.find(block);
  if (w == where_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, w->second);  // most recently used first; iterators stay valid
  return &lru_.front();
}

std::vector<Buffer*> BufferPool::by_block() {
  std::vector<Buffer*> out;
  for (Buffer& b : lru_) out.push_back(&b);
  std::sort(out.begin(), out.end(), [](const Buffer* a, const Buffer* b) { return a->block < b->block; });
  return out;
}

std::string check(const Distribution& d) {
  if (std::string why = check_partition(d); !why.empty()) return "view-based needs a partition of x: " + why;
  return "";
}

}  // namespace ciosim::view_based
