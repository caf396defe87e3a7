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
  /// The first logical address of rank r's file range after phase k (Property 4: the lower half when bit
  /// k of r is 0); the range has Nx / 2^(k+1) entries.
  i64 range_lo(int r, int k) const {
    i64 lo = 0;
    for (int i = 0; i <= k; ++i)
      if ((r >> i) & 1) lo += nx >> (i + 1);
    return lo;
  }
};

/// Offset-length tuples of ascending positions, adjacent ones joined (Compute_Datatype of runs).
void add_run(std::vector<Tuple>& runs, i64 off, i64 len) {
  if (len <= 0) return;
  if (!runs.empty() && runs.back().offset + runs.back().length == off)
    runs.back().length += len;
  else
    runs.push_back(Tuple{off, len});
}

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

RankPlan parametric_plan(std::int64_t nx, int np, std::int64_t bx, int rank) {
  if (np < 1 || (np & (np - 1)) != 0 || bx < 1 || nx < 1 || bx > nx / np || nx % (np * bx) != 0 ||
      (np > 1 && nx % (2 * static_cast<i64>(np)) != 0) || rank < 0 || rank >= np)
    throw std::invalid_argument("iec-parametric: no block-cyclic IEC plan for Nx=" + std::to_string(nx) +
                                ", Np=" + std::to_string(np) + ", Bx=" + std::to_string(bx) +
                                ", rank=" + std::to_string(rank) + " (run iec::check first)");
  const Shape s{nx, bx, np * bx, num_phases(np)};
  const i64 own = nx / np;
  const i64 half = own / 2;

  // Where the rank holds each origin's block: its first position and the entry of the origin stored there.
  // Before phase k the rank holds the blocks of its group, origins [rank AND NOT (2^k - 1), + 2^k), in
  // ascending origin order through its memory (see the file's head).
  struct Block {
    i64 pos = 0;
    i64 first = 0;
  };
  std::vector<Block> block(static_cast<std::size_t>(np));

  RankPlan plan;
  plan.rank = rank;
  plan.alloc_offset = alloc_offset(rank, nx, np);
  plan.buffer_entries = buffer_entries(nx, np);
  plan.file_offset = file_offset(rank, nx, np);
  block[static_cast<std::size_t>(rank)] = Block{plan.alloc_offset, 0};
  std::vector<Tuple> runs;
  for (int k = 0; k < s.nph; ++k) {
    const int group = 1 << k;
    // L3-L4: the entries in the partner's new range, in ascending memory order: block by block, origin by
    // origin.
    const int target = partner(rank, k);
    const i64 lo_at = s.range_lo(target, k);
    const Shape::Cut lo = s.cut(lo_at);
    const Shape::Cut hi = s.cut(lo_at + (nx >> (k + 1)));
    runs.clear();
    for (int o = rank & ~(group - 1); o < (rank & ~(group - 1)) + group; ++o) {
      const Block& b = block[static_cast<std::size_t>(o)];
      const i64 a = s.below(o, lo);
      add_run(runs, b.pos + a - b.first, s.below(o, hi) - a);
    }
    const i64 recv = recv_offset(rank, k, nx, np);
    plan.phases.push_back(Phase{target, recv, StridedDatatype(Datatype{runs, 1, 0})});
    // L6-L9: the partner's blocks of the rank's own new range, its group's origins in ascending order,
    // stored consecutively from recv.
    const i64 keep_at = s.range_lo(rank, k);
    const Shape::Cut keep_lo = s.cut(keep_at);
    const Shape::Cut keep_hi = s.cut(keep_at + (nx >> (k + 1)));
    i64 at = recv;
    for (int o = target & ~(group - 1); o < (target & ~(group - 1)) + group; ++o) {
      const i64 a = s.below(o, keep_lo);
      block[static_cast<std::size_t>(o)] = Block{at, a};
      at += s.below(o, keep_hi) - a;
    }
    if (at != recv + half)
      throw std::logic_error("iec-parametric: rank " + std::to_string(rank) + " receives " +
                             std::to_string(at - recv) + " entries in phase " + std::to_string(k) +
                             ", expected Nx/(2Np)=" + std::to_string(half));
  }
  // L10: the positions of the chunk's entries in logical order, Compute_Datatype_Intervaled of them.
  // positions(from, count): the entries [from, from + count) of the chunk, a run of up to Bx entries of one
  // origin at a time, origin after origin through each period.
  auto positions = [&](i64 from, i64 count) {
    std::vector<i64> out;
    out.reserve(static_cast<std::size_t>(count));
    i64 cycle = from / s.period;  // the period (Np Bx entries) l lies in
    int o = static_cast<int>(from % s.period / bx);
    i64 in_block = from % bx;
    for (i64 l = from; l < from + count;) {
      const i64 len = std::min(bx - in_block, from + count - l);
      const Block& b = block[static_cast<std::size_t>(o)];
      const i64 at = b.pos + cycle * bx + in_block - b.first;
      for (i64 i = 0; i < len; ++i) out.push_back(at + i);
      l += len;
      in_block = 0;
      if (++o == np) {
        o = 0;
        ++cycle;
      }
    }
    return out;
  };
  // Every block advances by Bx entries from one period to the next, so when the chunk is whole periods,
  // period c's positions are the first period's plus c Bx. When the first period's ascend and the second
  // period starts at or below the end of the first, Compute_Datatype_Intervaled's first interval is the
  // first period and the rest is its replication with stride Bx: that Datatype, without the other
  // periods' positions (tests compare it with the inspector's).
  const i64 periods = own / s.period;
  if (own % s.period == 0 && plan.file_offset % s.period == 0 && periods > 1) {
    const std::vector<i64> first = positions(plan.file_offset, s.period);
    const bool ascends =
        std::adjacent_find(first.begin(), first.end(), [](i64 a, i64 b) { return b <= a; }) == first.end();
    if (ascends && first.front() + bx <= first.back()) {
      plan.pack = StridedDatatype(Datatype{compute_datatype(first), periods, bx});
      return plan;
    }
  }
  plan.pack = StridedDatatype(compute_datatype_intervaled(positions(plan.file_offset, own)));
  return plan;
}

std::int64_t parametric_tuples(const RankPlan& plan) {
  std::int64_t tuples = plan.pack.tuples();
  for (const Phase& ph : plan.phases) tuples += ph.send.tuples();
  return tuples;
}

RankPlan inspect_parametric(Process& p, const Distribution& d) {
  p.phase("inspector");
  if (d.nprocs() != p.size())
    throw std::invalid_argument("iec-parametric: the distribution has " + std::to_string(d.nprocs()) +
                                " ranks, the run has " + std::to_string(p.size()));
  // The rank's own datatype: the technique's check (check_parametric) has checked every rank's before the
  // run, and a rank reading all of them would cost O(Np^2) in all.
  const std::int64_t bx = rank_bx(d, p.rank());
  if (bx == 0) throw std::invalid_argument(check_parametric(d));
  RankPlan plan = parametric_plan(d.nx, d.nprocs(), bx, p.rank());
  p.compute(Work{.tuples = parametric_tuples(plan)});
  return plan;
}

}  // namespace ciosim::iec
