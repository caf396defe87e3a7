// Datatype unit tests: Phy2Log (Fig. 9, Fig. 11), Compute_Datatype (Fig. 12), Compute_Datatype_Intervaled
// (§3.3.3, Fig. 8), pack/unpack. Paper: Singh et al., J. Supercomputing 47(1), 2009.
#include <catch2/catch.hpp>
#include <cstring>
#include <stdexcept>

#include "algorithms/common/datatype.hpp"

using namespace ciosim;

TEST_CASE("phy2log follows Fig. 11: {0,1},{7,2},{12,1}, physical 2 is logical 8", "[datatype]") {
  const Datatype dt{{{0, 1}, {7, 2}, {12, 1}}, 1, 0};
  CHECK(phy2log(dt, 2) == 8);  // the paper's worked trace: tpl=1, 7 + 2 - 1
  CHECK(phy2log(dt, 0) == 0);
  CHECK(phy2log(dt, 1) == 7);
  CHECK(phy2log(dt, 3) == 12);
  CHECK_THROWS_AS(phy2log(dt, 4), std::out_of_range);
  CHECK_THROWS_AS(phy2log(dt, -1), std::out_of_range);
  const IndexedDatatype idx(dt);
  for (std::int64_t k = 0; k < 4; ++k) CHECK(idx.map(k) == phy2log(dt, k));
}

TEST_CASE("phy2log across hvector replicas", "[datatype]") {
  // Replica: {1,2},{5,1} (3 entries); 3 replicas, 10 entries apart.
  const Datatype dt{{{1, 2}, {5, 1}}, 3, 10};
  CHECK(dt.replica_size() == 3);
  CHECK(dt.size() == 9);
  const std::vector<std::int64_t> expect{1, 2, 5, 11, 12, 15, 21, 22, 25};
  const IndexedDatatype idx(dt);
  for (std::int64_t k = 0; k < 9; ++k) {
    CHECK(phy2log(dt, k) == expect[static_cast<std::size_t>(k)]);
    CHECK(idx.map(k) == expect[static_cast<std::size_t>(k)]);
  }
  CHECK_THROWS_AS(idx.map(9), std::out_of_range);
  CHECK(dt.flatten() == std::vector<Tuple>{{1, 2}, {5, 1}, {11, 2}, {15, 1}, {21, 2}, {25, 1}});

  // block-cyclic rank 1 of Nx=16, Np=4, Bx=2 as one replicated tuple (equation (6) of the paper).
  const Datatype bc{{{2, 2}}, 2, 8};
  for (std::int64_t k = 0; k < 4; ++k) CHECK(phy2log(bc, k) == 1 * 2 + (k / 2) * 4 * 2 + k % 2);
}

TEST_CASE("for_runs yields the runs of a sub-range, crossing tuples and replicas", "[datatype]") {
  const IndexedDatatype idx(Datatype{{{1, 2}, {0, 0}, {5, 3}}, 2, 10});
  std::vector<Tuple> runs;
  idx.for_runs(1, 7, [&](std::int64_t off, std::int64_t len) { runs.push_back({off, len}); });
  CHECK(runs == std::vector<Tuple>{{2, 1}, {5, 3}, {11, 2}, {15, 1}});
  CHECK_THROWS_AS(idx.for_runs(5, 6, [](std::int64_t, std::int64_t) {}), std::out_of_range);
}

TEST_CASE("compute_datatype merges consecutive addresses (Fig. 12)", "[datatype]") {
  CHECK(compute_datatype({2, 3}) == std::vector<Tuple>{{2, 2}});          // §3.3.3: List_out <8,2>,<12,3>
  CHECK(compute_datatype({1, 5}) == std::vector<Tuple>{{1, 1}, {5, 1}});  // Datatype1 of P0
  CHECK(compute_datatype({0, 4, 6, 7}) == std::vector<Tuple>{{0, 1}, {4, 1}, {6, 2}});  // Datatype_disk of P0
  CHECK(compute_datatype({}).empty());
  CHECK(compute_datatype({7, 6}) == std::vector<Tuple>{{7, 1}, {6, 1}});  // descending is never merged
}

TEST_CASE("compute_datatype_intervaled detects hvector replication (Fig. 8)", "[datatype]") {
  SECTION("Fig. 8: P0 with Nx=32, Np=4 packs {0,1},{8,1},{12,1},{14,1} twice, one entry apart") {
    const Datatype dt = compute_datatype_intervaled({0, 8, 12, 14, 1, 9, 13, 15});
    CHECK(dt.tuples == std::vector<Tuple>{{0, 1}, {8, 1}, {12, 1}, {14, 1}});
    CHECK(dt.count == 2);
    CHECK(dt.stride == 1);
  }
  SECTION("Fig. 7: increasing addresses are a single interval") {
    const Datatype dt = compute_datatype_intervaled({0, 4, 6, 7});
    CHECK(dt == Datatype{{{0, 1}, {4, 1}, {6, 2}}, 1, 0});
  }
  SECTION("three replicas with a negative displacement") {
    const Datatype dt = compute_datatype_intervaled({5, 6, 0, 1, -5, -4});
    CHECK(dt == Datatype{{{5, 2}}, 3, -5});
  }
  SECTION("not a replication: length not a multiple of the first interval") {
    const Datatype dt = compute_datatype_intervaled({0, 8, 1, 9, 3});
    CHECK(dt == Datatype{{{0, 1}, {8, 1}, {1, 1}, {9, 1}, {3, 1}}, 1, 0});
  }
  SECTION("not a replication: displacement not constant") {
    const Datatype dt = compute_datatype_intervaled({0, 8, 1, 9, 3, 11});
    CHECK(dt.count == 1);
    CHECK(dt.tuples == compute_datatype({0, 8, 1, 9, 3, 11}));
  }
  SECTION("not a replication: same displacement but different shape") {
    const Datatype dt = compute_datatype_intervaled({0, 8, 1, 10});
    CHECK(dt.count == 1);
  }
  SECTION("empty") {
    CHECK(compute_datatype_intervaled({}).size() == 0);
  }
  SECTION("the paper's rule only sees replicas that restart lower: increasing ones stay one interval") {
    const Datatype dt = compute_datatype_intervaled({3, 4, 9, 20, 21, 26});
    CHECK(dt == Datatype{{{3, 2}, {9, 1}, {20, 2}, {26, 1}}, 1, 0});
  }
  SECTION("a replication always reproduces the addresses") {
    const std::vector<std::int64_t> a{3, 4, 9, 1, 2, 7, -1, 0, 5};
    const Datatype dt = compute_datatype_intervaled(a);
    CHECK(dt == Datatype{{{3, 2}, {9, 1}}, 3, -2});
    for (std::size_t k = 0; k < a.size(); ++k) CHECK(phy2log(dt, static_cast<std::int64_t>(k)) == a[k]);
  }
}

TEST_CASE("pack and unpack move the selected entries", "[datatype]") {
  std::vector<std::int32_t> src(12);
  for (int i = 0; i < 12; ++i) src[static_cast<std::size_t>(i)] = 100 + i;
  const Datatype dt{{{1, 1}, {3, 2}}, 2, 6};  // entries 1,3,4,7,9,10
  std::vector<std::int32_t> packed(6);
  pack(std::as_bytes(std::span(src)), dt, 4, std::as_writable_bytes(std::span(packed)));
  CHECK(packed == std::vector<std::int32_t>{101, 103, 104, 107, 109, 110});
  std::vector<std::int32_t> dst(12, -1);
  unpack(std::as_bytes(std::span(packed)), dt, 4, std::as_writable_bytes(std::span(dst)));
  CHECK(dst == std::vector<std::int32_t>{-1, 101, -1, 103, 104, -1, -1, 107, -1, 109, 110, -1});

  std::vector<std::int32_t> small(5);
  CHECK_THROWS_AS(pack(std::as_bytes(std::span(src)), dt, 4, std::as_writable_bytes(std::span(small))),
                  std::out_of_range);
  const Datatype outside{{{11, 2}}, 1, 0};
  std::vector<std::int32_t> two(2);
  CHECK_THROWS_AS(pack(std::as_bytes(std::span(src)), outside, 4, std::as_writable_bytes(std::span(two))),
                  std::out_of_range);
}
