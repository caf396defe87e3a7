// Multiple-Phase Collective I/O.
// D. E. Singh, F. Isaila, A. Calderón, F. García, J. Carretero, "Multiple-Phase Collective I/O Technique for
// Improving Data Access Locality", 15th Euromicro PDP, 2007 (STEM-II), §4, Figs. 3-5,
// eq. (1).
//
// The array is a regular distribution: W planes of P entries (for STEM-II's SL(x, y, z, l, ph) a plane is
// one (z, l, ph): P = Nx*Ny, W = Nz*Nl*Nph) and every rank holds the same pieces of every plane (its block
// of y rows). Every rank keeps the whole array in memory, its own entries at their positions and gaps
// elsewhere (Fig. 3). In phase ph each rank pairs with the Fig. 5 partner (the butterfly IEC uses), keeps
// one half of its current range of planes (the lower rank the lower half) and swaps the other half of its
// data for the partner's data in its half, which it stores at the entries' own positions: the "unassigned
// memory entries" of §4. The send and receive datatypes come in closed form from (P, W, the rank's pieces,
// Np), with no inspector. After k phases a rank holds the pieces of 2^k ranks for W/2^k planes and writes
// them with one access through a file view; after log2 Np phases that is one contiguous block.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::multiple_phase {

/// The regular distribution the datatypes are generated from.
struct Layout {
  std::int64_t plane = 0;   ///< P: entries per plane (Nx*Ny)
  std::int64_t planes = 0;  ///< W: planes (Nz*Nl*Nph)
  /// Per rank: the pieces it holds of every plane, in plane coordinates [0, P), sorted and merged.
  std::vector<std::vector<Tuple>> pieces;
  int nprocs() const { return static_cast<int>(pieces.size()); }
};

/// "" and fills `out` when `d` is such a regular distribution over a power-of-two number of ranks: every
/// rank that holds entries replicates the same count W of tuples lying in [0, P) with the stride P = Nx/W
/// (stem2, block-cyclic; one plane, W = 1, for distributions without replication). Else a one-line reason.
std::string layout_of(const Distribution& d, Layout& out);
/// The technique's check: layout_of without the layout.
std::string check(const Distribution& d);
/// "" when `requested` phases (0 = all) can run on `ranks` ranks, else a one-line reason naming the valid
/// range 1..log2(ranks).
std::string check_phases(int requested, int ranks);
/// The phases that run: log2(ranks) for 0, else `requested`. Throws std::invalid_argument as check_phases.
int phases_to_run(int requested, int ranks);

/// Range of planes [begin, end) a rank is responsible for.
struct Planes {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end - begin; }
};
/// The planes rank r holds after k phases: [0, W) halved k times, keeping the lower half (the larger one
/// when the count is odd) in phase ph when bit ph of r is 0 (the lower rank of the Fig. 5 pair).
Planes planes_after(int r, int k, std::int64_t planes);
/// The pieces of each plane rank r holds after k phases: those of the 2^k ranks that agree with r on the
/// bits above k-1 (r >> k), sorted and merged.
std::vector<Tuple> pieces_after(const Layout& l, int r, int k);
/// Entries of x rank r holds after k phases, as positions of x (= positions in its memory, = file positions).
Datatype held(const Layout& l, int r, int k);

/// Phase ph of rank r: its partner, the entries it sends and those it receives (positions in x, which are
/// positions in both ranks' memories).
struct Step {
  int partner = 0;
  Datatype send;
  Datatype recv;
};
Step step(const Layout& l, int r, int ph);

/// Runs k = phases_to_run(in.phases, size) phases ("exchange0", "exchange1", ...) and the write ("write":
/// a write_list of the held pieces, or one write_at when they are contiguous), `iterations` times. The file
/// must be open.
void run(Process& p, const TechniqueInput& in, LocalData local);

/// The read path, the write mirrored: each rank reads what it would hold after k phases with one access
/// ("read": read_at or read_list), then undoes the phases from the last to the first ("exchange{k-1}" ...
/// "exchange0"), giving back what it received and getting back what it sent, and ends with its own entries
/// in `out` (storage order). `iterations` times.
void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out);

/// Every rank's memory after `k` phases (0: the initial layout; -1: all log2 Np), all ranks in one thread,
/// moving real data (each entry's logical index as 8 bytes) with the same datatypes as run(): entry i holds i
/// if the rank is responsible for it, -1 where it never held anything or gave the entry to its partner (the
/// layouts of Figs. 3 and 4).
std::vector<std::vector<std::int64_t>> simulate_memory(const Distribution& d, int k = -1);

}  // namespace ciosim::multiple_phase
