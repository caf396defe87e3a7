// StridedDatatype: datatypes held as strided segments describe exactly the tuples they were made from
// (round trip, Phy2Log, runs, pack and unpack against the Datatype versions), in O(progressions) memory.
#include <catch2/catch.hpp>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "algorithms/common/strided_datatype.hpp"

using namespace ciosim;

namespace {

/// The runs for_runs reports, as {address, length}.
template <class Dt>
std::vector<Tuple> runs_of(const Dt& dt, std::int64_t first, std::int64_t n) {
  std::vector<Tuple> out;
  dt.for_runs(first, n, [&](std::int64_t a, std::int64_t len) { out.push_back(Tuple{a, len}); });
  return out;
}

/// A random datatype mixing arithmetic progressions, repeated lengths, zero-length tuples and lone tuples.
Datatype random_datatype(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> kind(0, 3);
  std::uniform_int_distribution<std::int64_t> small(0, 4);
  std::uniform_int_distribution<std::int64_t> off(0, 60);
  Datatype dt;
  const int groups = 1 + static_cast<int>(small(rng));
  for (int g = 0; g < groups; ++g) {
    const std::int64_t len = small(rng);
    const std::int64_t start = off(rng);
    const std::int64_t step = small(rng) + (kind(rng) == 0 ? 0 : len);
    const std::int64_t n = 1 + small(rng);
    for (std::int64_t i = 0; i < n; ++i)
      dt.tuples.push_back(Tuple{start + i * step, kind(rng) == 3 ? len + 1 : len});
  }
  dt.count = 1 + small(rng);
  dt.stride = 70 + small(rng);
  return dt;
}

}  // namespace

TEST_CASE("strided datatype: IEC's packing datatype of rank 1 of 16 at Nx = Np^2 is four progressions",
          "[datatype][strided]") {
  // One progression per memory region it reads (docs/iec.md "Nested descriptors").
  const Datatype dt{{{0, 1}, {16, 1}, {24, 1}, {28, 1}, {32, 1}, {34, 1}, {36, 1}, {38, 1}, {40, 8}}, 1, 0};
  const StridedDatatype s(dt);
  REQUIRE(s.segments().size() == 4);
  // Greedy from the left: 24, 28, 32 step by 4, then 34, 36, 38 by 2.
  CHECK(s.segments()[1].offset == 24);
  CHECK(s.segments()[1].step == 4);
  CHECK(s.segments()[1].tuples == 3);
  CHECK(s.segments()[2].offset == 34);
  CHECK(s.segments()[2].step == 2);
  CHECK(s.segments()[2].tuples == 3);
  CHECK(s.segments()[3].first == 8);
  CHECK(s.tuples() == 9);
  CHECK(s.size() == 16);
  CHECK(s.datatype() == dt);
  CHECK(s == dt);
  for (std::int64_t k = 0; k < 16; ++k) CHECK(s.map(k) == phy2log(dt, k));
}

TEST_CASE("strided datatype: random datatypes round-trip and map, run, pack and unpack as the Datatype does",
          "[datatype][strided]") {
  std::mt19937_64 rng(20261127);
  for (int trial = 0; trial < 500; ++trial) {
    const Datatype dt = random_datatype(rng);
    INFO("trial " << trial);
    const StridedDatatype s(dt);
    const IndexedDatatype idx(dt);
    REQUIRE(s.datatype() == dt);
    CHECK(s.tuples() == static_cast<std::int64_t>(dt.tuples.size()));
    CHECK(s.count() == dt.count);
    CHECK(s.stride() == dt.stride);
    CHECK(s.replica_entries() == dt.replica_size());
    REQUIRE(s.size() == dt.size());
    CHECK(s.segments().size() <= dt.tuples.size());
    CHECK(s == StridedDatatype(dt));
    for (std::int64_t k = 0; k < s.size(); ++k) CHECK(s.map(k) == idx.map(k));
    CHECK_THROWS_AS(s.map(s.size()), std::out_of_range);
    CHECK_THROWS_AS(s.map(-1), std::out_of_range);
    std::uniform_int_distribution<std::int64_t> pick(0, std::max<std::int64_t>(s.size() - 1, 0));
    for (int r = 0; r < 20 && s.size() > 0; ++r) {
      const std::int64_t first = pick(rng);
      const std::int64_t n = std::uniform_int_distribution<std::int64_t>(0, s.size() - first)(rng);
      CHECK(runs_of(s, first, n) == runs_of(idx, first, n));
    }
    CHECK_THROWS_AS(runs_of(s, 0, s.size() + 1), std::out_of_range);

    // pack and unpack: the same bytes as by the Datatype.
    std::int64_t extent = 0;
    for (const Tuple& t : dt.flatten()) extent = std::max(extent, t.offset + t.length);
    const std::int64_t es = 3;
    std::vector<std::byte> src(static_cast<std::size_t>(extent * es));
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::byte>(i * 7 + 1);
    std::vector<std::byte> a(static_cast<std::size_t>(dt.size() * es)), b(a.size());
    pack(src, dt, es, a);
    pack(src, s, es, b);
    CHECK(a == b);
    std::vector<std::byte> da(src.size()), db(src.size());
    unpack(a, dt, es, da);
    unpack(a, s, es, db);
    CHECK(da == db);
  }
}

TEST_CASE("strided datatype: a progression is found wherever it starts, and a change of length ends it",
          "[datatype][strided]") {
  // {0,2} {5,2} {10,2} {15,3} {20,3}: the lengths split it in two, each a progression of step 5.
  const StridedDatatype s(Datatype{{{0, 2}, {5, 2}, {10, 2}, {15, 3}, {20, 3}}, 2, 100});
  REQUIRE(s.segments().size() == 2);
  CHECK(s.segments()[0].tuples == 3);
  CHECK(s.segments()[1].tuples == 2);
  CHECK(s.segments()[1].step == 5);
  CHECK(s.map(12) == 100 + 0);  // the second replica's first entry
  CHECK(s.map(11) == 22);
  // Zero-length tuples are kept (the paper's tuple count is charged and sent) and select nothing.
  const Datatype z{{{3, 0}, {4, 1}, {9, 0}, {9, 0}, {10, 1}}, 1, 0};
  const StridedDatatype sz(z);
  CHECK(sz.datatype() == z);
  CHECK(sz.tuples() == 5);
  CHECK(sz.map(0) == 4);
  CHECK(sz.map(1) == 10);
  CHECK(runs_of(sz, 0, 2) == std::vector<Tuple>{{4, 1}, {10, 1}});
  CHECK(StridedDatatype().size() == 0);
  // Offsets so far apart that their step overflows: separate segments, the same tuples.
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max() - 8;
  const Datatype far{{{-big, 1}, {big, 1}, {-big, 1}, {0, 1}}, 1, 0};
  const StridedDatatype sf(far);
  CHECK(sf.datatype() == far);
  CHECK(sf.map(1) == big);
  CHECK(sf.map(3) == 0);
  CHECK_THROWS_AS(StridedDatatype(Datatype{{{0, -1}}, 1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(StridedDatatype(Datatype{{{0, 1}}, -1, 0}), std::invalid_argument);
}

TEST_CASE("strided datatype: the builder gives the segments of the tuples its progressions list",
          "[datatype][strided]") {
  // Random progressions, some continuing the previous one's step or end, some of zero length or one tuple:
  // append gives the datatype of the tuples as listed, join that of compute_datatype's runs of them (a tuple
  // that starts where the previous one ends extends it; empty ones are left out).
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<std::int64_t> small(0, 4);
  std::uniform_int_distribution<int> kind(0, 4);
  std::int64_t joined_seen = 0;
  for (int round = 0; round < 4000; ++round) {
    StridedDatatype::Builder as_is;
    StridedDatatype::Builder runs;
    std::vector<Tuple> listed;
    std::vector<Tuple> joined;
    std::int64_t at = small(rng);
    const int progressions = 1 + static_cast<int>(small(rng));
    for (int g = 0; g < progressions; ++g) {
      const std::int64_t len = kind(rng) == 0 ? 0 : 1 + small(rng);
      const int k = kind(rng);
      // step: the length (one run), a gap, or the previous segment's step by chance.
      const std::int64_t step = k == 0 ? len : k == 1 ? 0 : len + small(rng);
      const std::int64_t n = k == 4 ? 1 : small(rng) + 1;
      const std::int64_t start = kind(rng) == 0 ? at : at + small(rng);  // sometimes where the last ended
      as_is.append(start, len, step, n);
      runs.join(start, len, step, n);
      for (std::int64_t i = 0; i < n; ++i) {
        const Tuple t{start + i * step, len};
        listed.push_back(t);
        if (t.length == 0) continue;
        if (!joined.empty() && joined.back().offset + joined.back().length == t.offset) {
          joined.back().length += t.length;
          ++joined_seen;
        } else {
          joined.push_back(t);
        }
      }
      at = start + (n - 1) * step + len;
    }
    const std::int64_t count = 1 + small(rng);
    const std::int64_t stride = 100 + small(rng);
    const StridedDatatype a = as_is.finish(count, stride);
    const StridedDatatype j = runs.finish(count, stride);
    INFO("round " << round);
    REQUIRE(a == StridedDatatype(Datatype{listed, count, stride}));
    REQUIRE(a.datatype() == Datatype(Datatype{listed, count, stride}));
    REQUIRE(a.segments().size() == StridedDatatype(Datatype{listed, count, stride}).segments().size());
    REQUIRE(j == StridedDatatype(Datatype{joined, count, stride}));
    REQUIRE(j.tuples() == static_cast<std::int64_t>(joined.size()));
    REQUIRE(j.size() == StridedDatatype(Datatype{joined, count, stride}).size());
    for (std::size_t s = 0; s < j.segments().size(); ++s)
      REQUIRE(j.segments()[s].first == StridedDatatype(Datatype{joined, count, stride}).segments()[s].first);
  }
  CHECK(joined_seen > 1000);  // the joins were exercised
  // A finished builder starts again empty; bad input is refused as the Datatype constructor refuses it.
  StridedDatatype::Builder b;
  b.join(5, 2, 2, 3);
  CHECK(b.finish() == StridedDatatype(Datatype{{{5, 6}}, 1, 0}));
  CHECK(b.finish().size() == 0);
  CHECK_THROWS_AS(b.append(0, -1), std::invalid_argument);
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max() / 2;
  StridedDatatype::Builder o;
  CHECK_THROWS_AS(o.append(0, 1, big, 4), std::invalid_argument);
  StridedDatatype::Builder r;
  r.append(0, 1);
  CHECK_THROWS_AS(r.finish(-1, 0), std::invalid_argument);
}
