// IEC I/O closed forms (§3.1-3.2) and the condition under which the butterfly delivers each rank its chunk.
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm",
// The Journal of Supercomputing 47(1):53-75, 2009: eq. (1)-(2), Fig. 2 (L1, L2, L5, L8), Fig. 4 and
// Tables 1-4.
#include <bit>
#include <stdexcept>

#include "algorithms/common/butterfly.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/common/folding.hpp"
#include "algorithms/iec/iec.hpp"

namespace ciosim::iec {

namespace {

std::string s(std::int64_t v) {
  return std::to_string(v);
}

void require_np(int np, const char* what) {
  if (np <= 0) throw std::invalid_argument(std::string(what) + ": Np must be positive (Np=" + s(np) + ")");
}

void require_rank(int r, int np, const char* what) {
  require_np(np, what);
  if (r < 0 || r >= np)
    throw std::invalid_argument(std::string(what) + ": rank must be in [0, Np) (rank=" + s(r) +
                                ", Np=" + s(np) + ")");
}

/// Reverses the low `bits` bits of v.
std::int64_t bit_reverse(std::int64_t v, int bits) {
  std::int64_t out = 0;
  for (int b = 0; b < bits; ++b) out |= ((v >> b) & 1) << (bits - 1 - b);
  return out;
}

}  // namespace

int num_phases(int np) {
  require_np(np, "num_phases");
  return std::bit_width(static_cast<unsigned>(np - 1));  // ceil(log2 np); 0 for np = 1
}

int partner(int r, int ph) {
  return butterfly::partner(r, ph);  // L5: the pairing of Multiple-Phase Collective I/O's Fig. 5 (PDP 2007)
}

std::int64_t alloc_offset(int r, std::int64_t nx, int np) {
  require_rank(r, np, "alloc_offset");
  return std::popcount(static_cast<unsigned>(r)) * (nx / (2 * static_cast<std::int64_t>(np)));  // L2
}

std::int64_t buffer_entries(std::int64_t nx, int np) {
  require_np(np, "buffer_entries");
  return nx / np + num_phases(np) * (nx / (2 * static_cast<std::int64_t>(np)));  // L1, eq. (2)
}

bool block_cyclic_stays_periodic(std::int64_t nx, int np, std::int64_t bx) {
  if (np < 1 || bx < 1 || nx < 1 || (np & (np - 1)) != 0 || nx % (bx * np) != 0) return false;
  std::int64_t reps = nx / bx / np;
  for (int half = np; half > 1 && reps > 1; half /= 2) {  // one halving per butterfly phase
    if (reps % 2 != 0) return false;
    reps /= 2;
  }
  return true;
}

std::int64_t recv_offset(int r, int ph, std::int64_t nx, int np) {
  require_rank(r, np, "recv_offset");
  const int nph = num_phases(np);
  if (ph < 0 || ph >= nph)
    throw std::invalid_argument("recv_offset: phase must be in [0, Nph) (phase=" + s(ph) + ", Nph=" + s(nph) +
                                ")");
  const std::int64_t half = nx / (2 * static_cast<std::int64_t>(np));
  const int target = partner(r, ph);
  std::int64_t off = 0;  // Fig. 4
  for (int i = 0; i < nph; ++i)
    if (target > partner(r, i)) off += half;
  if (target > r) off += nx / np;
  return off;
}

std::int64_t file_offset(int r, std::int64_t nx, int np) {
  require_rank(r, np, "file_offset");
  return bit_reverse(r, num_phases(np)) * (nx / np);  // L8
}

std::string check(const Distribution& d) {
  const int np = d.nprocs();
  const std::int64_t nx = d.nx;
  const std::string vals = " (Nx=" + s(nx) + ", Np=" + s(np) + ")";
  if (std::string why = butterfly::check_ranks(np, "IEC"); !why.empty()) return why;
  if (nx <= 0 || (np > 1 && nx % (2 * static_cast<std::int64_t>(np)) != 0))
    return "IEC needs Nx > 0 divisible by 2*Np so that every phase exchanges Nx/(2*Np) entries" + vals;
  if (std::string why = check_partition(d); !why.empty()) return "IEC needs a partition of x: " + why;
  const std::int64_t own = nx / np;
  for (int r = 0; r < np; ++r) {
    const std::int64_t held = d.per_rank[static_cast<std::size_t>(r)].size();
    if (held != own)
      return "IEC needs every rank to hold Nx/Np=" + s(own) + " entries (rank " + s(r) + " holds " + s(held) +
             ")" + vals;
  }
  // Before phase ph the rank holds the entries that the 2^ph ranks of its group (same rank bits >= ph) held
  // initially in its current half-range of x, which is piece q = bitrev_ph(r mod 2^ph) of 2^ph equal pieces.
  // Property 4 keeps the lower (or upper) half of its list: the split is right iff exactly Nx/(2Np) of those
  // entries lie in the lower half of the piece. If that holds at every phase, rank r ends with chunk
  // bitrev(r); if it fails, some entries end on the wrong side of the butterfly for good.
  const std::int64_t half = nx / (2 * static_cast<std::int64_t>(np));
  const int nph = num_phases(np);
  // The entries each group of 2^ph ranks holds, as rectangles of x folded into rows (folding.hpp): a group
  // of phase ph + 1 is the union of two of phase ph, and merging their rectangles keeps regular
  // distributions at a few per group (block-cyclic: one), so a piece's count is a few closed forms instead
  // of a walk over replicas. A phase where that would cost more than counting per rank and piece
  // (count_per_piece) is counted that way, and so is every phase when folding does not compress (no
  // stride shared by replicated datatypes: the rectangles would be the tuples themselves, in more memory).
  double total_rects = 0;
  const std::int64_t S = folding::best_period(d, total_rects);
  const bool folded = S < nx;
  std::vector<std::vector<folding::Rect>> groups(folded ? static_cast<std::size_t>(np) : 0);
  for (std::size_t r = 0; r < groups.size(); ++r) {
    folding::fold(d.per_rank[r], S, nx, &groups[r]);
    folding::merge(groups[r]);
  }
  auto uneven = [&](int ph, int r, std::int64_t lower, std::int64_t piece, std::int64_t k) {
    return "IEC needs every rank's entries to split evenly at every butterfly phase (sufficient: every rank "
           "holds Nx/Np^2 entries of each of the Np file chunks of Nx/Np entries; for block-cyclic, Nx "
           "divisible by Np^2*Bx): in phase " +
           s(ph) + " rank " + s(r) + " holds " + s(k) + " entries of [" + s(lower * piece) + ", " +
           s((lower + 1) * piece) + ") instead of Nx/(2*Np)=" + s(half) + vals;
  };
  for (int ph = 0; ph < nph; ++ph) {
    const int block = 1 << ph;
    const std::int64_t pieces = std::int64_t{2} << ph;
    const std::int64_t piece = nx / pieces;
    if (folded && ph > 0)  // groups of 2^ph ranks from pairs of groups of 2^(ph-1)
      for (std::size_t g = 0; g < groups.size() / 2; ++g) {
        std::vector<folding::Rect> u = std::move(groups[2 * g]);
        u.insert(u.end(), groups[2 * g + 1].begin(), groups[2 * g + 1].end());
        folding::merge(u);
        groups[g] = std::move(u);
      }
    if (folded) groups.resize(static_cast<std::size_t>(np / block));
    // Cost of this phase: rectangles times the pieces each group is asked about, versus count_per_piece.
    double by_rects = 0, by_pieces = 0;
    for (const auto& g : groups) by_rects += static_cast<double>(g.size()) * block;
    for (const Datatype& dt : d.per_rank) {
      const bool closed_form = dt.stride > 0 && dt.count > 2 * (pieces + 1);
      by_pieces += static_cast<double>(dt.tuples.size()) *
                   static_cast<double>(closed_form ? pieces : dt.count + static_cast<double>(pieces) / 64);
    }
    if (folded && by_rects <= by_pieces) {
      for (int g = 0; g < np; g += block) {
        const auto& rects = groups[static_cast<std::size_t>(g / block)];
        for (int r = g; r < g + block; ++r) {
          const std::int64_t lower = 2 * bit_reverse(r % block, ph);
          std::int64_t k = 0;
          for (const folding::Rect& rc : rects)
            k += folding::below(rc, S, (lower + 1) * piece) - folding::below(rc, S, lower * piece);
          if (k != half) return uneven(ph, r, lower, piece, k);
        }
      }
      continue;
    }
    std::vector<std::int64_t> counts(static_cast<std::size_t>(pieces));
    for (int g = 0; g < np; g += block) {
      std::fill(counts.begin(), counts.end(), 0);
      for (int r = g; r < g + block; ++r)
        count_per_piece(d.per_rank[static_cast<std::size_t>(r)], piece, counts);
      for (int r = g; r < g + block; ++r) {
        const std::int64_t lower = 2 * bit_reverse(r % block, ph);
        const std::int64_t k = counts[static_cast<std::size_t>(lower)];
        if (k != half) return uneven(ph, r, lower, piece, k);
      }
    }
  }
  return "";
}

}  // namespace ciosim::iec
