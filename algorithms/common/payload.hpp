// Elided payloads (docs/architecture.md, "Payload buffers"; docs/results.md, "Elided payloads"): buffers
// that have a size but no bytes, as SMPI's shared malloc gives, so that a run at scale costs the
// simulator's memory and time for its messages' sizes, not for their bytes.
//
// Every byte a technique moves is a byte of the workload's vector x: byte k of entry i holds byte k of
// fill_entry(i) (algorithms/technique.hpp). Call i * element_size + k that byte's *source*. An elided buffer
// keeps, instead of bytes, which source bytes it holds, as pieces (length, first source; or equal runs of
// sources at a constant stride; or such strided pieces repeated at a constant shift of their sources).
// Copies move pieces, not bytes; messages carry pieces; the file keeps pieces. So an elided run checks its
// file as strictly as a run with bytes does — every byte of the file must hold the source byte the
// technique's layout puts there — while a contiguous megabyte costs one piece, and so does a rank's
// block-cyclic data at any block size, and so do many ranks' block-cyclic data one after the other.
//
// An elided buffer's address lies in a reserved range of address space that is never readable or
// writable: code that reads or writes its bytes directly (a memcpy the conversion missed) faults at once
// instead of computing with garbage. Code copies payload through payload::copy, which handles both kinds.
//
// The mode is one per process (a simulation runs in a process of its own, docs/architecture.md): a
// ModeScope sets it, and Buffer(n) allocates bytes or an elided range as it says.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <utility>
#include <vector>

namespace ciosim::payload {

enum class Mode { Bytes, Elided };

/// Sources that are not bytes of x.
constexpr std::int64_t kZero = -1;       ///< zero bytes (a hole of the file, read back)
constexpr std::int64_t kUndefined = -2;  ///< never written
/// Sources at or below kLiteral are small real bytes kept with the elided buffers (a message's header
/// written into an elided buffer): source kLiteral - k is byte k of the literal store.
constexpr std::int64_t kLiteral = -3;
/// The most real bytes one payload::copy puts into an elided buffer as literals (headers, not data).
constexpr std::size_t kMaxLiteralBytes = 256;

/// `length` bytes holding sources [source, source + length), or kZero / kUndefined bytes; or, when
/// `block` is not 0, a strided piece: length / block runs (at least two) of `block` bytes each, run k
/// holding sources [source + k * stride, source + k * stride + block) (bytes of x only). A rank's
/// block-cyclic data is one strided piece however many blocks it has. A strided piece may itself repeat:
/// when `group` is not 0 it is length / group groups (at least two) of `group` bytes, group g holding the
/// strided piece {group, source + g * gstride, block, stride} (at least two runs each), so a region that
/// holds many ranks' strided data one after the other (IEC's buffers at Bx = 1) is one piece too.
struct Piece {
  std::int64_t length = 0;
  std::int64_t source = kUndefined;
  std::int64_t block = 0;    ///< 0: one run; else the bytes of each run (length is a multiple of it)
  std::int64_t stride = 0;   ///< strided: the distance between the sources of consecutive runs (!= block)
  std::int64_t group = 0;    ///< 0: one strided piece; else the bytes of each group (a multiple of block)
  std::int64_t gstride = 0;  ///< grouped: the distance between the sources of consecutive groups
  bool operator==(const Piece&) const = default;
  bool strided() const { return block != 0; }
  bool grouped() const { return group != 0; }
  /// The runs of consecutive sources the piece holds.
  std::int64_t runs() const { return block != 0 ? length / block : 1; }
  /// Group g of a grouped piece, as a strided piece.
  Piece group_at(std::int64_t g) const { return Piece{group, source + g * gstride, block, stride}; }
};

/// Positions [pos, pos + length) of a piece map.
struct Range {
  std::int64_t pos = 0;
  std::int64_t length = 0;
};

/// A map from positions to pieces. Neighbouring pieces that continue each other merge (join below), so a
/// range holding consecutive sources, or equal runs at a constant stride, is one entry however it was built.
/// Positions not assigned are kUndefined.
class PieceMap {
 public:
  /// Overwrites [pos, pos + total length of `pieces`) with `pieces` in order (kUndefined pieces leave
  /// their range unassigned).
  void assign(std::int64_t pos, std::span<const Piece> pieces);
  /// One assign per non-empty range, in order: positions base + ranges[k].pos get the next
  /// ranges[k].length bytes of `pieces` (whose lengths sum to the ranges'; else std::logic_error before
  /// any change). Ranges at increasing positions close to each other (a list request's regions) cost a
  /// short walk from the previous one each instead of a descent of the tree.
  void assign_ranges(std::span<const Range> ranges, std::span<const Piece> pieces, std::int64_t base = 0);
  /// extract_into for each range in order (positions base + ranges[k].pos), walking from range to range
  /// as assign_ranges does.
  void extract_ranges(std::vector<Piece>& out, std::span<const Range> ranges, std::int64_t base = 0) const;
  /// extract_into for the `count` ranges [pos + k * step, pos + k * step + len) in order (a segment of a
  /// strided datatype): at once when they lie in one grouped entry, each in its own group at the same
  /// place (IEC's send datatypes over its buffers), else range by range, walking from one to the next as
  /// extract_ranges does.
  void extract_progression(std::vector<Piece>& out, std::int64_t pos, std::int64_t len, std::int64_t step,
                           std::int64_t count) const;
  /// What [pos, pos + len) holds, as pieces (merged; unassigned ranges as kUndefined).
  std::vector<Piece> extract(std::int64_t pos, std::int64_t len) const;
  /// extract, appended to `out` (merging with its last piece).
  void extract_into(std::vector<Piece>& out, std::int64_t pos, std::int64_t len) const;
  /// Forgets [pos, pos + len).
  void erase(std::int64_t pos, std::int64_t len);
  /// One past the last assigned position (0 when empty).
  std::int64_t end() const;
  std::size_t entries() const { return map_.size(); }
  /// The most entries held at once since the map was made or reset_peak was called.
  std::size_t peak_entries() const { return peak_; }
  void reset_peak() { peak_ = map_.size(); }

 private:
  using Map = std::map<std::int64_t, Piece>;
  /// Merges the entry at `it` into its predecessor when they continue each other; returns the entry
  /// after `it` when it merged, else `it`.
  Map::iterator merge_left(Map::iterator it);
  /// extract_into, given `at` = map_.lower_bound(pos); returns map_.lower_bound(pos + len).
  Map::const_iterator extract_at(Map::const_iterator at, std::vector<Piece>& out, std::int64_t pos,
                                 std::int64_t len) const;
  /// assign, given `at` = map_.lower_bound(pos); returns map_.lower_bound(pos + length of pieces) after it.
  Map::iterator assign_at(Map::iterator at, std::int64_t pos, std::span<const Piece> pieces);
  /// Puts `p`'s bytes [off, off + len) at `at` (an unassigned range just before `hint`), as the entries
  /// append_slice cuts them into; returns the first (`hint` when there is none).
  Map::iterator place_slice(Map::iterator hint, std::int64_t at, const Piece& p, std::int64_t off,
                            std::int64_t len);
  /// Forgets [pos, pos + len), given `it` = map_.lower_bound(pos); returns the first entry at or after
  /// pos + len.
  Map::iterator cut(Map::iterator it, std::int64_t pos, std::int64_t len);
  void note_size() { peak_ = std::max(peak_, map_.size()); }
  Map map_;
  std::size_t peak_ = 0;
};

/// The bytes `pieces` cover (their lengths summed).
std::int64_t length_of(std::span<const Piece> pieces);
/// Merges `right` into `left` when `right`, placed right after `left`, continues it: consecutive sources,
/// one more run of a strided piece, two equal runs of x at a constant stride (which become a strided
/// piece), one more group of a grouped piece, or two strided pieces of one shape (which become a grouped
/// piece). Returns false, `left` unchanged, when it does not.
bool join(Piece& left, const Piece& right);
/// Appends `p` to `out`, merging it into the last piece when it continues it (join). Zero-length pieces
/// vanish.
void append(std::vector<Piece>& out, Piece p);
/// Appends `r` to `out`, merging it into the last range when it continues it: the pieces assigned to or
/// extracted from the ranges are the same, in fewer steps. Zero-length ranges vanish.
void append(std::vector<Range>& out, Range r);
/// Appends bytes [off, off + len) of `p` to `out`: a strided piece's slice is up to three pieces (the end
/// of a run, whole runs, the start of a run), a grouped piece's up to seven (the end of a group as such a
/// slice, whole groups, the start of a group).
void append_slice(std::vector<Piece>& out, const Piece& p, std::int64_t off, std::int64_t len);
/// Walks a sequence of pieces front to back (zero-length pieces skipped).
class PieceCursor {
 public:
  explicit PieceCursor(std::span<const Piece> ps) : ps_(ps) { skip_empty(); }
  bool done() const { return i_ == ps_.size(); }
  const Piece& piece() const { return ps_[i_]; }
  /// Bytes of piece() already passed.
  std::int64_t offset() const { return off_; }
  /// Bytes left in the current run of consecutive sources.
  std::int64_t run_left() const {
    const Piece& p = piece();
    return p.strided() ? p.block - off_ % p.block : p.length - off_;
  }
  /// Bytes left in the current strided piece (the piece, or the group of a grouped piece).
  std::int64_t unit_left() const {
    const Piece& p = piece();
    return p.grouped() ? p.group - off_ % p.group : p.length - off_;
  }
  /// The source of the current byte.
  std::int64_t source() const;
  /// Passes n bytes, at most the rest of piece().
  void advance(std::int64_t n);
  /// Appends the next n bytes' pieces to `out` (as many as are left, at most) and passes them.
  void take(std::int64_t n, std::vector<Piece>& out);

 private:
  void skip_empty() {
    while (i_ < ps_.size() && ps_[i_].length <= 0) ++i_;
  }
  std::span<const Piece> ps_;
  std::size_t i_ = 0;
  std::int64_t off_ = 0;
};
/// True when `a` and `b` hold the same source in every byte, however their pieces are cut or merged
/// (where both are strided pieces of one shape, or grouped pieces of one shape at the same place in a
/// group, their common stretch is compared at once, not run by run).
bool same_contents(std::span<const Piece> a, std::span<const Piece> b);

/// The mode Buffer(n) allocates in (Bytes unless a ModeScope says otherwise).
Mode mode();
/// Sets the mode for its lifetime.
class ModeScope {
 public:
  explicit ModeScope(Mode m);
  ~ModeScope();
  ModeScope(const ModeScope&) = delete;
  ModeScope& operator=(const ModeScope&) = delete;

 private:
  Mode previous_;
};

namespace detail {
/// The addresses handed out to elided buffers so far, [begin, end) (both 0 until the first one), read by
/// the inline checks below so that copies between real bytes cost what a memmove costs.
extern std::uintptr_t elided_begin;
extern std::uintptr_t elided_end;
/// payload::copy when a side is elided (or the sizes differ).
void copy_elided(std::span<std::byte> to, std::span<const std::byte> from);
}  // namespace detail

/// True when `p` lies in the elided range (a zero-length span may point anywhere: check sizes first).
inline bool is_elided(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a >= detail::elided_begin && a < detail::elided_end;
}
inline bool is_elided(std::span<const std::byte> s) {
  return !s.empty() && is_elided(s.data());
}

/// A payload buffer: bytes (zero-initialized, as std::vector) or an elided range whose bytes are
/// kUndefined until written. Move-only.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::size_t n) : Buffer(n, mode()) {}
  Buffer(std::size_t n, Mode m);
  /// A buffer of bytes that takes over `bytes`.
  explicit Buffer(std::vector<std::byte>&& bytes) : bytes_(std::move(bytes)), size_(bytes_.size()) {}
  /// Grows to `n` bytes (never shrinks), keeping the contents; new bytes are zeros (bytes) or kUndefined.
  void grow(std::size_t n);
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool elided() const { return elided_ != nullptr; }
  std::byte* data() { return elided_ ? elided_ : bytes_.data(); }
  const std::byte* data() const { return elided_ ? elided_ : bytes_.data(); }
  std::span<std::byte> span() { return {data(), size_}; }
  std::span<const std::byte> span() const { return {data(), size_}; }
  operator std::span<std::byte>() { return span(); }
  operator std::span<const std::byte>() const { return span(); }

 private:
  void release();
  std::vector<std::byte> bytes_;
  std::byte* elided_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;  ///< elided: the addresses reserved (grow doubles them, as a vector would)
};

/// A buffer built by appending (a message gathered piece by piece): in the mode of its first append, bytes
/// or pieces, then one Buffer of the total size.
class Builder {
 public:
  /// Appends a copy of `from` (bytes, or an elided span's pieces).
  void append(std::span<const std::byte> from);
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// The buffer (in the current mode when nothing was appended); the builder is empty afterwards.
  Buffer finish();

 private:
  std::vector<std::byte> bytes_;
  std::vector<Piece> pieces_;
  bool elided_ = false;
  std::size_t size_ = 0;
};

/// Copies `from` into `to` (equal sizes): memcpy for bytes, pieces for elided buffers. Between the two
/// kinds only literals pass: up to kMaxLiteralBytes real bytes into an elided buffer, and an elided range
/// that holds only literals back into real bytes (a header sent inside an elided message). Anything else
/// throws std::logic_error: an elided buffer has no data bytes to give, and data bytes have no source.
inline void copy(std::span<std::byte> to, std::span<const std::byte> from) {
  if (to.size() == from.size() && !is_elided(std::span<const std::byte>(to)) && !is_elided(from)) {
    if (!from.empty()) std::memmove(to.data(), from.data(), from.size());
    return;
  }
  detail::copy_elided(to, from);
}
/// What an elided span holds (for the backends: a message's or a file write's contents).
std::vector<Piece> pieces(std::span<const std::byte> elided);
/// pieces(elided), appended to `out` (merging with its last piece): a gather of several spans.
void append_pieces(std::vector<Piece>& out, std::span<const std::byte> elided);
/// append_pieces of the ranges of `elided` (offsets within it) in order: a gather of many regions of one
/// buffer, which walks the piece map from region to region instead of looking each one up.
void append_pieces(std::vector<Piece>& out, std::span<const std::byte> elided, std::span<const Range> ranges);
/// append_pieces of the `count` ranges [off + k * step, off + k * step + len) of `elided` in order
/// (PieceMap::extract_progression); the caller has checked that they lie within it.
void append_progression(std::vector<Piece>& out, std::span<const std::byte> elided, std::int64_t off,
                        std::int64_t len, std::int64_t step, std::int64_t count);
/// Sets what an elided span holds (a received message, a file read); the pieces' lengths sum to its size.
void assign(std::span<std::byte> elided, std::span<const Piece> pieces);
/// Sets what ranges of `elided` (offsets within it) hold: range k the next ranges[k].length bytes of
/// `pieces`, whose lengths sum to the ranges' (a scatter into many regions of one buffer).
void assign(std::span<std::byte> elided, std::span<const Range> ranges, std::span<const Piece> pieces);
/// Throws std::logic_error naming `call` when `s` is elided: for the calls that need real bytes.
void require_bytes(std::span<const std::byte> s, const char* call);
/// Entries of the elided range's piece map (a measure of what elided buffers cost the simulator).
std::size_t live_entries();
/// The most entries the elided range's piece map held at once since the last reset_peak_entries().
std::size_t peak_entries();
void reset_peak_entries();

}  // namespace ciosim::payload
