// The pieces of several ascending lists taken in file order, as ROMIO's heap merge of a write round's
// senders (ADIOI_Heap_merge) takes them, without a heap: a fine distribution interleaves the senders the
// same way over and over (block-cyclic: rank after rank), so the list that followed a list last time is
// tried first, and only when its head is not the next piece are all heads scanned. The walk is then one
// step a piece instead of a heap's log2(senders) levels; the heap's work is what a rank is charged either
// way (two_phase_write.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "algorithms/common/process.hpp"

namespace ciosim::two_phase::detail {

template <class OffsetOf>
class FileOrder {
 public:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  /// `count[s]` pieces in list s, piece k at file offset offset_of(s, k), ascending within each list.
  FileOrder(std::vector<std::int64_t> count, OffsetOf offset_of)
      : count_(std::move(count)),
        next_(count_.size(), 0),
        after_(count_.size(), kNone),
        offset_of_(std::move(offset_of)) {}

  /// The list whose head to take next (kNone when every list is done): the list that followed the last
  /// one taken the previous time, if its head lies at or before `reach`, else the list with the lowest
  /// head. Callers pass the furthest end reached so far: a head before it then overlaps (or, in the hole
  /// test, continues) what was taken, so it needs no comparison with the other heads, and when the lists'
  /// pieces do not overlap the order is exactly file order.
  std::size_t pick(Offset reach) const {
    if (last_ != kNone) {
      const std::size_t c = after_[last_];
      if (c != kNone && next_[c] < count_[c] && offset_of_(c, next_[c]) <= reach) return c;
    }
    std::size_t best = kNone;
    Offset lowest = 0;
    for (std::size_t s = 0; s < count_.size(); ++s) {
      if (next_[s] >= count_[s]) continue;
      const Offset o = offset_of_(s, next_[s]);
      if (best == kNone || o < lowest) {
        best = s;
        lowest = o;
      }
    }
    return best;
  }
  /// Takes list s's head; returns its index in list s.
  std::int64_t take(std::size_t s) {
    if (last_ != kNone) after_[last_] = s;
    last_ = s;
    return next_[s]++;
  }

 private:
  std::vector<std::int64_t> count_;
  std::vector<std::int64_t> next_;  ///< each list's head
  std::vector<std::size_t> after_;  ///< the list taken right after each list, the last time
  std::size_t last_ = kNone;
  OffsetOf offset_of_;
};

}  // namespace ciosim::two_phase::detail
