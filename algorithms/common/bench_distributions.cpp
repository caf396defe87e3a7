// BT-IO's multi-partition solution file and MPI-Tile-IO's tiled 2-D array (see the header; García Blas,
// Isaila, Singh, Carretero, "View-based collective I/O for MPI-IO", CCGrid 2008, §VI).
#include "algorithms/common/bench_distributions.hpp"

#include <cmath>
#include <stdexcept>

namespace ciosim {

namespace {

std::string s(std::int64_t v) {
  return std::to_string(v);
}

/// sqrt(np) when np is a positive perfect square, else 0.
int square_root(int np) {
  if (np < 1) return 0;
  int q = static_cast<int>(std::sqrt(static_cast<double>(np)));
  while (static_cast<std::int64_t>(q) * q > np) --q;
  while (static_cast<std::int64_t>(q + 1) * (q + 1) <= np) ++q;
  return q * q == np ? q : 0;
}

}  // namespace

const std::vector<BtioClass>& btio_classes() {
  // NPB's class table of BT (grid points per direction, time steps): S 12^3 x 60, W 24^3 x 200,
  // A 64^3 x 200, B 102^3 x 200, C 162^3 x 200.
  static const std::vector<BtioClass> list = {
      {"S", 12, 60}, {"W", 24, 200}, {"A", 64, 200}, {"B", 102, 200}, {"C", 162, 200}};
  return list;
}

const BtioClass& btio_class(const std::string& name) {
  std::string valid;
  for (const auto& c : btio_classes()) {
    if (c.name == name) return c;
    valid += (valid.empty() ? "" : ", ") + c.name;
  }
  throw std::invalid_argument("unknown BT-IO class '" + name + "' (valid: " + valid + ")");
}

int btio_writes(const BtioClass& c) {
  return (c.steps + kBtioWriteInterval - 1) / kBtioWriteInterval;
}

double btio_step_flops(std::int64_t n) {
  // BT's own operation count per step for an n^3 grid (navg = n for a cubic grid).
  const double n3 = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  const double navg = static_cast<double>(n);
  return 3478.8 * n3 - 17655.7 * navg * navg + 28023.7 * navg;
}

std::vector<BtioCell> btio_cells(std::int64_t n, int np, int rank) {
  const int q = square_root(np);
  if (q == 0) {
    std::string squares;
    for (int k = 1; k <= 10; ++k) squares += s(std::int64_t{k} * k) + ", ";
    throw std::invalid_argument("btio needs a square number of ranks (" + squares +
                                "...), got run.ranks = " + s(np));
  }
  if (rank < 0 || rank >= np)
    throw std::invalid_argument("btio: rank " + s(rank) + " is outside [0, " + s(np) + ")");
  if (n / q < 3) {
    const std::int64_t qmax = n / 3;
    throw std::invalid_argument("btio: a grid of " + s(n) + "^3 points on " + s(np) +
                                " ranks gives cells of fewer than 3 points per direction (BT's minimum); "
                                "this class runs on 1.." +
                                s(qmax * qmax) + " ranks (a square), or choose a larger class");
  }
  const std::int64_t size = n / q;
  const std::int64_t excess = n % q;
  const int i0 = rank % q;
  const int j0 = rank / q;
  std::vector<BtioCell> cells(static_cast<std::size_t>(q));
  for (int c = 0; c < q; ++c) {
    const std::int64_t coord[3] = {(i0 + c) % q, ((j0 - c) % q + q) % q, c};
    BtioCell& cell = cells[static_cast<std::size_t>(c)];
    for (int d = 0; d < 3; ++d) {
      const std::int64_t k = coord[d];
      cell.size[d] = k < excess ? size + 1 : size;
      cell.low[d] = k < excess ? k * (size + 1) : excess * (size + 1) + (k - excess) * size;
    }
  }
  return cells;
}

Distribution btio(std::int64_t n, int np) {
  if (n < 1) throw std::invalid_argument("btio: the grid must have at least one point (n=" + s(n) + ")");
  Distribution d;
  d.nx = kBtioVariables * n * n * n;
  d.unit = kBtioVariables;
  (void)btio_cells(n, np, 0);  // checks np and the cell sizes before anything is built
  for (int r = 0; r < np; ++r) {
    const std::vector<BtioCell> cells = btio_cells(n, np, r);
    Datatype dt;
    for (const BtioCell& c : cells)
      for (std::int64_t k = c.low[2]; k < c.low[2] + c.size[2]; ++k)
        for (std::int64_t j = c.low[1]; j < c.low[1] + c.size[1]; ++j)
          dt.tuples.push_back({kBtioVariables * (c.low[0] + n * (j + n * k)), kBtioVariables * c.size[0]});
    d.per_rank.push_back(std::move(dt));
  }
  return d;
}

Distribution tile(const TileSpec& t, int np) {
  const std::string vals = " (tiles " + s(t.tiles_x) + "x" + s(t.tiles_y) + ", tile " + s(t.tile_x) + "x" +
                           s(t.tile_y) + ", run.ranks = " + s(np) + ")";
  if (t.tiles_x < 1 || t.tiles_y < 1 || t.tile_x < 1 || t.tile_y < 1)
    throw std::invalid_argument("tile needs tiles_x, tiles_y, tile_x and tile_y >= 1" + vals);
  if (t.overlap_x != 0 || t.overlap_y != 0)
    throw std::invalid_argument(
        "tile: workload.overlap_x/overlap_y must be 0 (overlapping tiles have two ranks write the same "
        "entries, which collective writes and ciosim's oracle do not define); got " +
        s(t.overlap_x) + "/" + s(t.overlap_y));
  if (t.header < 0) throw std::invalid_argument("tile: the header must be >= 0 entries, got " + s(t.header));
  if (t.tiles_x > INT64_MAX / t.tiles_y || t.tiles_x * t.tiles_y != np)
    throw std::invalid_argument("tile needs run.ranks = tiles_x * tiles_y" + vals);
  const std::int64_t row = t.tiles_x * t.tile_x;  // elements per row of the global array
  if (t.tile_x > INT64_MAX / t.tiles_x || t.tile_y > INT64_MAX / t.tiles_y ||
      row > (INT64_MAX - t.header) / (t.tiles_y * t.tile_y))
    throw std::invalid_argument("tile: the array overflows 64 bits" + vals);
  Distribution d;
  d.nx = t.header + row * t.tiles_y * t.tile_y;
  for (int r = 0; r < np; ++r) {
    const std::int64_t tx = r % t.tiles_x;
    const std::int64_t ty = r / t.tiles_x;
    const std::int64_t first = t.header + ty * t.tile_y * row + tx * t.tile_x;
    if (r == 0 && t.header > 0) {  // rank 0 writes the header, then its tile's rows one tuple each
      Datatype dt;
      dt.tuples.push_back({0, t.header});
      for (std::int64_t y = 0; y < t.tile_y; ++y) {
        Tuple& last = dt.tuples.back();
        if (last.offset + last.length == first + y * row)
          last.length += t.tile_x;  // one tile per row: the rows follow the header
        else
          dt.tuples.push_back({first + y * row, t.tile_x});
      }
      d.per_rank.push_back(std::move(dt));
      continue;
    }
    // One tuple per tile row, replicated tile_y times a global row apart (one tuple when the tile spans
    // whole rows).
    if (t.tiles_x == 1)
      d.per_rank.push_back(Datatype{{{first, t.tile_x * t.tile_y}}, 1, 0});
    else
      d.per_rank.push_back(Datatype{{{first, t.tile_x}}, t.tile_y, row});
  }
  return d;
}

}  // namespace ciosim
