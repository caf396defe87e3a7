// IEC I/O with parametrised datatypes: the plans of a block-cyclic distribution computed from Nx, Np and Bx
// by each rank alone, without the inspector's datatype exchange.
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm",
// The Journal of Supercomputing 47(1):53-75, 2009, §3.3.2 ("Datatype parametrization": for regular
// distributions the datatypes "can be automatically computed by means of a set of linear equations with
// parameters Np, Nx and Bx"; Properties 1-3 give rank 0's send datatypes, with constants the paper
// determines empirically). Here the whole plan of every rank is derived exactly, from the paper's own
// closed forms (alloc_offset, compute_offset, the butterfly, Property 4's halves) and the block-cyclic
// layout; docs/iec.md, "Parametrised datatypes", gives the derivation.
//
// The model. Origin rank o holds entries j = 0, 1, ... of x at logical j / Bx * Np * Bx + o * Bx + j % Bx,
// in that order. A rank's memory is its initial region plus one receive region per phase. What a rank holds
// of origin o is always one *block*: o's entries in one logical range, stored consecutively in j order
// (initially o's own entries; a sender sends its entries in ascending memory order, so a block arrives
// whole and consecutive, and later phases only take entries out of it). And a rank x holds its group's
// blocks (origins sharing x's bits from the current phase up) in ascending origin order through its
// memory: Fig. 4 places the receive region of phase m by how many of x's partners lie below its partner
// x XOR 2^m, plus Nx/Np when that partner is above x, and L2 places the initial region at popcount(x)
// halves, right after the popcount(x) regions whose partners lie below x. So the regions lie in the order
// of their partners, the initial one among them in x's place, and region m holds the group of x XOR 2^m:
// origins [(x XOR 2^m) AND NOT (2^m - 1), + 2^m), by induction in ascending order. The send datatype of
// phase k is therefore the group's blocks, origin after origin, restricted to the partner's new range, and
// the receive region of phase k gets the partner's group's blocks of the rank's new range in the same
// order. docs/iec.md, "Parametrised datatypes".
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/iec/iec.hpp"

namespace ciosim::iec {

namespace {

using i64 = std::int64_t;

struct Shape {
  i64 nx = 0;
  i64 bx = 0;
  i64 period = 0;  ///< Np * Bx
  int nph = 0;
  /// A logical address L, split so that the entries of any origin below it cost no division.
  struct Cut {
    i64 whole = 0;  ///< entries of each origin in the periods before L's: L / (Np Bx) * Bx
    i64 rest = 0;   ///< L's place in its period: L mod (Np Bx)
  };
  Cut cut(i64 l) const { return Cut{l / period * bx, l % period}; }
  /// Origin o's entries with logical address below the cut (they are its entries 0 .. result - 1).
  i64 below(int o, const Cut& c) const {
    return c.whole + std::clamp<i64>(c.rest - static_cast<i64>(o) * bx, 0, bx);
  }
  /// Calls fn(o, end) for the runs [o, end) that split origins [o0, o1) where below(o, a) or below(o, b)
  /// may change: at the origin a cut falls in and the next one (the origins before get Bx entries more of
  /// the period, those after none).
  template <class Fn>
  void for_pieces(int o0, int o1, const Cut& a, const Cut& b, Fn&& fn) const {
    const i64 qa = a.rest / bx;
    const i64 qb = b.rest / bx;
    i64 cuts[4] = {qa, qa + 1, qb, qb + 1};
    std::sort(cuts, cuts + 4);
    i64 at = o0;
    for (const i64 c : cuts)
      if (c > at && c < o1) {
        fn(static_cast<int>(at), static_cast<int>(c));
        at = c;
      }
    fn(static_cast<int>(at), o1);
  }
  /// The first logical address of rank r's file range after phase k (Property 4: the lower half when bit
  /// k of r is 0); the range has Nx / 2^(k+1) entries.
  i64 range_lo(int r, int k) const {
    i64 lo = 0;
    for (int i = 0; i <= k; ++i)
      if ((r >> i) & 1) lo += nx >> (i + 1);
    return lo;
  }
};

/// Where a rank holds the blocks of origins [o0, o1): origin o's block starts at pos + (o - o0) step and
/// begins with the origin's entry `first`.
struct Blocks {
  int o0 = 0;
  int o1 = 0;
  i64 pos = 0;
  i64 step = 0;
  i64 first = 0;
};

/// Where a rank holds one origin's block: its first position and the origin's entry stored there.
struct Block {
  i64 pos = 0;
  i64 first = 0;
};

}  // namespace

namespace {

/// Whether `dt` is rank r's datatype in block_cyclic(nx, np, bx).
bool block_cyclic_rank(const Datatype& dt, i64 nx, int np, int r, i64 bx) {
  if (bx <= 0 || bx > nx / np || nx % (np * bx) != 0 || dt.tuples.size() != 1) return false;
  const i64 count = nx / (np * bx);
  return dt.tuples.front().offset == r * bx && dt.tuples.front().length == bx && dt.count == count &&
         (count == 1 || dt.stride == np * bx);
}

/// Bx if rank r's datatype is block-cyclic's (its only tuple's length), else 0.
i64 rank_bx(const Distribution& d, int r) {
  const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
  const i64 bx = dt.tuples.size() == 1 ? dt.tuples.front().length : 0;
  return block_cyclic_rank(dt, d.nx, d.nprocs(), r, bx) ? bx : 0;
}

}  // namespace

std::int64_t block_cyclic_bx(const Distribution& d) {
  const int np = d.nprocs();
  if (np < 1 || d.nx <= 0) return 0;
  const i64 bx = rank_bx(d, 0);
  for (int r = 1; r < np && bx > 0; ++r)
    if (!block_cyclic_rank(d.per_rank[static_cast<std::size_t>(r)], d.nx, np, r, bx)) return 0;
  return bx;
}

std::string check_parametric(const Distribution& d) {
  if (block_cyclic_bx(d) == 0)
    return "iec-parametric needs a block-cyclic distribution (workload.kind = block-cyclic): its datatypes "
           "are equations of Nx, Np and Bx; iec runs any distribution";
  return check(d);
}

RankPlan parametric_plan(std::int64_t nx, int np, std::int64_t bx, int rank, std::int64_t* work) {
  std::int64_t steps = 0;  // the loops' steps, for `work`
  if (np < 1 || (np & (np - 1)) != 0 || bx < 1 || nx < 1 || bx > nx / np || nx % (np * bx) != 0 ||
      (np > 1 && nx % (2 * static_cast<i64>(np)) != 0) || rank < 0 || rank >= np)
    throw std::invalid_argument("iec-parametric: no block-cyclic IEC plan for Nx=" + std::to_string(nx) +
                                ", Np=" + std::to_string(np) + ", Bx=" + std::to_string(bx) +
                                ", rank=" + std::to_string(rank) + " (run iec::check first)");
  const Shape s{nx, bx, np * bx, num_phases(np)};
  const i64 own = nx / np;
  const i64 half = own / 2;

  // Where the rank holds each origin's block, as runs of consecutive origins whose blocks follow each
  // other at a constant step from the same first entry. Before phase k they cover the rank's group,
  // origins [rank AND NOT (2^k - 1), + 2^k), in ascending origin order, which is their order through the
  // rank's memory (see the file's head). A receive region is a few runs (the origins' counts in a range
  // change only at its two ends' origins), so a rank holds O(log Np) runs and a phase costs as many steps.
  std::vector<Blocks> held;
  std::vector<Blocks> got;  // a phase's receive region

  RankPlan plan;
  plan.rank = rank;
  plan.alloc_offset = alloc_offset(rank, nx, np);
  plan.buffer_entries = buffer_entries(nx, np);
  plan.file_offset = file_offset(rank, nx, np);
  held.push_back(Blocks{rank, rank + 1, plan.alloc_offset, 0, 0});
  StridedDatatype::Builder dt;
  for (int k = 0; k < s.nph; ++k) {
    const int group = 1 << k;
    // L3-L4: the entries in the partner's new range, in ascending memory order: block by block, origin by
    // origin, a progression over each run of origins whose counts below the range's ends are the same.
    const int target = partner(rank, k);
    const i64 lo_at = s.range_lo(target, k);
    const Shape::Cut lo = s.cut(lo_at);
    const Shape::Cut hi = s.cut(lo_at + (nx >> (k + 1)));
    for (const Blocks& b : held)
      s.for_pieces(b.o0, b.o1, lo, hi, [&](int o, int end) {
        ++steps;
        const i64 a = s.below(o, lo);
        dt.join(b.pos + (o - b.o0) * b.step + a - b.first, s.below(o, hi) - a, b.step, end - o);
      });
    const i64 recv = recv_offset(rank, k, nx, np);
    plan.phases.push_back(Phase{target, recv, dt.finish()});
    // L6-L9: the partner's blocks of the rank's own new range, its group's origins in ascending order,
    // stored consecutively from recv. The partner's group lies next to the rank's: below it or above it.
    const i64 keep_at = s.range_lo(rank, k);
    const Shape::Cut keep_lo = s.cut(keep_at);
    const Shape::Cut keep_hi = s.cut(keep_at + (nx >> (k + 1)));
    const int from = target & ~(group - 1);
    got.clear();
    i64 at = recv;
    s.for_pieces(from, from + group, keep_lo, keep_hi, [&](int o, int end) {
      ++steps;
      const i64 a = s.below(o, keep_lo);
      const i64 size = s.below(o, keep_hi) - a;
      got.push_back(Blocks{o, end, at, size, a});
      at += size * (end - o);
    });
    held.insert(from < rank ? held.begin() : held.end(), got.begin(), got.end());
    if (at != recv + half)
      throw std::logic_error("iec-parametric: rank " + std::to_string(rank) + " receives " +
                             std::to_string(at - recv) + " entries in phase " + std::to_string(k) +
                             ", expected Nx/(2Np)=" + std::to_string(half));
  }
  // L10: the positions of the chunk's entries in logical order, Compute_Datatype_Intervaled of them. Every
  // block advances by Bx entries from one period (Np Bx entries) to the next, so when the chunk is whole
  // periods, period c's positions are the first period's plus c Bx. When the first period's ascend, they
  // are the first interval of Compute_Datatype_Intervaled when there is one period, and when there are
  // more and the second period starts at or below the end of the first, the rest is its replication with
  // stride Bx: that Datatype, without the other periods' positions (tests compare it with the
  // inspector's). The first period is one progression of Bx-entry runs a run of origins.
  const i64 periods = own / s.period;
  const i64 cycle = plan.file_offset / s.period;
  if (own % s.period == 0 && plan.file_offset % s.period == 0) {
    bool ascends = true;
    i64 next = 0;  // the least position the next run of Bx may start at
    steps += 2 * static_cast<i64>(held.size());
    for (const Blocks& b : held) {
      const i64 start = b.pos - b.first + cycle * bx;
      ascends = ascends && (&b == &held.front() || start >= next) && (b.o1 - b.o0 == 1 || b.step >= bx);
      next = start + (b.o1 - b.o0 - 1) * b.step + bx;
    }
    const i64 front = held.front().pos - held.front().first + cycle * bx;
    if (ascends && (periods == 1 || front + bx <= next - 1)) {
      for (const Blocks& b : held) dt.join(b.pos - b.first + cycle * bx, bx, b.step, b.o1 - b.o0);
      plan.pack = periods == 1 ? dt.finish() : dt.finish(periods, bx);
      if (work) *work = steps;
      return plan;
    }
  }
  // Otherwise position by position (one rank, whose single origin's positions ascend through its periods;
  // or a chunk that is not whole periods): a run of up to Bx entries of one origin at a time, origin after
  // origin through each period, from the chunk's first entry.
  std::vector<Block> block(static_cast<std::size_t>(np));
  for (const Blocks& b : held)
    for (int o = b.o0; o < b.o1; ++o)
      block[static_cast<std::size_t>(o)] = Block{b.pos + (o - b.o0) * b.step, b.first};
  std::vector<i64> positions;
  positions.reserve(static_cast<std::size_t>(own));
  steps += np + 2 * own;  // every entry's position, then Compute_Datatype_Intervaled's walk over them
  const i64 end = plan.file_offset + own;
  i64 c = cycle;
  int o = static_cast<int>(plan.file_offset % s.period / bx);
  i64 in_block = plan.file_offset % bx;
  for (i64 l = plan.file_offset; l < end; in_block = 0) {
    const i64 len = std::min(bx - in_block, end - l);
    const Block& b = block[static_cast<std::size_t>(o)];
    for (i64 i = 0; i < len; ++i) positions.push_back(b.pos + c * bx + in_block + i - b.first);
    l += len;
    if (++o == np) {
      o = 0;
      ++c;
    }
  }
  plan.pack = StridedDatatype(compute_datatype_intervaled(positions));
  if (work) *work = steps;
  return plan;
}

std::int64_t parametric_tuples(const RankPlan& plan) {
  std::int64_t tuples = plan.pack.tuples();
  for (const Phase& ph : plan.phases) tuples += ph.send.tuples();
  return tuples;
}

RankPlan inspect_parametric(Process& p, const Distribution& d, CpuCharge cost) {
  p.phase("inspector");
  if (d.nprocs() != p.size())
    throw std::invalid_argument("iec-parametric: the distribution has " + std::to_string(d.nprocs()) +
                                " ranks, the run has " + std::to_string(p.size()));
  // The rank's own datatype: the technique's check (check_parametric) has checked every rank's before the
  // run, and a rank reading all of them would cost O(Np^2) in all.
  const std::int64_t bx = rank_bx(d, p.rank());
  if (bx == 0) throw std::invalid_argument(check_parametric(d));
  std::int64_t work = 0;
  RankPlan plan = parametric_plan(d.nx, d.nprocs(), bx, p.rank(), &work);
  p.compute(Work{.tuples = cost == CpuCharge::paper ? parametric_tuples(plan) : work});
  return plan;
}

}  // namespace ciosim::iec
