// View-based collective I/O: J. García Blas, F. Isaila, D. E. Singh, J. Carretero, "View-based collective
// I/O for MPI-IO", 8th IEEE International Symposium on Cluster Computing and the Grid (CCGrid), 2008,
// §IV-V. Written from the paper's text; docs/view-based.md walks through it and lists every decision the
// paper leaves open.
//
// At set_view every rank ships its view (displacement, element size, flattened filetype) once to every
// aggregator, which keeps all of them. The file is cut into blocks of one collective buffer, owned
// round-robin by the aggregators. A call (a write or read of the whole view or of part of it) sends each
// aggregator the extremities of its view interval (a read's request); a write then sends the rank's pieces
// of that aggregator's blocks coalesced into network buffers, which the aggregator scatters as they arrive,
// through the stored view, into its cached collective buffers (a write miss on a block the call writes in
// part reads the block first). Dirty buffers reach the file on LRU eviction, at sync and at close. A read
// is answered from the cache on a hit, from the file on a miss, coalesced the same way.
//
// This header holds the pure pieces (view shipping format, view-to-file map, block ownership, the LRU pool)
// for unit tests, and the technique's entry points.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/payload.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/common/session.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::view_based {

// ---- views

/// What set_view ships to the aggregators: MPI_File_set_view's displacement and etype, and the filetype
/// flattened to offset-length tuples of entries (indexed + hvector replication). The tuples are in
/// increasing file order (an MPI filetype is monotone): a rank storing its entries out of file order
/// keeps that permutation to itself, as MPI's memory datatype does.
struct View {
  Offset displacement = 0;
  std::int64_t element_size = 1;
  Datatype filetype;
  bool operator==(const View&) const = default;
};

/// The rank's view for entries `dt` (storage order): `dt` itself when its entries are in increasing file
/// order, else its entries sorted by file position (in_file_order reports which).
View make_view(const Datatype& dt, std::int64_t element_size, Offset displacement, bool& in_file_order);
/// The shipped form: 5 + 2 * tuples 8-byte words (displacement, element size, count, stride, tuples,
/// then offset and length of each tuple).
std::vector<std::int64_t> serialize(const View& v);
/// The inverse of serialize; throws std::invalid_argument on a malformed message.
View deserialize(std::span<const std::int64_t> words);

/// Bytes in view space (the rank's entries back to back, in file order) against file bytes.
class ViewMap {
 public:
  ViewMap() = default;
  explicit ViewMap(View v);
  const View& view() const { return view_; }
  /// Bytes the view holds.
  Offset bytes() const { return idx_.size() * view_.element_size; }
  /// The file bytes [first, last + 1) spanned by the view (0, 0 when empty).
  Offset file_begin() const;
  Offset file_end() const;
  /// The file byte holding view byte v (v in [0, bytes())).
  Offset file_byte(Offset v) const;
  /// The view bytes whose file bytes lie in [lo, hi): one interval {start, length}, since the view is
  /// monotone.
  Extent interval(Offset lo, Offset hi) const;
  /// Calls fn(file_offset, view_offset, length) for the contiguous file runs of view bytes [v0, v0+len).
  template <class Fn>
  void for_runs(Offset v0, Offset len, Fn&& fn) const;
  /// Contiguous file runs of view bytes [v0, v0+len).
  std::int64_t run_count(Offset v0, Offset len) const;

 private:
  Offset first_view_byte_at_or_after(Offset file_byte) const;
  View view_;
  IndexedDatatype idx_;
};

// ---- the static mapping of blocks to aggregators

/// The aggregators: `wanted` (0 = all) ranks spread evenly, aggregator k = floor(k * P / A).
std::vector<int> aggregator_ranks(int nprocs, int wanted);
/// The block holding file byte `off` and the aggregator index owning block `block` (round-robin).
inline std::int64_t block_of(Offset off, Offset block_size) {
  return off / block_size;
}
inline int owner_index(std::int64_t block, int naggs) {
  return static_cast<int>(block % naggs);
}
/// The bytes of a file block, the collective buffer size: hints.vb_buffer_size, or cb_buffer_size when 0.
Offset block_size(const IoHints& h);
/// Buffers in an aggregator's pool: floor(vb_pool_size / block size), at least one.
int pool_buffers(const IoHints& h);

/// One rank's bytes in one block: the interval of its view space.
struct Piece {
  std::int64_t block = 0;
  int rank = 0;
  Offset view_start = 0;
  Offset length = 0;
  bool operator==(const Piece&) const = default;
};
/// The blocks a view touches, in increasing order, with its interval in each (empty blocks skipped).
std::vector<Piece> pieces_of(const ViewMap& m, int rank, Offset block_size);
/// The parts of `pieces` inside view interval [v0, v1) (a call on part of the view), in the same order.
std::vector<Piece> clip(std::span<const Piece> pieces, Offset v0, Offset v1);
/// One rank's pieces for one aggregator (block order) coalesced into network buffers of at most `nb` bytes
/// (§V-B: "if data from several communication tasks fit in same network buffer, they are coalesced and
/// sent through only one MPI call"): a piece joins the current buffer when it fits in what is left, else it
/// starts the next one; a piece longer than a buffer is cut into buffer-sized parts. Each inner vector is
/// one message, its pieces' bytes back to back. Sender and aggregator compute it alike.
std::vector<std::vector<Piece>> coalesce(std::span<const Piece> pieces, Offset nb);
/// Bytes of one message: the sum of its pieces' lengths.
Offset message_bytes(std::span<const Piece> message);

// ---- byte ranges and the LRU pool of collective buffers

/// A set of byte ranges, kept sorted and merged.
class ByteRanges {
 public:
  void add(Offset off, Offset len);
  /// Adds many ranges at once (one sort and merge: a block's runs from many ranks interleave).
  /// Returns the entries it went through (the sortedness check and the merge with the ranges held; a sort
  /// of out-of-order ranges as n log2 n), the work a CPU charge counts.
  std::int64_t add_all(std::span<const Extent> added);
  bool covers(Offset off, Offset len) const;
  const std::vector<Extent>& ranges() const { return r_; }
  bool empty() const { return r_.empty(); }
  void clear() { r_.clear(); }

 private:
  std::vector<Extent> r_;
};

/// A cached collective buffer: block `block`'s bytes, which of them hold valid data (written by a call,
/// or read from the file) and which are dirty (written and not yet on the file system).
struct Buffer {
  std::int64_t block = -1;
  payload::Buffer
      data;  ///< grows to the last byte used (a block's tail past the file's end stays unallocated)
  ByteRanges valid;
  ByteRanges dirty;
};

/// An aggregator's pool of at most `capacity` collective buffers with LRU replacement.
class BufferPool {
 public:
  explicit BufferPool(int capacity) : capacity_(capacity) {}
  /// The cached buffer of `block`, or nullptr; a hit makes it the most recently used.
  Buffer* find(std::int64_t block);
  /// The buffer of `block`, allocated on a miss; a full pool first evicts the least recently used buffer,
  /// handing it to `evict` (which writes its dirty bytes back).
  template <class Evict>
  Buffer& get(std::int64_t block, Evict&& evict);
  /// Every cached buffer, in increasing block order.
  std::vector<Buffer*> by_block();
  void clear() {
    lru_.clear();
    where_.clear();
  }
  std::size_t size() const { return lru_.size(); }
  int capacity() const { return capacity_; }

 private:
  int capacity_;
  std::list<Buffer> lru_;  ///< most recently used first
  std::unordered_map<std::int64_t, std::list<Buffer>::iterator> where_;
};

// ---- the technique

/// "" when view-based I/O can run `d` (a partition of x: no entry held twice, none missing).
std::string check(const Distribution& d);
/// The session of p's rank (algorithms/common/session.hpp).
std::unique_ptr<Session> make_session(Process& p, const TechniqueInput& in);
/// Today's driver: set_view(0), `iterations` writes, close.
void run_write(Process& p, const TechniqueInput& in, LocalData local);
/// Today's driver: set_view(0), `iterations` reads, close.
void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out);

// ---- templates

template <class Fn>
void ViewMap::for_runs(Offset v0, Offset len, Fn&& fn) const {
  if (len <= 0) return;
  const Offset es = view_.element_size;
  const Offset first = v0 / es;
  const Offset last = (v0 + len - 1) / es;  // inclusive
  Offset v = first * es;                    // view byte of the current run's first entry
  idx_.for_runs(first, last - first + 1, [&](std::int64_t entry, std::int64_t n) {
    Offset f = view_.displacement + entry * es;
    Offset run_v = v;
    Offset run_len = n * es;
    v += run_len;
    if (run_v < v0) {  // the first entry may start before v0
      f += v0 - run_v;
      run_len -= v0 - run_v;
      run_v = v0;
    }
    if (run_v + run_len > v0 + len) run_len = v0 + len - run_v;  // the last may end after v0 + len
    if (run_len > 0) fn(f, run_v, run_len);
  });
}

template <class Evict>
Buffer& BufferPool::get(std::int64_t block, Evict&& evict) {
  if (Buffer* b = find(block)) return *b;
  if (static_cast<int>(lru_.size()) >= capacity_) {
    Buffer& victim = lru_.back();
    evict(victim);
    where_.erase(victim.block);
    lru_.pop_back();
  }
  lru_.push_front(Buffer{});
  Buffer& b = lru_.front();
  b.block = block;
  where_[block] = lru_.begin();
  return b;
}

}  // namespace ciosim::view_based
