#include "algorithms/common/payload.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace ciosim::payload {

namespace {

bool continues(std::int64_t left_source, std::int64_t left_length, std::int64_t right_source) {
  if (left_source == kZero) return right_source == kZero;
  if (left_source <= kLiteral) return right_source == left_source - left_length;
  return left_source >= 0 && right_source == left_source + left_length;
}

std::int64_t shifted(std::int64_t source, std::int64_t by) {
  return source >= 0 ? source + by : source <= kLiteral ? source - by : source;
}

/// The reserved range elided buffers live in: address space only (PROT_NONE, no swap reserved), handed
/// out in order and never reused, so a stale span can never alias a newer buffer. Its pieces are one
/// PieceMap keyed by the distance from its start.
struct Arena {
  static constexpr std::size_t kSize = std::size_t{1} << 44;  // 16 TiB of addresses, no memory
  static constexpr std::size_t kAlign = 64;
  std::byte* base = nullptr;
  std::size_t used = 0;
  PieceMap map;
  std::vector<std::byte> literals;  ///< the literal store (kLiteral); append-only, a few bytes a message

  std::byte* allocate(std::size_t n) {
    if (base == nullptr) {  // reserved at the first elided buffer: a run with bytes never maps it
      void* p = ::mmap(nullptr, kSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) base = static_cast<std::byte*>(p);
    }
    if (base == nullptr)
      throw std::runtime_error(
          "elided payloads: cannot reserve address space for elided buffers "
          "(mmap of 16 TiB PROT_NONE failed); use run.payload = bytes");
    const std::size_t rounded = (n + kAlign - 1) / kAlign * kAlign;
    if (rounded > kSize - used)
      throw std::runtime_error(
          "elided payloads: the run allocated more than 16 TiB of elided buffers in "
          "all; use run.payload = bytes or a smaller point");
    std::byte* p = base + used;
    used += rounded;
    detail::elided_begin = reinterpret_cast<std::uintptr_t>(base);
    detail::elided_end = reinterpret_cast<std::uintptr_t>(base + used);
    return p;
  }
  std::int64_t position(const std::byte* p) const { return p - base; }
};

Arena& arena() {
  static Arena a;
  return a;
}

Mode g_mode = Mode::Bytes;

}  // namespace

std::int64_t length_of(std::span<const Piece> ps) {
  std::int64_t n = 0;
  for (const Piece& p : ps) n += p.length;
  return n;
}

// ---- pieces

bool join(Piece& left, const Piece& right) {
  if (right.length <= 0) return true;
  if (left.length <= 0) {
    left = right;
    return true;
  }
  if (!left.strided() && !right.strided()) {
    if ((left.source == kUndefined && right.source == kUndefined) ||
        continues(left.source, left.length, right.source)) {
      left.length += right.length;
      return true;
    }
    if (left.source >= 0 && right.source >= 0 && left.length == right.length) {  // two runs: a strided piece
      left = Piece{2 * left.length, left.source, left.length, right.source - left.source};
      return true;
    }
    return false;
  }
  if (left.grouped()) {  // one more group, or more groups of the same shape
    const std::int64_t next = left.source + left.length / left.group * left.gstride;
    const bool same_shape = right.block == left.block && right.stride == left.stride &&
                            (right.grouped() ? right.group == left.group && right.gstride == left.gstride
                                             : right.length == left.group);
    if (same_shape && right.source == next) {
      left.length += right.length;
      return true;
    }
    return false;
  }
  if (left.strided()) {  // one more run, or more runs of the same shape
    const bool same_shape = right.strided()
                                ? !right.grouped() && right.block == left.block && right.stride == left.stride
                                : right.source >= 0 && right.length == left.block;
    if (same_shape && right.source == left.source + left.runs() * left.stride) {
      left.length += right.length;
      return true;
    }
    if (same_shape && right.strided() && right.length == left.length) {  // two strided pieces: grouped
      left = Piece{2 * left.length, left.source, left.block,
                   left.stride,     left.length, right.source - left.source};
      return true;
    }
    return false;
  }
  // a run, then a strided piece it is the first run of
  if (!right.grouped() && left.source >= 0 && left.length == right.block &&
      right.source == left.source + right.stride) {
    left = Piece{left.length + right.length, left.source, right.block, right.stride};
    return true;
  }
  return false;
}

void append(std::vector<Piece>& out, Piece p) {
  if (p.length <= 0) return;
  if (!out.empty() && join(out.back(), p)) return;
  out.push_back(p);
}

void append(std::vector<Range>& out, Range r) {
  if (r.length <= 0) return;
  if (!out.empty() && out.back().pos + out.back().length == r.pos)
    out.back().length += r.length;
  else
    out.push_back(r);
}

void append_slice(std::vector<Piece>& out, const Piece& p, std::int64_t off, std::int64_t len) {
  if (len <= 0) return;
  if (p.grouped()) {
    const std::int64_t size = p.group;
    std::int64_t g = off / size;
    if (const std::int64_t in = off % size; in != 0) {  // the end of a group
      const std::int64_t n = std::min(size - in, len);
      append_slice(out, p.group_at(g), in, n);
      len -= n;
      ++g;
    }
    if (const std::int64_t whole = len / size; whole > 0) {
      append(out, whole == 1
                      ? p.group_at(g)
                      : Piece{whole * size, p.source + g * p.gstride, p.block, p.stride, size, p.gstride});
      g += whole;
      len -= whole * size;
    }
    if (len > 0) append_slice(out, p.group_at(g), 0, len);  // the start of a group
    return;
  }
  if (!p.strided()) {
    append(out, Piece{len, shifted(p.source, off)});
    return;
  }
  const std::int64_t b = p.block;
  std::int64_t run = off / b;
  if (const std::int64_t in = off % b; in != 0) {  // the end of a run
    const std::int64_t n = std::min(b - in, len);
    append(out, Piece{n, p.source + run * p.stride + in});
    len -= n;
    ++run;
  }
  if (const std::int64_t whole = len / b; whole > 0) {
    append(out, whole == 1 ? Piece{b, p.source + run * p.stride}
                           : Piece{whole * b, p.source + run * p.stride, b, p.stride});
    run += whole;
    len -= whole * b;
  }
  if (len > 0) append(out, Piece{len, p.source + run * p.stride});  // the start of a run
}

void PieceCursor::advance(std::int64_t n) {
  off_ += n;
  if (off_ == piece().length) {
    ++i_;
    off_ = 0;
    skip_empty();
  }
}

void PieceCursor::take(std::int64_t n, std::vector<Piece>& out) {
  while (n > 0 && !done()) {
    const std::int64_t t = std::min(n, piece().length - off_);
    append_slice(out, piece(), off_, t);
    advance(t);
    n -= t;
  }
}

std::int64_t PieceCursor::source() const {
  const Piece& p = piece();
  if (p.grouped()) {
    const std::int64_t in = off_ % p.group;
    return p.source + off_ / p.group * p.gstride + in / p.block * p.stride + in % p.block;
  }
  return p.strided() ? p.source + off_ / p.block * p.stride + off_ % p.block : shifted(p.source, off_);
}

bool same_contents(std::span<const Piece> a, std::span<const Piece> b) {
  PieceCursor x(a);
  PieceCursor y(b);
  while (!x.done() && !y.done()) {
    const Piece& p = x.piece();
    const Piece& q = y.piece();
    if (x.source() != y.source()) return false;
    if (p.grouped() && q.grouped() && p.block == q.block && p.stride == q.stride && p.group == q.group &&
        p.gstride == q.gstride && x.offset() % p.group == y.offset() % q.group) {  // the same shape, in step
      const std::int64_t n = std::min(p.length - x.offset(), q.length - y.offset());
      x.advance(n);
      y.advance(n);
      continue;
    }
    if (p.strided() && q.strided() && p.block == q.block && p.stride == q.stride &&
        x.offset() % p.block == 0 && y.offset() % q.block == 0) {  // whole runs of the same shape at once
      const std::int64_t n = std::min(x.unit_left(), y.unit_left());
      x.advance(n);
      y.advance(n);
      continue;
    }
    const std::int64_t n = std::min(x.run_left(), y.run_left());
    x.advance(n);
    y.advance(n);
  }
  return x.done() && y.done();
}

// ---- PieceMap

namespace {

/// map.lower_bound(pos), given `from` with every entry before it starting before pos: a walk of a few
/// entries from `from`, or a descent when pos lies further on.
template <class Map, class It>
It seek(Map& map, It from, std::int64_t pos) {
  constexpr int kWalk = 8;  // entries walked before a descent (log2 of the map's size) costs less
  for (int k = 0; k < kWalk && from != map.end() && from->first < pos; ++k) ++from;
  if (from != map.end() && from->first < pos) return map.lower_bound(pos);
  return from;
}

/// Calls fn(pos, len, map.lower_bound(pos)) for each non-empty range k < n, in order, range(k) giving its
/// {pos, length}. Each lower bound is found by walking from `next`, what fn returned for the previous range
/// (the lower bound of its end), when the ranges go forward, and by a descent when one goes back.
template <class Map, class It, class RangeAt, class Fn>
void for_ranges(Map& map, It next, std::size_t n, RangeAt&& range, Fn&& fn) {
  std::int64_t done = std::numeric_limits<std::int64_t>::min();  // entries before `next` start before it
  for (std::size_t k = 0; k < n; ++k) {
    const Range r = range(k);
    if (r.length <= 0) continue;
    next = fn(r.pos, r.length, r.pos >= done ? seek(map, next, r.pos) : map.lower_bound(r.pos));
    done = r.pos + r.length;
  }
}

/// for_ranges over `ranges`, each shifted by base.
template <class Map, class It, class Fn>
void for_ranges(Map& map, It next, std::span<const Range> ranges, std::int64_t base, Fn&& fn) {
  for_ranges(
      map, next, ranges.size(),
      [&](std::size_t k) {
        return Range{base + ranges[k].pos, ranges[k].length};
      },
      fn);
}

}  // namespace

PieceMap::Map::iterator PieceMap::place_slice(Map::iterator hint, std::int64_t at, const Piece& p,
                                              std::int64_t off, std::int64_t len) {
  thread_local std::vector<Piece> parts;
  parts.clear();
  append_slice(parts, p, off, len);
  Map::iterator first = hint;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto placed = map_.emplace_hint(hint, at, parts[k]);
    if (k == 0) first = placed;
    at += parts[k].length;
  }
  note_size();
  return first;
}

PieceMap::Map::iterator PieceMap::cut(Map::iterator it, std::int64_t pos, std::int64_t len) {
  if (len <= 0) return it;
  const std::int64_t end = pos + len;
  if (it != map_.begin()) {
    const auto prev = std::prev(it);
    const std::int64_t start = prev->first;
    const std::int64_t prev_end = start + prev->second.length;
    if (prev_end > pos) {  // an entry that starts before pos; nothing else starts before its end
      const Piece whole = prev->second;
      if (whole.strided()) {  // keep its parts outside [pos, end), sliced
        map_.erase(prev);
        place_slice(it, start, whole, 0, pos - start);
      } else {  // a run: cut in place
        prev->second.length = pos - start;
      }
      if (prev_end > end) return place_slice(it, end, whole, end - start, prev_end - end);
    }
  }
  while (it != map_.end() && it->first < end) {
    const std::int64_t start = it->first;
    const std::int64_t it_end = start + it->second.length;
    const Piece whole = it->second;
    it = map_.erase(it);
    if (it_end > end) return place_slice(it, end, whole, end - start, it_end - end);
  }
  return it;
}

void PieceMap::erase(std::int64_t pos, std::int64_t len) {
  cut(map_.lower_bound(pos), pos, len);
}

PieceMap::Map::iterator PieceMap::merge_left(Map::iterator it) {
  if (it == map_.begin() || it == map_.end()) return it;
  auto prev = std::prev(it);
  if (prev->first + prev->second.length == it->first && join(prev->second, it->second)) return map_.erase(it);
  return it;
}

void PieceMap::assign(std::int64_t pos, std::span<const Piece> pieces) {
  assign_at(map_.lower_bound(pos), pos, pieces);
}

void PieceMap::assign_ranges(std::span<const Range> ranges, std::span<const Piece> pieces,
                             std::int64_t base) {
  std::int64_t total = 0;
  for (const Range& r : ranges) total += std::max<std::int64_t>(r.length, 0);
  if (total != length_of(pieces))
    throw std::logic_error("PieceMap::assign_ranges: " + std::to_string(length_of(pieces)) +
                           " bytes of pieces for ranges of " + std::to_string(total));
  thread_local std::vector<Piece> part;
  PieceCursor cursor(pieces);
  for_ranges(map_, map_.begin(), ranges, base, [&](std::int64_t pos, std::int64_t len, Map::iterator at) {
    part.clear();
    cursor.take(len, part);
    return assign_at(at, pos, part);
  });
}

void PieceMap::extract_ranges(std::vector<Piece>& out, std::span<const Range> ranges,
                              std::int64_t base) const {
  for_ranges(map_, map_.begin(), ranges, base,
             [&](std::int64_t pos, std::int64_t len, Map::const_iterator at) {
               return extract_at(at, out, pos, len);
             });
}

PieceMap::Map::iterator PieceMap::assign_at(Map::iterator at_pos, std::int64_t pos,
                                            std::span<const Piece> pieces) {
  const std::int64_t len = length_of(pieces);
  std::int64_t at = pos;
  const auto next = cut(at_pos, pos, len);  // the first entry past the range; nothing lies in it any more
  // The entry a new piece may join: the one ending at pos, then the last one placed.
  auto last = next == map_.begin() ? map_.end() : std::prev(next);
  if (last != map_.end() && last->first + last->second.length != pos) last = map_.end();
  for (const Piece& p : pieces) {
    if (p.length <= 0) continue;
    if (p.source == kUndefined) {
      last = map_.end();
    } else if (last == map_.end() || !join(last->second, p)) {
      last = map_.emplace_hint(next, at, p);
      note_size();
    }
    at += p.length;
  }
  return merge_left(next);
}

void PieceMap::extract_into(std::vector<Piece>& out, std::int64_t pos, std::int64_t len) const {
  extract_at(map_.lower_bound(pos), out, pos, len);
}

PieceMap::Map::const_iterator PieceMap::extract_at(Map::const_iterator it, std::vector<Piece>& out,
                                                   std::int64_t pos, std::int64_t len) const {
  if (len <= 0) return it;
  const std::int64_t end = pos + len;
  if (it != map_.begin() && (it == map_.end() || it->first > pos)) --it;  // the entry holding pos, if any
  std::int64_t at = pos;
  for (; it != map_.end() && it->first < end; ++it) {
    const std::int64_t lo = std::max(it->first, pos);
    const std::int64_t hi = std::min(it->first + it->second.length, end);
    if (hi <= lo) continue;
    if (lo > at) append(out, Piece{lo - at, kUndefined});
    append_slice(out, it->second, lo - it->first, hi - lo);
    at = hi;
  }
  if (at < end) append(out, Piece{end - at, kUndefined});
  return it;
}

void PieceMap::extract_progression(std::vector<Piece>& out, std::int64_t pos, std::int64_t len,
                                   std::int64_t step, std::int64_t count) const {
  if (len <= 0 || count <= 0) return;
  if (count >= 2 && step > len) {  // one grouped entry, a group per range at the same place: one piece
    auto it = map_.upper_bound(pos);
    if (it != map_.begin()) {
      --it;
      const Piece& p = it->second;
      const std::int64_t off = pos - it->first;
      if (p.grouped() && p.group == step && off % step + len <= step &&
          off + (count - 1) * step + len <= p.length) {
        thread_local std::vector<Piece> one;
        one.clear();
        append_slice(one, p.group_at(off / step), off % step, len);
        if (one.size() == 1) {  // range k is `one` shifted by k * gstride
          const Piece& q = one.front();
          const std::int64_t n = count * len;
          if (!q.strided())
            append(out, p.gstride == len ? Piece{n, q.source} : Piece{n, q.source, len, p.gstride});
          else if (p.gstride == q.runs() * q.stride)  // the ranges continue each other's runs
            append(out, Piece{n, q.source, q.block, q.stride});
          else
            append(out, Piece{n, q.source, q.block, q.stride, len, p.gstride});
          return;
        }
      }
    }
  }
  for_ranges(
      map_, map_.begin(), static_cast<std::size_t>(count),
      [&](std::size_t k) {
        return Range{pos + static_cast<std::int64_t>(k) * step, len};
      },
      [&](std::int64_t at, std::int64_t n, Map::const_iterator it) { return extract_at(it, out, at, n); });
}

std::vector<Piece> PieceMap::extract(std::int64_t pos, std::int64_t len) const {
  std::vector<Piece> out;
  extract_into(out, pos, len);
  return out;
}

std::int64_t PieceMap::end() const {
  if (map_.empty()) return 0;
  const auto& last = *map_.rbegin();
  return last.first + last.second.length;
}

// ---- mode

Mode mode() {
  return g_mode;
}

ModeScope::ModeScope(Mode m) : previous_(g_mode) {
  g_mode = m;
}

ModeScope::~ModeScope() {
  g_mode = previous_;
}

// ---- Buffer

Buffer::Buffer(std::size_t n, Mode m) : size_(n) {
  if (m == Mode::Elided && n > 0) {
    elided_ = arena().allocate(n);
    capacity_ = n;
  } else {
    bytes_.resize(n);
  }
}

Buffer::Buffer(Buffer&& o) noexcept
    : bytes_(std::move(o.bytes_)),
      elided_(std::exchange(o.elided_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      capacity_(std::exchange(o.capacity_, 0)) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    bytes_ = std::move(o.bytes_);
    elided_ = std::exchange(o.elided_, nullptr);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
  }
  return *this;
}

Buffer::~Buffer() {
  release();
}

void Buffer::grow(std::size_t n) {
  if (n <= size_) return;
  if (size_ == 0 && !elided_) {  // an empty buffer takes the current mode
    *this = Buffer(n);
    return;
  }
  if (!elided_) {
    bytes_.resize(n);
    size_ = n;
    return;
  }
  if (n > capacity_) {  // new addresses, twice as many: a buffer grown byte by byte moves log n times
    Buffer bigger(std::max(n, 2 * capacity_), Mode::Elided);
    assign(bigger.span().first(size_), pieces(span()));
    bigger.size_ = size_;
    *this = std::move(bigger);
  }
  size_ = n;  // the new bytes are kUndefined: nothing was ever assigned past size_
}

void Buffer::release() {
  if (elided_) {
    Arena& a = arena();
    a.map.erase(a.position(elided_), static_cast<std::int64_t>(size_));
    elided_ = nullptr;
  }
  bytes_.clear();
  size_ = 0;
  capacity_ = 0;
}

// ---- copies

void append_pieces(std::vector<Piece>& out, std::span<const std::byte> elided) {
  if (elided.empty()) return;
  if (!is_elided(elided)) throw std::logic_error("payload::pieces: the span is not an elided buffer");
  const Arena& a = arena();
  a.map.extract_into(out, a.position(elided.data()), static_cast<std::int64_t>(elided.size()));
}

namespace {

/// Throws std::logic_error naming `call` unless every range lies within a span of `size` bytes.
void check_ranges(std::span<const Range> ranges, std::size_t size, const char* call) {
  for (const Range& r : ranges)
    if (r.length > 0 && (r.pos < 0 || r.pos + r.length > static_cast<std::int64_t>(size)))
      throw std::logic_error(std::string(call) + ": range [" + std::to_string(r.pos) + ", " +
                             std::to_string(r.pos + r.length) + ") outside a span of " +
                             std::to_string(size) + " bytes");
}

}  // namespace

void append_pieces(std::vector<Piece>& out, std::span<const std::byte> elided,
                   std::span<const Range> ranges) {
  check_ranges(ranges, elided.size(), "payload::append_pieces");
  if (elided.empty()) return;
  if (!is_elided(elided)) throw std::logic_error("payload::append_pieces: the span is not an elided buffer");
  const Arena& a = arena();
  a.map.extract_ranges(out, ranges, a.position(elided.data()));
}

void append_progression(std::vector<Piece>& out, std::span<const std::byte> elided, std::int64_t off,
                        std::int64_t len, std::int64_t step, std::int64_t count) {
  if (len <= 0 || count <= 0) return;
  if (!is_elided(elided))
    throw std::logic_error("payload::append_progression: the span is not an elided buffer");
  const Arena& a = arena();
  a.map.extract_progression(out, a.position(elided.data()) + off, len, step, count);
}

std::vector<Piece> pieces(std::span<const std::byte> elided) {
  std::vector<Piece> out;
  append_pieces(out, elided);
  return out;
}

void assign(std::span<std::byte> elided, std::span<const Piece> ps) {
  if (length_of(ps) != static_cast<std::int64_t>(elided.size()))
    throw std::logic_error("payload::assign: " + std::to_string(length_of(ps)) +
                           " bytes of pieces for a span of " + std::to_string(elided.size()));
  if (elided.empty()) return;
  if (!is_elided(std::span<const std::byte>(elided)))
    throw std::logic_error("payload::assign: the span is not an elided buffer");
  Arena& a = arena();
  a.map.assign(a.position(elided.data()), ps);
}

void assign(std::span<std::byte> elided, std::span<const Range> ranges, std::span<const Piece> ps) {
  check_ranges(ranges, elided.size(), "payload::assign");
  if (elided.empty()) {  // the ranges are empty too
    if (length_of(ps) != 0) throw std::logic_error("payload::assign: pieces for an empty span");
    return;
  }
  if (!is_elided(std::span<const std::byte>(elided)))
    throw std::logic_error("payload::assign: the span is not an elided buffer");
  Arena& a = arena();
  a.map.assign_ranges(ranges, ps, a.position(elided.data()));
}

namespace detail {
std::uintptr_t elided_begin = 0;
std::uintptr_t elided_end = 0;

void copy_elided(std::span<std::byte> to, std::span<const std::byte> from) {
  if (to.size() != from.size())
    throw std::logic_error("payload::copy: " + std::to_string(from.size()) + " bytes into " +
                           std::to_string(to.size()));
  if (from.empty()) return;
  const bool to_elided = is_elided(std::span<const std::byte>(to));
  const bool from_elided = is_elided(from);  // one of the two is (payload::copy handles real to real)
  Arena& a = arena();
  if (!from_elided) {  // literals: a header, never data
    if (from.size() > kMaxLiteralBytes)
      throw std::logic_error("payload::copy: " + std::to_string(from.size()) +
                             " real bytes copied into an elided buffer (literals are at most " +
                             std::to_string(kMaxLiteralBytes) + ")");
    const auto at = static_cast<std::int64_t>(a.literals.size());
    a.literals.insert(a.literals.end(), from.begin(), from.end());
    const Piece p{static_cast<std::int64_t>(from.size()), kLiteral - at};
    assign(to, std::span(&p, 1));
    return;
  }
  thread_local std::vector<Piece> ps;  // kept: a copy per entry would otherwise allocate per entry
  ps.clear();
  append_pieces(ps, from);
  if (!to_elided) {
    std::size_t pos = 0;
    for (const Piece& p : ps) {
      if (p.source > kLiteral)
        throw std::logic_error("payload::copy: an elided buffer copied into real bytes");
      std::memcpy(to.data() + pos, a.literals.data() + (kLiteral - p.source),
                  static_cast<std::size_t>(p.length));
      pos += static_cast<std::size_t>(p.length);
    }
    return;
  }
  assign(to, ps);
}
}  // namespace detail

void Builder::append(std::span<const std::byte> from) {
  if (from.empty()) return;
  const bool e = is_elided(from);
  if (size_ == 0) elided_ = e;
  if (e != elided_) throw std::logic_error("payload::Builder: elided and real bytes appended to one buffer");
  if (e)
    append_pieces(pieces_, from);
  else
    bytes_.insert(bytes_.end(), from.begin(), from.end());
  size_ += from.size();
}

Buffer Builder::finish() {
  if (!elided_ || size_ == 0) {
    Buffer out = size_ == 0 ? Buffer(0) : Buffer(std::move(bytes_));
    *this = Builder();
    return out;
  }
  Buffer out(size_, Mode::Elided);
  assign(out, pieces_);
  *this = Builder();
  return out;
}

void require_bytes(std::span<const std::byte> s, const char* call) {
  if (is_elided(s))
    throw std::logic_error(std::string(call) +
                           " does not carry elided payloads (run.payload = elided): it needs real bytes");
}

std::size_t live_entries() {
  return arena().map.entries();
}

std::size_t peak_entries() {
  return arena().map.peak_entries();
}

void reset_peak_entries() {
  arena().map.reset_peak();
}

}  // namespace ciosim::payload
