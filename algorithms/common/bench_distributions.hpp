// The distributions of two I/O benchmarks that García Blas, Isaila, Singh and Carretero run in "View-based
// collective I/O for MPI-IO" (CCGrid 2008, §VI): NAS BT-IO in its full MPI-IO mode (the NAS Parallel
// Benchmarks, BT with the I/O of Wong and Van der Wijngaart, "NAS Parallel Benchmarks I/O Version 3.0", NAS
// technical report NAS-03-002) and MPI-Tile-IO (Argonne's pio-benchmark suite). Written from the
// benchmarks' documented behaviour and a reading of their public sources; docs/workloads-benchmarks.md
// describes both layouts with worked examples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/technique.hpp"

namespace ciosim {

/// One NPB problem class of BT: the grid has n points in each of the three directions and the benchmark
/// runs `steps` time steps.
struct BtioClass {
  std::string name;    ///< "S", "W", "A", "B", "C"
  std::int64_t n = 0;  ///< grid points per direction
  int steps = 0;       ///< time steps (NPB's niter)
};
/// The classes S, W, A, B, C in that order (NPB's class parameters; S is for small tests).
const std::vector<BtioClass>& btio_classes();
/// The class called `name`; throws std::invalid_argument naming the valid ones.
const BtioClass& btio_class(const std::string& name);

/// BT writes its solution every this many steps (NPB's default write interval) and after the last step.
constexpr int kBtioWriteInterval = 5;
/// The solution writes of a class: ceil(steps / 5) (200 steps: 40).
int btio_writes(const BtioClass& c);
/// Doubles per grid point in the solution file (the five conserved variables).
constexpr std::int64_t kBtioVariables = 5;
/// NPB's count of floating-point operations of one BT time step on an n^3 grid (the formula BT uses to
/// report its Mop/s).
double btio_step_flops(std::int64_t n);

/// One cell of BT's multi-partition decomposition, 0-based grid coordinates.
struct BtioCell {
  std::int64_t low[3];   ///< first grid point in x, y, z
  std::int64_t size[3];  ///< grid points in x, y, z
};

/// The sqrt(np) cells that rank `rank` of `np` owns, in the order BT stores and writes them (cell c lies in
/// z-slab c). Rank r = i + q*j (q = sqrt(np)) owns the cells at slab coordinates ((i + c) mod q,
/// (j - c) mod q, c) for c = 0..q-1; along each direction the first n mod q slabs hold floor(n/q)+1 points,
/// the others floor(n/q). Throws std::invalid_argument (one line, naming the valid choices) unless np is a
/// square, rank is in [0, np) and every cell has at least 3 points per direction (BT's minimum).
std::vector<BtioCell> btio_cells(std::int64_t n, int np, int rank);

/// One time step's solution file of BT-IO on an n^3 grid over np ranks, in 8-byte doubles: entry
/// v + 5*(i + n*(j + n*k)) is variable v of grid point (i, j, k) (Fortran order, x fastest; the five
/// variables of a point together). Each rank holds its cells' points, one tuple per x-row of a cell
/// (5*size[0] entries), cells in order, rows in Fortran order within a cell. unit = 5 (one grid point).
/// Throws as btio_cells.
Distribution btio(std::int64_t n, int np);

/// MPI-Tile-IO's dense 2-D array of tiles_x * tiles_y tiles of tile_x * tile_y elements, row-major (x
/// fastest), preceded by `header` entries. Rank r owns tile (r mod tiles_x, r div tiles_x); rank 0 also
/// owns the header entries (see docs: ciosim's file holds exactly x, so someone must write them).
struct TileSpec {
  std::int64_t tiles_x = 1, tiles_y = 1;      ///< tiles per row, tile rows
  std::int64_t tile_x = 1, tile_y = 1;        ///< elements per tile row, rows per tile
  std::int64_t overlap_x = 0, overlap_y = 0;  ///< elements shared by neighbouring tiles (must be 0)
  std::int64_t header = 0;                    ///< entries before the array
};

/// The tile distribution on np ranks. Throws std::invalid_argument (one line) unless np = tiles_x *
/// tiles_y, the sizes are positive, the header is >= 0 and the overlaps are 0 (overlapping tiles would have
/// two ranks write the same entries; ciosim's techniques and oracle need each entry written once).
Distribution tile(const TileSpec& t, int np);

}  // namespace ciosim
