// Offset-length datatypes of the IEC inspector.
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm",
// The Journal of Supercomputing 47(1):53-75, 2009: Phy2Log (Fig. 9), Compute_Datatype (Fig. 12),
// Compute_Datatype_Intervaled (§3.3.3, "Packing datatype generation"), MPI_Type_indexed + MPI_Type_hvector
// datatypes (§3.3.1).
#include "algorithms/common/datatype.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "algorithms/common/payload.hpp"
#include "algorithms/common/strided_datatype.hpp"

namespace ciosim {

std::int64_t Datatype::replica_size() const {
  std::int64_t n = 0;
  for (const Tuple& t : tuples) n += t.length;
  return n;
}

std::vector<Tuple> Datatype::flatten() const {
  std::vector<Tuple> out;
  out.reserve(tuples.size() * static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
  for (std::int64_t j = 0; j < count; ++j)
    for (const Tuple& t : tuples) out.push_back({t.offset + j * stride, t.length});
  return out;
}

std::int64_t phy2log(const Datatype& dt, std::int64_t k) {
  const std::int64_t rs = dt.replica_size();
  if (k < 0 || rs <= 0 || k >= rs * dt.count)
    throw std::out_of_range("phy2log: entry " + std::to_string(k) + " outside the datatype's " +
                            std::to_string(rs * std::max<std::int64_t>(dt.count, 0)) + " entries");
  const std::int64_t replica = k / rs;
  std::int64_t num_items = 0;  // Fig. 9: walk the tuples until the entry falls in one (L1-L4)
  for (const Tuple& t : dt.tuples) {
    const std::int64_t within = k % rs;
    if (within >= num_items && within < num_items + t.length)
      return t.offset + within - num_items + replica * dt.stride;
    num_items += t.length;
  }
  throw std::logic_error("phy2log: unreachable");
}

std::vector<Tuple> compute_datatype(const std::vector<std::int64_t>& addresses) {
  std::vector<Tuple> out;
  for (std::int64_t a : addresses) {
    if (!out.empty() && a == out.back().offset + out.back().length)
      ++out.back().length;  // L4: consecutive, extend the current tuple
    else
      out.push_back({a, 1});  // L2/L3: first entry or a gap, new tuple
  }
  return out;
}

Datatype compute_datatype_intervaled(const std::vector<std::int64_t>& addresses) {
  const std::size_t n = addresses.size();
  // The first interval ends where the addresses stop increasing.
  std::size_t len = 1;
  while (len < n && addresses[len] > addresses[len - 1]) ++len;
  if (n == 0 || len == n || n % len != 0) return Datatype{compute_datatype(addresses), 1, 0};
  const std::int64_t stride = addresses[len] - addresses[0];
  for (std::size_t i = len; i < n; ++i)
    if (addresses[i] - addresses[i - len] != stride) return Datatype{compute_datatype(addresses), 1, 0};
  const std::vector<std::int64_t> first(addresses.begin(),
                                        addresses.begin() + static_cast<std::ptrdiff_t>(len));
  return Datatype{compute_datatype(first), static_cast<std::int64_t>(n / len), stride};
}

void check_datatype_range(const Datatype& dt) {
  if (dt.count < 0)
    throw std::invalid_argument("datatype: negative replica count " + std::to_string(dt.count));
  auto overflow = [&](const char* what) {
    throw std::invalid_argument(std::string("datatype: ") + what + " overflows int64 (count " +
                                std::to_string(dt.count) + ", stride " + std::to_string(dt.stride) + ", " +
                                std::to_string(dt.tuples.size()) + " tuples)");
  };
  std::int64_t entries = 0;
  std::int64_t shift = 0;  // the last replica's displacement
  if (dt.count > 1 && __builtin_mul_overflow(dt.count - 1, dt.stride, &shift))
    overflow("the last replica's displacement");
  for (const Tuple& t : dt.tuples) {
    if (t.length < 0)
      throw std::invalid_argument("datatype: negative tuple length " + std::to_string(t.length));
    std::int64_t a = 0;
    if (__builtin_add_overflow(entries, t.length, &entries)) overflow("the entry count");
    if (__builtin_add_overflow(t.offset, t.length, &a)) overflow("a tuple's end");
    if (dt.count > 1 &&
        (__builtin_add_overflow(t.offset, shift, &a) || __builtin_add_overflow(a, t.length, &a)))
      overflow("a tuple's end in the last replica");
  }
  if (__builtin_mul_overflow(entries, dt.count, &entries)) overflow("the entry count");
}

// ---- IndexedDatatype

IndexedDatatype::IndexedDatatype(Datatype dt) : dt_(std::move(dt)) {
  check_datatype_range(dt_);
  prefix_.reserve(dt_.tuples.size() + 1);
  std::int64_t n = 0;
  for (const Tuple& t : dt_.tuples) {
    prefix_.push_back(n);
    n += t.length;
  }
  prefix_.push_back(n);
  size_ = n * dt_.count;
}

std::int64_t IndexedDatatype::map(std::int64_t k) const {
  if (k < 0 || k >= size_) throw_range_error(k, 1);
  const std::int64_t rs = prefix_.back();
  const std::int64_t within = k % rs;
  const auto t = std::upper_bound(prefix_.begin(), prefix_.end(), within) - prefix_.begin() - 1;
  return dt_.tuples[static_cast<std::size_t>(t)].offset + (within - prefix_[static_cast<std::size_t>(t)]) +
         (k / rs) * dt_.stride;
}

void IndexedDatatype::throw_range_error(std::int64_t first, std::int64_t n) const {
  throw std::out_of_range("datatype: entries [" + std::to_string(first) + ", " + std::to_string(first + n) +
                          ") outside [0, " + std::to_string(size_) + ")");
}

// ---- pack / unpack

namespace {

/// The tuples of one replica of a datatype, in order, as fn(offset, length).
template <class Fn>
void replica_tuples(const Datatype& dt, Fn&& fn) {
  for (const Tuple& t : dt.tuples) fn(t.offset, t.length);
}
template <class Fn>
void replica_tuples(const StridedDatatype& dt, Fn&& fn) {
  dt.for_tuples(fn);
}
std::int64_t count_of(const Datatype& dt) {
  return dt.count;
}
std::int64_t count_of(const StridedDatatype& dt) {
  return dt.count();
}
std::int64_t stride_of(const Datatype& dt) {
  return dt.stride;
}
std::int64_t stride_of(const StridedDatatype& dt) {
  return dt.stride();
}

template <class Dt, class Copy>
void for_each_region(std::int64_t buffer_bytes, const Dt& dt, std::int64_t element_size,
                     std::int64_t packed_bytes, const char* what, Copy&& copy) {
  if (element_size <= 0)
    throw std::invalid_argument(std::string(what) + ": element size must be positive (got " +
                                std::to_string(element_size) + ")");
  if (dt.size() * element_size != packed_bytes)
    throw std::out_of_range(std::string(what) + ": packed buffer holds " + std::to_string(packed_bytes) +
                            " bytes, the datatype selects " + std::to_string(dt.size() * element_size));
  std::int64_t pos = 0;
  for (std::int64_t j = 0; j < count_of(dt); ++j) {
    replica_tuples(dt, [&](std::int64_t offset, std::int64_t length) {
      const std::int64_t first = offset + j * stride_of(dt);
      const std::int64_t off = first * element_size;
      const std::int64_t len = length * element_size;
      if (len == 0) return;
      if (off < 0 || off + len > buffer_bytes)
        throw std::out_of_range(std::string(what) + ": entries [" + std::to_string(first) + ", " +
                                std::to_string(first + length) + ") outside the buffer of " +
                                std::to_string(buffer_bytes / element_size) + " entries");
      copy(off, pos, len);
      pos += len;
    });
  }
}

/// The regions for_each_region visits, as ranges of the unpacked buffer, those that continue each other
/// joined (valid until the next call).
template <class Dt>
std::span<const payload::Range> regions_of(std::int64_t buffer_bytes, const Dt& dt, std::int64_t element_size,
                                           std::int64_t packed_bytes, const char* what) {
  thread_local std::vector<payload::Range> regions;
  regions.clear();
  for_each_region(buffer_bytes, dt, element_size, packed_bytes, what,
                  [&](std::int64_t off, std::int64_t, std::int64_t len) {
                    payload::append(regions, payload::Range{off, len});
                  });
  return regions;
}

/// True when both spans are elided and do not overlap: a pack or unpack may then gather all of its source's
/// pieces before it assigns any (one map operation per region instead of a copy per region).
bool elided_apart(std::span<const std::byte> a, std::span<const std::byte> b) {
  return payload::is_elided(a) && payload::is_elided(b) &&
         (a.data() + a.size() <= b.data() || b.data() + b.size() <= a.data());
}

/// pack_by's elided gather for a StridedDatatype, a segment of tuples at a time (one step of the piece map
/// for a segment that IEC's grouped buffers hold whole: payload::append_progression). False, with `ps`
/// partly filled, when a tuple lies outside the buffer (the region walk then throws the exact error).
bool gather_segments(std::span<const std::byte> src, const StridedDatatype& dt, std::int64_t element_size,
                     std::vector<payload::Piece>& ps) {
  const auto size = static_cast<std::int64_t>(src.size());
  for (std::int64_t j = 0; j < dt.count(); ++j)
    for (const StridedDatatype::Segment& g : dt.segments()) {
      if (g.length == 0 || g.tuples == 0) continue;
      const std::int64_t first = g.offset + j * dt.stride();
      const std::int64_t last = first + (g.tuples - 1) * g.step;
      if (std::min(first, last) < 0 || (std::max(first, last) + g.length) * element_size > size) return false;
      payload::append_progression(ps, src, first * element_size, g.length * element_size,
                                  g.step * element_size, g.tuples);
    }
  return true;
}

template <class Dt>
void pack_by(std::span<const std::byte> src, const Dt& dt, std::int64_t element_size,
             std::span<std::byte> out) {
  const auto n = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  const std::int64_t src_size = static_cast<std::int64_t>(src.size());
  const std::int64_t out_size = static_cast<std::int64_t>(out.size());
  if (elided_apart(src, out)) {  // the regions' pieces gathered in order, then assigned at once
    thread_local std::vector<payload::Piece> ps;
    ps.clear();
    bool gathered = false;
    if constexpr (std::is_same_v<Dt, StridedDatatype>)
      gathered = element_size > 0 && dt.size() * element_size == out_size &&
                 gather_segments(src, dt, element_size, ps);
    if (!gathered) {
      ps.clear();
      payload::append_pieces(ps, src, regions_of(src_size, dt, element_size, out_size, "pack"));
    }
    payload::assign(out, ps);
  } else if (payload::is_elided(src) || payload::is_elided(out))  // pieces, region by region
    for_each_region(src_size, dt, element_size, out_size, "pack",
                    [&](std::int64_t off, std::int64_t pos, std::int64_t len) {
                      payload::copy(out.subspan(n(pos), n(len)), src.subspan(n(off), n(len)));
                    });
  else  // the bytes' own loop, kept apart so that it stays as tight as before
    for_each_region(src_size, dt, element_size, out_size, "pack",
                    [&](std::int64_t off, std::int64_t pos, std::int64_t len) {
                      std::memcpy(out.data() + pos, src.data() + off, n(len));
                    });
}

template <class Dt>
void unpack_by(std::span<const std::byte> in, const Dt& dt, std::int64_t element_size,
               std::span<std::byte> dst) {
  const auto n = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  const std::int64_t dst_size = static_cast<std::int64_t>(dst.size());
  const std::int64_t in_size = static_cast<std::int64_t>(in.size());
  if (elided_apart(in, dst)) {  // the packed pieces read once, then each region assigned its share
    thread_local std::vector<payload::Piece> all;
    all.clear();
    payload::append_pieces(all, in);
    payload::assign(dst, regions_of(dst_size, dt, element_size, in_size, "unpack"), all);
  } else if (payload::is_elided(in) || payload::is_elided(dst))
    for_each_region(dst_size, dt, element_size, in_size, "unpack",
                    [&](std::int64_t off, std::int64_t pos, std::int64_t len) {
                      payload::copy(dst.subspan(n(off), n(len)), in.subspan(n(pos), n(len)));
                    });
  else
    for_each_region(dst_size, dt, element_size, in_size, "unpack",
                    [&](std::int64_t off, std::int64_t pos, std::int64_t len) {
                      std::memcpy(dst.data() + off, in.data() + pos, n(len));
                    });
}

}  // namespace

void pack(std::span<const std::byte> src, const Datatype& dt, std::int64_t element_size,
          std::span<std::byte> out) {
  pack_by(src, dt, element_size, out);
}

void pack(std::span<const std::byte> src, const StridedDatatype& dt, std::int64_t element_size,
          std::span<std::byte> out) {
  pack_by(src, dt, element_size, out);
}

void unpack(std::span<const std::byte> in, const Datatype& dt, std::int64_t element_size,
            std::span<std::byte> dst) {
  unpack_by(in, dt, element_size, dst);
}

void unpack(std::span<const std::byte> in, const StridedDatatype& dt, std::int64_t element_size,
            std::span<std::byte> dst) {
  unpack_by(in, dt, element_size, dst);
}

}  // namespace ciosim
