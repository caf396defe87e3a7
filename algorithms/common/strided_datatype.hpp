// Datatypes held as strided segments: a nested descriptor (an MPI struct of hvectors) for the offset-length
// datatypes of the IEC inspector (Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based
// on inspector-executor paradigm", J. Supercomputing 47(1):53-75, 2009, §3.3.1: MPI_Type_indexed replicated
// by MPI_Type_hvector).
//
// The paper's datatype is one level of nesting: tuples, replicated. At Nx = Np^2 the inspector's packing and
// send datatypes have O(Np) tuples per rank, but they follow a few arithmetic progressions, about one per
// region of the rank's memory. Rank 1 of 16 packs {0,1} {16,1} {24,1} {28,1} {32,1} {34,1} {36,1} {38,1}
// {40,8}: greedily from the left, 0 and 16, then 24, 28 and 32 step by 4, and 34, 36 and 38 by 2. A
// StridedDatatype holds each maximal progression of equal-length tuples as one segment, so such a datatype
// costs O(regions) memory. It describes exactly the same tuples in the same order as the Datatype it was
// made from (datatype() gives that Datatype back), so the tuple counts the paper's algorithm is charged for
// and the words it sends are unchanged.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "algorithms/common/datatype.hpp"

namespace ciosim {

class StridedDatatype {
 public:
  /// `tuples` tuples of `length` entries, the first at `offset`, each `step` entries after the previous.
  struct Segment {
    std::int64_t offset = 0;
    std::int64_t length = 0;
    std::int64_t step = 0;
    std::int64_t tuples = 1;
    std::int64_t first = 0;  ///< entries of the replica before the segment
  };
  /// No entries.
  StridedDatatype();
  /// The tuples of `dt`, each maximal run of equal-length tuples with a constant offset step as one
  /// segment (greedy, left to right: a function of the tuple list, so equal datatypes give equal segments).
  /// Throws std::invalid_argument on a negative length or replica count, as IndexedDatatype does.
  explicit StridedDatatype(const Datatype& dt);
  /// The Datatype it was made from.
  Datatype datatype() const;
  std::int64_t count() const { return d_->count; }
  std::int64_t stride() const { return d_->stride; }
  /// Tuples in one replica (the paper's datatype's tuple count).
  std::int64_t tuples() const { return d_->tuples; }
  /// Tuples in the whole datatype, every replica counted (what a walk over it visits).
  std::int64_t all_tuples() const { return d_->count * d_->tuples; }
  /// Entries in one replica.
  std::int64_t replica_entries() const { return d_->replica; }
  /// Entries in the whole datatype.
  std::int64_t size() const { return d_->replica * d_->count; }
  std::span<const Segment> segments() const { return d_->segs; }
  /// The index of the segment that holds entry `within` of a replica (within in [0, replica_entries())).
  std::size_t segment_at(std::int64_t within) const;
  /// phy2log(datatype(), k) in O(log segments); throws std::out_of_range when k is not in [0, size()).
  std::int64_t map(std::int64_t k) const;
  /// Calls fn(address, length) for the runs of consecutive addresses that entries [first, first + n) select,
  /// in datatype order (one call per tuple piece), as IndexedDatatype::for_runs does. Throws
  /// std::out_of_range when the range exceeds size().
  template <class Fn>
  void for_runs(std::int64_t first, std::int64_t n, Fn&& fn) const;
  /// Calls fn(offset, length) for every tuple of one replica, in order.
  template <class Fn>
  void for_tuples(Fn&& fn) const {
    for (const Segment& s : d_->segs)
      for (std::int64_t i = 0; i < s.tuples; ++i) fn(s.offset + i * s.step, s.length);
  }
  /// The same tuples, count and stride.
  bool operator==(const StridedDatatype& o) const;
  bool operator==(const Datatype& o) const { return datatype() == o; }

  class Builder;

 private:
  [[noreturn]] void throw_range_error(std::int64_t first, std::int64_t n) const;
  struct Data {
    std::vector<Segment> segs;
    std::int64_t count = 1;
    std::int64_t stride = 0;
    std::int64_t tuples = 0;
    std::int64_t replica = 0;
  };
  /// Immutable and shared: a copy (the plan's phase and the bundle that sends it) costs a pointer.
  std::shared_ptr<const Data> d_;
};

/// Builds a StridedDatatype from its tuples given as arithmetic progressions, in O(1) a progression: the
/// same segments as the constructor from the Datatype of those tuples, without listing them. For datatypes
/// known in closed form (iec-parametric's plans: a few progressions of blocks where the tuple list has
/// O(Np) tuples).
class StridedDatatype::Builder {
 public:
  /// Appends one tuple as it is (each one a tuple of the datatype, as in the Datatype constructor). Throws
  /// std::invalid_argument on a negative length or when the entry count would overflow int64.
  void append(std::int64_t offset, std::int64_t length);
  /// Appends n tuples of `length` entries, the first at `offset`, each `step` entries after the previous;
  /// also throws when an offset would overflow int64.
  void append(std::int64_t offset, std::int64_t length, std::int64_t step, std::int64_t n);
  /// Adds the same progression as runs: a tuple that starts where the previous one ends extends it, as
  /// compute_datatype joins consecutive addresses; tuples of no entries are left out.
  void join(std::int64_t offset, std::int64_t length, std::int64_t step = 0, std::int64_t n = 1);
  /// The datatype of what was added, replicated `count` times, `stride` entries apart; checked as the
  /// Datatype constructor checks (std::invalid_argument when an end or the entry count overflows). The
  /// builder is empty afterwards.
  StridedDatatype finish(std::int64_t count = 1, std::int64_t stride = 0);

 private:
  void add_entries(std::int64_t length, std::int64_t n);
  std::shared_ptr<Data> d_ = std::make_shared<Data>();
  Tuple open_{};  ///< join's last run, which the next one may still extend
  bool has_open_ = false;
};

/// MPI_Pack and MPI_Unpack by a StridedDatatype: the same bytes, in the same order, as pack and unpack by
/// its datatype().
void pack(std::span<const std::byte> src, const StridedDatatype& dt, std::int64_t element_size,
          std::span<std::byte> out);
void unpack(std::span<const std::byte> in, const StridedDatatype& dt, std::int64_t element_size,
            std::span<std::byte> dst);

template <class Fn>
void StridedDatatype::for_runs(std::int64_t first, std::int64_t n, Fn&& fn) const {
  if (n <= 0) return;
  if (first < 0 || first + n > size()) throw_range_error(first, n);
  const std::int64_t rs = d_->replica;
  std::int64_t replica = first / rs;
  std::int64_t within = first % rs;
  std::size_t s = segment_at(within);
  std::int64_t in_seg = within - d_->segs[s].first;
  while (n > 0) {
    const Segment& g = d_->segs[s];
    if (g.length > 0) {
      std::int64_t i = in_seg / g.length;
      std::int64_t skip = in_seg % g.length;
      for (; i < g.tuples && n > 0; ++i, skip = 0) {
        const std::int64_t take = std::min(n, g.length - skip);
        fn(g.offset + i * g.step + skip + replica * d_->stride, take);
        n -= take;
      }
    }
    in_seg = 0;
    if (++s == d_->segs.size()) {
      s = 0;
      ++replica;
    }
  }
}

}  // namespace ciosim
