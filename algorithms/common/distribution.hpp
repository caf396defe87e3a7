// Workload distributions of the global vector x over the ranks (paper §3: block-cyclic with blocks of Bx
// entries, Fig. 1; "generic distributions" described by datatypes, Fig. 11), and the 3-D block distribution
// of ROMIO's coll_perf test (test/coll_perf.c; docs/two-phase.md, "Workload block3d").
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm",
// The Journal of Supercomputing 47(1):53-75, 2009.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/technique.hpp"

namespace ciosim {

/// Block-cyclic distribution: rank r holds blocks r, r+Np, r+2Np, ... of Bx entries. Each rank's datatype
/// is the single tuple {r*Bx, Bx} replicated Nx/(Np*Bx) times with a stride of Np*Bx entries. Requires
/// Nx > 0, Np > 0, Bx > 0 and Nx divisible by Np*Bx; throws std::invalid_argument otherwise.
Distribution block_cyclic(std::int64_t nx, int np, std::int64_t bx);

/// A random distribution that IEC can handle: every rank holds exactly Nx/Np^2 entries, chosen at random,
/// of each of the Np file chunks of Nx/Np entries; each rank stores its entries in increasing logical order
/// (merged into tuples). Deterministic for a seed on every platform (splitmix64, no <random>). Requires
/// Nx > 0, Np > 0 and Nx divisible by Np^2; throws std::invalid_argument otherwise.
Distribution irregular(std::int64_t nx, int np, std::uint64_t seed);

/// MPI_Dims_create(nnodes, ndims) with every dimension free: the non-increasing ndims-tuple of positive
/// integers whose product is nnodes and whose largest and smallest differ least (ties: the smallest
/// largest dimension, then lexicographically smallest), e.g. 16 -> {4, 2, 2}, 8 -> {2, 2, 2},
/// 12 -> {3, 2, 2}. Throws std::invalid_argument unless nnodes >= 1 and ndims >= 1.
std::vector<int> dims_create(int nnodes, int ndims);

/// A 3-D array of gx*gy*gz entries in C order (x slowest) block-distributed over a process grid
/// {px, py, pz} = dims_create(np, 3), as ROMIO's coll_perf builds it with MPI_Type_create_darray(BLOCK,
/// DFLT_DARG, MPI_ORDER_C): block = ceil(G/p) per dimension, process (cx, cy, cz) is rank
/// (cx*py + cy)*pz + cz and holds [c*block, min(G, (c+1)*block)) in each dimension, so trailing ranks may
/// hold less or nothing. Each rank stores its block in C order. Throws std::invalid_argument on
/// non-positive sizes.
Distribution block3d(std::int64_t gx, std::int64_t gy, std::int64_t gz, int np);

/// The rows [begin, end) of n rows that rank p of np holds in a balanced block distribution: the first
/// n mod np ranks hold ceil(n/np) rows, the others floor(n/np) (ranks past n hold none). Requires n >= 0,
/// np > 0 and 0 <= p < np; throws std::invalid_argument otherwise.
std::pair<std::int64_t, std::int64_t> block_rows(std::int64_t n, int np, int p);

/// A STEM-II array SL(x, y, z, l, ph) of Multiple-Phase Collective I/O (Singh et al., PDP 2007,
/// §4, Fig. 3): Nx*Ny*Nz*Nl*Nph entries in Fortran (column-major) order, so entry (x, y, z, l, ph) is
/// x + Nx*(y + Ny*(z + Nz*(l + Nl*ph))); y is block-distributed over the ranks (block_rows), the other
/// dimensions are whole. Rank p's datatype is the single tuple {y0*Nx, (y1-y0)*Nx} replicated Nz*Nl*Nph
/// times with a stride of Nx*Ny (a rank without rows holds nothing); it stores its entries in that order.
/// Throws std::invalid_argument on non-positive extents or a total that overflows 64 bits.
Distribution stem2(std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t nl, std::int64_t nchem,
                   int np);

/// A distribution from explicit lists of {offset, length} tuples (one list per rank, in storage order).
/// Throws std::invalid_argument unless the lists partition [0, Nx), naming the first missing or duplicated
/// entry.
Distribution from_lists(std::int64_t nx, std::vector<std::vector<Tuple>> lists);

/// The BIPS3D mesh workload (Filgueira, Singh, Pichel, Isaila, Carretero, VECPAR 2008; the kernel
/// benchmark-IO.c; docs/two-phase.md, "Workload mesh"): N = owner.size() mesh nodes, node i owned by rank
/// owner[i], `load` entries per node. x is node-major (node i's entries at [i*load, (i+1)*load)); rank r
/// holds its nodes in increasing order, one tuple per maximal run of consecutive owned nodes (the kernel's
/// MPI_Type_indexed file view). unit = load. Throws std::invalid_argument unless np >= 1, load >= 1, owner
/// is not empty and every owner is in [0, np).
Distribution mesh(const std::vector<int>& owner, int np, std::int64_t load);

/// "" when d's datatypes partition [0, Nx) (every entry held by exactly one rank, once), else a one-line
/// reason naming the first offending entry (partition_check.cpp). Decided on intervals: x folded into rows
/// of one of the datatypes' strides, so that a tuple replicated with that stride is one rectangle for all
/// its replicas (folding.hpp), and the rectangles swept row segment by row segment; cost O(R log R) for R
/// rectangles (block-cyclic: one per rank; no common stride: one per replica of every tuple). Falls back
/// to a bitmap of Nx/8 bytes and a walk over every held entry when that is cheaper.
std::string check_partition(const Distribution& d);

/// Adds to counts[p] the number of entries `dt` selects in [p*piece, (p+1)*piece), for p < counts.size().
/// Replicated datatypes are counted in closed form per tuple and piece (no walk over the replicas) when that
/// is cheaper. Entries outside [0, piece*counts.size()) are ignored.
void count_per_piece(const Datatype& dt, std::int64_t piece, std::vector<std::int64_t>& counts);

}  // namespace ciosim
