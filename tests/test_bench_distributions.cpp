// The distributions of BT-IO and MPI-Tile-IO (algorithms/common/bench_distributions.hpp), against the
// worked examples of docs/workloads-benchmarks.md and closed forms; and the Table I hand count: the
// offset-length pairs ROMIO's two-phase builds for one BT-IO class B write on 25 ranks (García Blas,
// Isaila, Singh, Carretero, "View-based collective I/O for MPI-IO", CCGrid 2008, Table I), computed with
// our two-phase's own planning functions and set against the count derived by hand in the docs.
#include <catch2/catch.hpp>

#include "algorithms/common/access_list.hpp"
#include "algorithms/common/bench_distributions.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/two_phase/two_phase.hpp"
#include "algorithms/view_based/view_based.hpp"

using namespace ciosim;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::int64_t runs_of(const Distribution& d, int r) {
  return file_access(d.per_rank[static_cast<std::size_t>(r)], 8).count();
}

}  // namespace

TEST_CASE("btio classes are NPB's and 200 steps give 40 writes", "[distribution][btio]") {
  CHECK(btio_class("B").n == 102);
  CHECK(btio_class("C").n == 162);
  CHECK(btio_class("A").n == 64);
  CHECK(btio_class("W").n == 24);
  CHECK(btio_writes(btio_class("B")) == 40);
  CHECK(btio_writes(btio_class("S")) == 12);
  CHECK(contains(error_of([] { btio_class("D"); }), "valid: S, W, A, B, C"));
  // The paper's file sizes (§VI.A): 40 time steps of 5 doubles per grid point.
  CHECK(btio_writes(btio_class("B")) * 40 * 102 * 102 * 102 == 1697932800);                // "1697.93 MBytes"
  CHECK(btio_writes(btio_class("C")) * std::int64_t{40} * 162 * 162 * 162 == 6802444800);  // "6802.44"
}

TEST_CASE("btio cells: the worked example of the docs (12^3 on 9 ranks)", "[distribution][btio]") {
  // q = 3, 4 points per slab. Rank 0 = (0, 0): cells at slabs (0,0,0), (1,2,1), (2,1,2).
  auto c = btio_cells(12, 9, 0);
  REQUIRE(c.size() == 3);
  CHECK((c[1].low[0] == 4 && c[1].low[1] == 8 && c[1].low[2] == 4));
  CHECK((c[2].low[0] == 8 && c[2].low[1] == 4 && c[2].low[2] == 8));
  // Rank 5 = (2, 1): (2,1,0), (0,0,1), (1,2,2).
  c = btio_cells(12, 9, 5);
  CHECK((c[0].low[0] == 8 && c[0].low[1] == 4 && c[0].low[2] == 0));
  CHECK((c[1].low[0] == 0 && c[1].low[1] == 0 && c[1].low[2] == 4));
  CHECK((c[2].low[0] == 4 && c[2].low[1] == 8 && c[2].low[2] == 8));
  // Uneven: 10 points over 3 slabs = 4, 3, 3 (the first n mod q slabs hold one more).
  c = btio_cells(10, 9, 0);
  CHECK((c[0].size[0] == 4 && c[1].low[0] == 4 && c[1].size[0] == 3 && c[2].low[0] == 7));
}

TEST_CASE("btio: a partition of the solution file, one cell per slab in every direction",
          "[distribution][btio]") {
  for (const std::int64_t n : {12, 24, 64}) {
    for (const int np : {1, 4, 9, 16}) {
      INFO("n=" << n << " np=" << np);
      const Distribution d = btio(n, np);
      CHECK(d.nx == 5 * n * n * n);
      CHECK(d.unit == 5);
      CHECK(check_partition(d).empty());
    }
  }
  // Rank 1 of 4 on 12^3: cells (1,0,0) then (0,1,1); first tuple = row y=0, z=0 of x in [6, 12).
  const Distribution d = btio(12, 4);
  const Datatype& r1 = d.per_rank[1];
  REQUIRE(r1.tuples.size() == 2 * 6 * 6);
  CHECK(r1.tuples[0] == Tuple{5 * 6, 30});
  CHECK(r1.tuples[1] == Tuple{5 * (6 + 12), 30});                  // next y row
  CHECK(r1.tuples[36] == Tuple{5 * (0 + 12 * (6 + 12 * 6)), 30});  // second cell: x 0, y 6, z 6
}

TEST_CASE("btio sizes: q*n^2 runs in all (one fewer on 4 ranks), n^2/q per rank (class B and C, 4..64 ranks)",
          "[distribution][btio]") {
  for (const std::int64_t n : {102, 162}) {
    for (const int q : {2, 3, 4, 5, 6, 7, 8}) {
      INFO("n=" << n << " q=" << q);
      const Distribution d = btio(n, q * q);
      std::int64_t runs = 0, bytes = 0;
      for (int r = 0; r < q * q; ++r) {
        const std::int64_t k = runs_of(d, r);
        CHECK(k >= n * n / q - 2);  // rows differ by at most one per direction between cells
        CHECK(k <= n * n / q + 2);
        runs += k;
        bytes += d.per_rank[static_cast<std::size_t>(r)].size() * 8;
      }
      // On 4 ranks, rank 3's first cell ends at the last point of z-slab 0 and its second cell starts
      // at the next point: one run fewer (ROMIO merges them too when it flattens the view).
      CHECK(runs == q * n * n - (q == 2 ? 1 : 0));
      CHECK(bytes == 40 * n * n * n);
    }
  }
}

TEST_CASE("btio: bad rank counts and classes too small are one-line errors naming the choices",
          "[distribution][btio]") {
  const std::string ns = error_of([] { btio(102, 8); });
  CHECK(contains(ns, "square number of ranks"));
  CHECK(contains(ns, "1, 4, 9, 16"));
  CHECK(contains(ns, "run.ranks = 8"));
  const std::string small = error_of([] { btio(24, 81); });  // class W: 24/9 = 2 points per cell
  CHECK(contains(small, "1..64 ranks"));
  CHECK(small.find('\n') == std::string::npos);
  CHECK(error_of([] { btio(24, 64); }).empty());
}

TEST_CASE("tile: rank r owns tile (r mod tiles_x, r div tiles_x) of a row-major array",
          "[distribution][tile]") {
  // 3 x 2 tiles of 4 x 2 elements: the array is 12 elements wide, 4 rows.
  const Distribution d = tile(TileSpec{3, 2, 4, 2, 0, 0, 0}, 6);
  CHECK(d.nx == 48);
  CHECK(check_partition(d).empty());
  CHECK(d.per_rank[4] == Datatype{{{24 + 4, 4}}, 2, 12});  // tile (1, 1): rows 2..3, x 4..7
  CHECK(d.per_rank[2].flatten() == std::vector<Tuple>{{8, 4}, {20, 4}});
  // A header of 5 entries: rank 0 writes it, everything else moves by 5.
  const Distribution h = tile(TileSpec{3, 2, 4, 2, 0, 0, 5}, 6);
  CHECK(h.nx == 53);
  CHECK(check_partition(h).empty());
  CHECK(h.per_rank[0].flatten() == std::vector<Tuple>{{0, 9}, {17, 4}});  // the header and row 0 touch
  CHECK(h.per_rank[4].flatten() == std::vector<Tuple>{{33, 4}, {45, 4}});
  // One tile per row: its rows are contiguous, and rank 0's follow the header.
  CHECK(tile(TileSpec{1, 2, 4, 2, 0, 0, 3}, 2).per_rank[0].flatten() == std::vector<Tuple>{{0, 11}});
  // The paper's tile: 2048 x 1536 elements of 8 bytes per rank (24 MiB), 1536 runs of 16 KiB.
  const Distribution p = tile(TileSpec{8, 8, 2048, 1536, 0, 0, 0}, 64);
  CHECK(p.per_rank[63].size() * 8 == 25165824);
  CHECK(file_access(p.per_rank[63], 8).count() == 1536);
}

TEST_CASE("tile: overlap, a rank count other than tiles_x * tiles_y and empty tiles are errors",
          "[distribution][tile]") {
  CHECK(contains(error_of([] { tile(TileSpec{2, 2, 4, 4, 1, 0, 0}, 4); }), "overlap_x/overlap_y must be 0"));
  CHECK(contains(error_of([] { tile(TileSpec{2, 2, 4, 4, 0, 0, 0}, 6); }), "run.ranks = tiles_x * tiles_y"));
  CHECK(contains(error_of([] { tile(TileSpec{2, 2, 0, 4, 0, 0, 0}, 4); }), ">= 1"));
}

// Table I's hand count (docs/workloads-benchmarks.md, "Table I by hand"): one class-B write on 25 ranks.
// Every x-row of every cell is one run: q*n^2 = 5 * 102^2 = 52,020 runs. The 25 file domains are
// ceil(40*102^3 / 25) = 1,697,933 bytes; that is 13 mod 40, so none of the 24 inner boundaries falls on a
// grid point, let alone a run start: each cuts one run in two. 52,020 + 24 = 52,044 pairs, 16 bytes each
// in a modern ROMIO (offsets and lengths as 8-byte ADIO_Offsets in one message), 12 in MPICH2 1.0.x
// (lengths as 4-byte ints).
TEST_CASE(
    "Table I by hand: two-phase builds 52,044 offset-length pairs for a BT-IO class B write on 25 "
    "ranks",
    "[distribution][btio][two-phase]") {
  const int P = 25;
  const Distribution d = btio(102, P);
  std::vector<AccessList> access;
  std::vector<Offset> st, end;
  std::int64_t runs = 0;
  for (int r = 0; r < P; ++r) {
    access.push_back(file_access(d.per_rank[static_cast<std::size_t>(r)], 8));
    st.push_back(access.back().start);
    end.push_back(access.back().end);
    runs += access.back().count();
  }
  CHECK(runs == 52020);
  const two_phase::FileDomains fd = two_phase::calc_file_domains(st, end, P, 0, 0);
  CHECK(fd.fd_size == 1697933);
  std::vector<int> ranklist(P);
  for (int r = 0; r < P; ++r) ranklist[static_cast<std::size_t>(r)] = r;
  std::int64_t pairs = 0, message_bytes = 0;
  for (int r = 0; r < P; ++r) {
    const two_phase::MyReq my = two_phase::calc_my_req(access[static_cast<std::size_t>(r)], fd, ranklist, P);
    for (int i = 0; i < P; ++i) {
      pairs += my.count[static_cast<std::size_t>(i)];
      message_bytes +=
          static_cast<std::int64_t>(my.pairs[static_cast<std::size_t>(i)].size() * sizeof(Offset));
    }
  }
  CHECK(pairs == 52044);
  CHECK(message_bytes == 52044 * 16);  // 832,704 bytes per write (modern ROMIO)
}

// View-based's side of Table I, by hand: a rank ships its view once per open to every other aggregator
// (every rank aggregates in BT-IO's runs). Flattened, a view is one (offset, length) tuple per contiguous
// run of the rank's cells: the same q*n^2 = 52,020 runs as above (no domain cuts: views are not split),
// and the shipped form is 5 + 2 x tuples 8-byte words. Over the two opens: 2 x (P - 1) x 8 x (5 P + 2 x
// 52,020) = 39,999,360 bytes (39,062 KiB), against two-phase's 80 x 832,704 = 66,616,320 bytes. The paper's
// Table I has 229.30 KB for view-based: its views are compact datatype descriptions (docs/reproduction.md).
TEST_CASE("Table I by hand: view-based ships 104,165 view words per open for BT-IO class B on 25 ranks",
          "[distribution][btio][view-based]") {
  const int P = 25;
  const Distribution d = btio(102, P);
  std::int64_t tuples = 0, words = 0;
  for (int r = 0; r < P; ++r) {
    bool in_order = true;
    const view_based::View v = view_based::make_view(d.per_rank[static_cast<std::size_t>(r)], 8, 0, in_order);
    CHECK(in_order);  // BT-IO's ranks store their cells in file order: no memory permutation
    tuples +=
        static_cast<std::int64_t>(v.filetype.tuples.size()) * std::max<std::int64_t>(v.filetype.count, 1);
    words += static_cast<std::int64_t>(view_based::serialize(v).size());
  }
  CHECK(tuples == 52020);
  CHECK(words == 5 * P + 2 * 52020);
  CHECK(2 * (P - 1) * 8 * words == 39999360);
}
