// check_partition: is a distribution's set of datatypes a partition of [0, Nx) (every entry of x held by
// exactly one rank, once)? Decided on intervals rather than entries, without expanding the replicas of an
// hvector datatype when they share a period. Fold x into rows of S entries (entry e is residue e mod S of row
// e div S): a tuple replicated `count` times with a stride of S is then one rectangle (two when it wraps
// around the end of a row), residues [a0, a1) of rows [q0, q1), and a plain interval at most three. A sweep
// over the rows keeps the rectangles that cover the current row ordered by residue; between two rows where
// a rectangle starts or ends every row is covered alike, so one test per such segment decides it. With no
// common stride S = Nx: one row, and the sweep is the sort of all intervals by offset.
#include <algorithm>
#include <bit>
#include <set>
#include <string>
#include <tuple>

#include "algorithms/common/distribution.hpp"
#include "algorithms/common/folding.hpp"

namespace ciosim {

namespace {

using folding::Rect;

std::string s(std::int64_t v) {
  return std::to_string(v);
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

/// How many replicas j in [0, count) of tuple {offset, length} (stride apart) contain entry e.
std::int64_t replicas_holding(std::int64_t offset, std::int64_t length, std::int64_t count,
                              std::int64_t stride, std::int64_t e) {
  if (length <= 0 || count <= 0) return 0;
  if (stride == 0) return e >= offset && e < offset + length ? count : 0;
  if (stride < 0) {  // the same replicas in the opposite order
    offset += (count - 1) * stride;
    stride = -stride;
  }
  // offset + j*stride <= e < offset + j*stride + length
  const std::int64_t hi = std::min(count - 1, floor_div(e - offset, stride));
  const std::int64_t lo = std::max<std::int64_t>(0, floor_div(e - offset - length, stride) + 1);
  return hi >= lo ? hi - lo + 1 : 0;
}

/// Ranks (up to two, in the order of a walk over ranks, replicas and tuples) that hold entry e, for naming
/// them in a message; closed form per tuple.
std::string holders(const Distribution& d, std::int64_t e) {
  std::vector<int> ranks;
  for (int r = 0; r < d.nprocs() && ranks.size() < 2; ++r) {
    const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
    std::int64_t n = 0;
    for (const Tuple& t : dt.tuples) n += replicas_holding(t.offset, t.length, dt.count, dt.stride, e);
    for (std::int64_t i = 0; i < n && ranks.size() < 2; ++i) ranks.push_back(r);
  }
  if (ranks.size() == 2 && ranks[0] == ranks[1]) return "rank " + std::to_string(ranks[0]) + " twice";
  std::string out = "ranks";
  for (std::size_t i = 0; i < ranks.size(); ++i) out += (i ? " and " : " ") + std::to_string(ranks[i]);
  return out;
}

std::string missing(std::int64_t e, std::int64_t nx) {
  return "entry " + s(e) + " of x is held by no rank (Nx=" + s(nx) + ")";
}

std::string duplicated(const Distribution& d, std::int64_t e) {
  return "entry " + s(e) + " of x is held by " + holders(d, e) + " (each entry must be held exactly once)";
}

/// Calls fn(offset, length, rank) for every tuple of every replica of every rank with length > 0.
template <class Fn>
void for_each_interval(const Distribution& d, Fn&& fn) {
  for (int r = 0; r < d.nprocs(); ++r) {
    const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
    for (std::int64_t j = 0; j < dt.count; ++j)
      for (const Tuple& t : dt.tuples)
        if (t.length > 0) fn(t.offset + j * dt.stride, t.length, r);
  }
}

/// The first entry of row q (of S entries, `valid` of them in x) covered other than once by the
/// rectangles `rs` (those covering row q, ordered by residue), as a message; "" when each is covered once.
template <class Range>
std::string check_row(const Distribution& d, const Range& rs, std::int64_t q, std::int64_t S,
                      std::int64_t valid) {
  std::int64_t next = 0;  // first residue not yet covered
  for (const Rect& r : rs) {
    if (r.a0 > next) return missing(q * S + next, d.nx);
    if (r.a0 < next) return duplicated(d, q * S + r.a0);
    next = r.a1;
  }
  if (next < valid) return missing(q * S + next, d.nx);
  return "";
}

bool by_residue(const Rect& x, const Rect& y) {
  return std::tie(x.a0, x.a1) < std::tie(y.a0, y.a1);
}

/// The rows swept in order of their first entry; the first row found covered other than once names x's
/// first entry held by no rank or by two.
std::string check_by_rows(const Distribution& d, std::int64_t S) {
  const std::int64_t full_rows = d.nx / S, tail = d.nx % S;
  const std::int64_t rows = full_rows + (tail > 0 ? 1 : 0);
  std::vector<Rect> rects;
  for (const Datatype& dt : d.per_rank) folding::fold(dt, S, d.nx, &rects);
  auto one_segment = [&] {
    return tail == 0 &&
           std::all_of(rects.begin(), rects.end(), [&](const Rect& r) { return r.q0 == 0 && r.q1 == rows; });
  };
  // Rectangles that touch along or across rows merge without changing how often any entry is covered
  // (block3d: a plane's rows held by a row of ranks become one), which spares the sweep most of its work.
  if (!one_segment()) folding::merge(rects);
  if (one_segment()) {  // every row alike (block-cyclic, stem2, explicit lists with S = Nx): one sort
    std::sort(rects.begin(), rects.end(), by_residue);
    return check_row(d, rects, 0, S, S);
  }
  // Rows where rectangles start and end; between two of them the covering set is the same.
  std::vector<std::size_t> starts(rects.size()), ends(rects.size());
  for (std::size_t i = 0; i < rects.size(); ++i) starts[i] = ends[i] = static_cast<std::size_t>(i);
  std::sort(starts.begin(), starts.end(),
            [&](std::size_t x, std::size_t y) { return rects[x].q0 < rects[y].q0; });
  std::sort(ends.begin(), ends.end(),
            [&](std::size_t x, std::size_t y) { return rects[x].q1 < rects[y].q1; });
  // The covering rectangles ordered by residue, between two sentinels; a row is covered exactly once iff
  // each rectangle ends where the next begins ("good" links), from residue 0 to S.
  struct Key {
    std::int64_t a0, a1;
    std::size_t id;
    bool operator<(const Key& o) const { return std::tie(a0, a1, id) < std::tie(o.a0, o.a1, o.id); }
  };
  constexpr std::size_t kSentinel = SIZE_MAX;
  std::set<Key> active{{-1, 0, kSentinel}, {S, S + 1, kSentinel}};
  std::int64_t good = 0;
  auto link = [](const Key& x, const Key& y) -> std::int64_t { return x.a1 == y.a0 ? 1 : 0; };
  auto insert = [&](const Key& k) {
    const auto it = active.insert(k).first;
    const auto prev = std::prev(it), next = std::next(it);
    good += link(*prev, k) + link(k, *next) - link(*prev, *next);
  };
  auto erase = [&](const Key& k) {
    const auto it = active.find(k);
    const auto prev = std::prev(it), next = std::next(it);
    good -= link(*prev, k) + link(k, *next) - link(*prev, *next);
    active.erase(it);
  };
  auto key = [&](std::size_t i) { return Key{rects[i].a0, rects[i].a1, i}; };
  std::size_t si = 0, ei = 0;
  for (std::int64_t q = 0; q < rows;) {
    for (; ei < ends.size() && rects[ends[ei]].q1 <= q; ++ei) erase(key(ends[ei]));
    for (; si < starts.size() && rects[starts[si]].q0 <= q; ++si) insert(key(starts[si]));
    const bool whole = q < full_rows;
    if (!whole || good + 1 != static_cast<std::int64_t>(active.size())) {
      std::vector<Rect> row;
      for (const Key& k : active)
        if (k.id != kSentinel) row.push_back(rects[k.id]);
      if (std::string why = check_row(d, row, q, S, whole ? S : tail); !why.empty()) return why;
    }
    std::int64_t next = rows;
    if (whole) next = std::min(next, full_rows);
    if (si < starts.size()) next = std::min(next, rects[starts[si]].q0);
    if (ei < ends.size()) next = std::min(next, rects[ends[ei]].q1);
    q = next;
  }
  return "";
}

std::string check_by_bitmap(const Distribution& d) {
  std::vector<std::uint64_t> bits(static_cast<std::size_t>(d.nx / 64 + 1), 0);
  std::int64_t first_dup = d.nx;
  for_each_interval(d, [&](std::int64_t off, std::int64_t len, int) {
    for (std::int64_t e = off; e < off + len; ++e) {
      std::uint64_t& w = bits[static_cast<std::size_t>(e >> 6)];
      const std::uint64_t m = std::uint64_t{1} << (e & 63);
      if (w & m) first_dup = std::min(first_dup, e);
      w |= m;
    }
  });
  std::int64_t first_missing = d.nx;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    if (~bits[i] != 0) {
      first_missing =
          std::min<std::int64_t>(d.nx, static_cast<std::int64_t>(i) * 64 + std::countr_one(bits[i]));
      break;
    }
  }
  if (first_missing < first_dup) return missing(first_missing, d.nx);
  if (first_dup < d.nx) return duplicated(d, first_dup);
  return "";
}

}  // namespace

namespace {

/// check_partition's checks of each rank's datatype (replica count, tuple lengths, range); adds the
/// entries the datatypes select to `entries`.
std::string check_datatypes(const Distribution& d, double& entries) {
  if (d.nx <= 0) return "Nx must be positive (Nx=" + s(d.nx) + ")";
  if (d.nprocs() == 0) return "a distribution needs at least one rank";
  for (int r = 0; r < d.nprocs(); ++r) {
    const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
    const std::string who = "rank " + std::to_string(r);
    if (dt.count < 1) return who + " has replica count " + s(dt.count) + " (must be >= 1)";
    for (const Tuple& t : dt.tuples) {
      if (t.length < 0)
        return who + " has a tuple of negative length {" + s(t.offset) + "," + s(t.length) + "}";
      if (t.length == 0) continue;
      // Replicas are affine in j, so the extremes are at j = 0 and j = count - 1.
      const std::int64_t lo = std::min(t.offset, t.offset + (dt.count - 1) * dt.stride);
      const std::int64_t hi = std::max(t.offset, t.offset + (dt.count - 1) * dt.stride) + t.length;
      if (lo < 0 || hi > d.nx)
        return who + " holds entries outside [0, Nx) (tuple {" + s(t.offset) + "," + s(t.length) +
               "}, Nx=" + s(d.nx) + ")";
      entries += static_cast<double>(t.length) * static_cast<double>(dt.count);
    }
  }
  return "";
}

}  // namespace

std::string check_partition(const Distribution& d) {
  double entries = 0;
  if (std::string why = check_datatypes(d, entries); !why.empty()) return why;
  double rects = 0;
  const std::int64_t period = folding::best_period(d, rects);
  // About 24 bytes and a sort step per rectangle, versus one bit per entry of x and a walk over every held
  // entry.
  if (rects * 24 <= static_cast<double>(d.nx) / 8 + entries / 4) return check_by_rows(d, period);
  return check_by_bitmap(d);
}

namespace folding {

std::string check_partition_by_rows(const Distribution& d, std::int64_t S) {
  double entries = 0;
  if (std::string why = check_datatypes(d, entries); !why.empty()) return why;
  if (S <= 0) S = d.nx;
  return check_by_rows(d, S);
}

std::string check_partition_by_bitmap(const Distribution& d) {
  double entries = 0;
  if (std::string why = check_datatypes(d, entries); !why.empty()) return why;
  return check_by_bitmap(d);
}

}  // namespace folding

}  // namespace ciosim
