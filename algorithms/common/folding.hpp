// x folded into rows of S entries, so that a tuple replicated with a stride of S is one rectangle for all
// its replicas: the checks that run before a simulation (check_partition, IEC's butterfly condition) work
// on these rectangles instead of on every replica or every entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::folding {

/// Residues [a0, a1) of rows [q0, q1): the entries q*S + a with q0 <= q < q1 and a0 <= a < a1.
struct Rect {
  std::int64_t a0, a1, q0, q1;
};

/// Rectangles covering every entry that `dt` selects, with x (Nx entries) in rows of S entries, as often as
/// the entry is selected but at most twice (all a partition check needs; exact for a datatype whose
/// replicas do not overlap). A tuple replicated with a stride of +-S and no longer than S is one rectangle
/// for all its replicas (two when it wraps around the end of a row); any other replica is a plain interval:
/// the rest of its first row, whole rows, the start of its last row. Every entry must be in [0, Nx).
/// Appends to `out` unless it is null; returns how many rectangles (an upper bound when `out` is null).
double fold(const Datatype& dt, std::int64_t S, std::int64_t nx, std::vector<Rect>* out);

/// The row length that folds d's datatypes into the fewest rectangles: one of the strides of its replicated
/// datatypes when that at least halves them, else Nx (no folding: one rectangle per replica of every
/// tuple). `rects` receives the count.
std::int64_t best_period(const Distribution& d, double& rects);

/// Entries of r that are < x, with rows of S entries (0 <= x).
std::int64_t below(const Rect& r, std::int64_t S, std::int64_t x);

/// Sorts rs and merges rectangles that share their rows and touch along them, or share their residues and
/// touch across rows. Each merge joins two disjoint rectangles, so how often each entry is covered is
/// unchanged, overlaps included.
void merge(std::vector<Rect>& rs);

/// check_partition with one strategy, whatever its cost (for tests): the rectangles of x folded into rows
/// of S entries (S <= 0: Nx, one row) swept row segment by row segment, or a bitmap of x.
std::string check_partition_by_rows(const Distribution& d, std::int64_t S);
std::string check_partition_by_bitmap(const Distribution& d);

}  // namespace ciosim::folding
