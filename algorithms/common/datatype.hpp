// Offset-length datatypes as used by the IEC inspector (Singh, Isaila, Pichel, Carretero, "A collective
// I/O implementation based on inspector-executor paradigm", J. Supercomputing 2009, §3.3.1): an indexed
// list of {offset, length} tuples (MPI_Type_indexed) optionally replicated `count` times with a
// displacement of `stride` entries between replicas (MPI_Type_hvector). Units are array entries.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ciosim {

struct Tuple {
  std::int64_t offset = 0;
  std::int64_t length = 0;
  bool operator==(const Tuple&) const = default;
};

struct Datatype {
  std::vector<Tuple> tuples;  ///< one replica, in the order its entries are taken
  std::int64_t count = 1;     ///< replicas (hvector count)
  std::int64_t stride = 0;    ///< displacement between consecutive replicas, in entries
  bool operator==(const Datatype&) const = default;

  /// Entries in one replica.
  std::int64_t replica_size() const;
  /// Entries in the whole datatype.
  std::int64_t size() const { return replica_size() * count; }
  /// Tuples in the whole datatype, every replica counted (what a walk over it visits).
  std::int64_t all_tuples() const { return count * static_cast<std::int64_t>(tuples.size()); }
  /// Every tuple of every replica, in order.
  std::vector<Tuple> flatten() const;
};

/// Phy2Log (paper Fig. 9): the address that the k-th entry selected by `dt` refers to. Throws
/// std::out_of_range when k is not in [0, dt.size()).
std::int64_t phy2log(const Datatype& dt, std::int64_t k);

/// Compute_Datatype (paper Fig. 12): merges a sequence of addresses into tuples, starting a new tuple
/// whenever an address is not consecutive to the current tuple.
std::vector<Tuple> compute_datatype(const std::vector<std::int64_t>& addresses);

/// Compute_Datatype_Intervaled (paper §3.3.3, "Packing datatype generation"): like compute_datatype, but
/// detects when the sequence is a replication of its first interval (the interval ends where addresses
/// stop increasing) shifted by a constant displacement, and returns that interval with an hvector count
/// and stride. Falls back to count = 1 when the sequence is not such a replication.
Datatype compute_datatype_intervaled(const std::vector<std::int64_t>& addresses);

// ---- helpers (additions: O(log) Phy2Log, run iteration, MPI_Pack/MPI_Unpack equivalents)

/// Throws std::invalid_argument (one line) unless `dt` can be walked in int64 arithmetic: no negative
/// length or count, and its entry count and every address it selects (each tuple's end in every replica)
/// fit in int64. IndexedDatatype and StridedDatatype check it, so that a datatype parsed from a peer's
/// message cannot make a walk overflow.
void check_datatype_range(const Datatype& dt);

/// A datatype with the prefix sums of its tuple lengths, so that Phy2Log costs O(log tuples) (binary search
/// within one replica) instead of the O(tuples) scan of Fig. 9.
class IndexedDatatype {
 public:
  IndexedDatatype() = default;
  explicit IndexedDatatype(Datatype dt);
  const Datatype& datatype() const { return dt_; }
  /// Entries in the whole datatype.
  std::int64_t size() const { return size_; }
  /// Entries in one replica.
  std::int64_t replica_entries() const { return prefix_.empty() ? 0 : prefix_.back(); }
  /// phy2log(datatype(), k); throws std::out_of_range when k is not in [0, size()).
  std::int64_t map(std::int64_t k) const;
  /// Calls fn(address, length) for the runs of consecutive addresses that entries [first, first + n) select,
  /// in datatype order (one call per tuple piece). Throws std::out_of_range when the range exceeds size().
  template <class Fn>
  void for_runs(std::int64_t first, std::int64_t n, Fn&& fn) const;

 private:
  [[noreturn]] void throw_range_error(std::int64_t first, std::int64_t n) const;
  Datatype dt_;
  std::vector<std::int64_t> prefix_;  ///< prefix_[t]: entries of one replica before tuple t; back() = replica
  std::int64_t size_ = 0;
};

/// MPI_Pack: copies the entries `dt` selects from `src` (element_size bytes each), in datatype order, back to
/// back into `out` (dt.size() * element_size bytes). Throws std::out_of_range on a selection outside `src`.
void pack(std::span<const std::byte> src, const Datatype& dt, std::int64_t element_size,
          std::span<std::byte> out);
/// MPI_Unpack: the inverse of pack; scatters `in` to the entries of `dst` that `dt` selects.
void unpack(std::span<const std::byte> in, const Datatype& dt, std::int64_t element_size,
            std::span<std::byte> dst);

template <class Fn>
void IndexedDatatype::for_runs(std::int64_t first, std::int64_t n, Fn&& fn) const {
  if (n <= 0) return;
  if (first < 0 || first + n > size_) throw_range_error(first, n);
  const std::int64_t rs = prefix_.back();
  std::int64_t replica = first / rs;
  std::int64_t within = first % rs;
  auto t = static_cast<std::size_t>(std::upper_bound(prefix_.begin(), prefix_.end(), within) -
                                    prefix_.begin() - 1);
  while (n > 0) {
    const Tuple& tp = dt_.tuples[t];
    const std::int64_t skip = within - prefix_[t];
    const std::int64_t take = std::min(n, tp.length - skip);
    if (take > 0) {
      fn(tp.offset + skip + replica * dt_.stride, take);
      n -= take;
      within += take;
    }
    if (++t == dt_.tuples.size()) {
      t = 0;
      within = 0;
      ++replica;
    }
  }
}

}  // namespace ciosim
