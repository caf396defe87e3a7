// check_partition on intervals (x folded into rows, algorithms/common/partition_check.cpp) against a
// per-entry reference, on generated distributions of every kind and on broken ones (overlaps, gaps,
// entries out of range); IEC's butterfly condition on folded rectangles against the per-rank, per-piece
// count it replaced. The reference is written from check_partition's contract in distribution.hpp: a
// partition holds every entry of [0, Nx) exactly once; the first offending entry is named.
#include <catch2/catch.hpp>
#include <functional>

#include "algorithms/common/bench_distributions.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/common/folding.hpp"
#include "algorithms/iec/iec.hpp"

using namespace ciosim;

namespace {

std::string s(std::int64_t v) {
  return std::to_string(v);
}

/// Calls fn(entry, rank) for every entry every replica of every tuple selects, in rank, replica, tuple order.
void for_each_entry(const Distribution& d, const std::function<void(std::int64_t, int)>& fn) {
  for (int r = 0; r < d.nprocs(); ++r) {
    const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
    for (std::int64_t j = 0; j < dt.count; ++j)
      for (const Tuple& t : dt.tuples)
        for (std::int64_t i = 0; i < t.length; ++i) fn(t.offset + j * dt.stride + i, r);
  }
}

/// The per-entry reference: counts how often each entry is held.
std::string reference_check(const Distribution& d) {
  if (d.nx <= 0) return "Nx must be positive (Nx=" + s(d.nx) + ")";
  if (d.nprocs() == 0) return "a distribution needs at least one rank";
  for (int r = 0; r < d.nprocs(); ++r) {
    const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
    const std::string who = "rank " + s(r);
    if (dt.count < 1) return who + " has replica count " + s(dt.count) + " (must be >= 1)";
    for (const Tuple& t : dt.tuples) {
      if (t.length < 0)
        return who + " has a tuple of negative length {" + s(t.offset) + "," + s(t.length) + "}";
      for (std::int64_t j = 0; j < dt.count && t.length > 0; ++j) {
        const std::int64_t o = t.offset + j * dt.stride;
        if (o < 0 || o + t.length > d.nx)
          return who + " holds entries outside [0, Nx) (tuple {" + s(t.offset) + "," + s(t.length) +
                 "}, Nx=" + s(d.nx) + ")";
      }
    }
  }
  std::vector<int> held(static_cast<std::size_t>(d.nx), 0);
  for_each_entry(d, [&](std::int64_t e, int) { ++held[static_cast<std::size_t>(e)]; });
  for (std::int64_t e = 0; e < d.nx; ++e) {
    const int h = held[static_cast<std::size_t>(e)];
    if (h == 0) return "entry " + s(e) + " of x is held by no rank (Nx=" + s(d.nx) + ")";
    if (h == 1) continue;
    std::vector<int> who;
    for_each_entry(d, [&](std::int64_t x, int r) {
      if (x == e && who.size() < 2) who.push_back(r);
    });
    const std::string names =
        who[0] == who[1] ? "rank " + s(who[0]) + " twice" : "ranks " + s(who[0]) + " and " + s(who[1]);
    return "entry " + s(e) + " of x is held by " + names + " (each entry must be held exactly once)";
  }
  return "";
}

/// splitmix64, for reproducible random cases.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
  }
};

/// A periodic partition: x = `periods` rows of S entries, each row cut at random points into pieces dealt to
/// random ranks; a rank's piece is one tuple replicated over the rows (stride S), sometimes shifted so that
/// it starts in the middle of a row (wrapping), sometimes stored with a negative stride.
Distribution random_periodic(Rng& rng, int np) {
  const std::int64_t S = 1 + rng.below(12), periods = 1 + rng.below(6);
  Distribution d;
  d.nx = S * periods;
  d.per_rank.resize(static_cast<std::size_t>(np));
  for (std::int64_t a = 0; a < S;) {
    const std::int64_t len = 1 + rng.below(S - a);
    Datatype& dt = d.per_rank[static_cast<std::size_t>(rng.below(np))];
    Datatype piece{{{a, len}}, periods, S};
    if (rng.below(4) == 0) piece = Datatype{{{a + (periods - 1) * S, len}}, periods, -S};
    if (dt.tuples.empty() && dt.count == 1)
      dt = piece;
    else if (dt.count == piece.count && dt.stride == piece.stride)
      dt.tuples.push_back(piece.tuples[0]);
    else  // a rank of another stride: give the piece as plain intervals to a new rank
      d.per_rank.push_back(Datatype{piece.flatten(), 1, 0});
    a += len;
  }
  return d;
}

/// Random explicit lists partitioning [0, nx).
Distribution random_lists(Rng& rng, int np, std::int64_t nx) {
  std::vector<std::vector<Tuple>> lists(static_cast<std::size_t>(np));
  for (std::int64_t a = 0; a < nx;) {
    const std::int64_t len = 1 + rng.below(std::min<std::int64_t>(nx - a, 7));
    lists[static_cast<std::size_t>(rng.below(np))].push_back({a, len});
    a += len;
  }
  for (auto& l : lists)  // any storage order
    for (std::size_t i = l.size(); i > 1; --i)
      std::swap(l[i - 1], l[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(i)))]);
  return from_lists(nx, std::move(lists));
}

/// One random change that may break the partition (or not: a rank's tuples exchanged with another's).
Distribution mutate(Distribution d, Rng& rng) {
  Datatype& dt = d.per_rank[static_cast<std::size_t>(rng.below(d.nprocs()))];
  Tuple* t =
      dt.tuples.empty()
          ? nullptr
          : &dt.tuples[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(dt.tuples.size())))];
  switch (rng.below(9)) {
    case 0:
      if (t) t->offset += 1 + rng.below(3);
      break;
    case 1:
      if (t) t->offset -= 1 + rng.below(3);
      break;
    case 2:
      if (t) t->length += 1;
      break;
    case 3:
      if (t) t->length -= 1;
      break;  // may become 0 (a gap) or -1 (refused)
    case 4:
      dt.count += rng.below(2) ? 1 : -1;
      break;
    case 5:
      dt.stride += rng.below(2) ? 1 : -1;
      break;
    case 6:
      if (t) dt.tuples.push_back(*t);
      break;  // held twice by one rank
    case 7:
      if (t) dt.tuples.erase(dt.tuples.begin() + (t - dt.tuples.data()));
      break;
    default:
      d.per_rank.push_back(d.per_rank[static_cast<std::size_t>(rng.below(d.nprocs()))]);  // two ranks
  }
  return d;
}

/// IEC's per-phase condition as it was counted before the folding (per rank and piece).
std::string reference_iec_phases(const Distribution& d) {
  const int np = d.nprocs();
  const std::int64_t nx = d.nx, half = nx / (2 * np);
  for (int ph = 0; (1 << ph) < np; ++ph) {
    const int block = 1 << ph;
    const std::int64_t pieces = std::int64_t{2} << ph, piece = nx / pieces;
    std::vector<std::int64_t> counts(static_cast<std::size_t>(pieces));
    for (int g = 0; g < np; g += block) {
      std::fill(counts.begin(), counts.end(), 0);
      for (int r = g; r < g + block; ++r)
        count_per_piece(d.per_rank[static_cast<std::size_t>(r)], piece, counts);
      for (int r = g; r < g + block; ++r) {
        std::int64_t rev = 0;
        for (int b = 0; b < ph; ++b) rev |= static_cast<std::int64_t>(((r % block) >> b) & 1) << (ph - 1 - b);
        const std::int64_t k = counts[static_cast<std::size_t>(2 * rev)];
        if (k != half) return "in phase " + s(ph) + " rank " + s(r) + " holds " + s(k) + " entries of [";
      }
    }
  }
  return "";
}

}  // namespace

TEST_CASE("check_partition agrees with the per-entry reference on generated distributions",
          "[distribution][partition]") {
  std::vector<Distribution> cases;
  for (int np : {1, 2, 3, 4, 8})
    for (std::int64_t bx : {1, 2, 3})
      for (std::int64_t rounds : {1, 2, 5}) cases.push_back(block_cyclic(np * bx * rounds, np, bx));
  for (int np : {1, 2, 4, 6, 8, 12, 27})
    for (const auto& g : {std::vector<std::int64_t>{4, 4, 4}, {3, 5, 7}, {8, 2, 1}, {1, 9, 2}, {5, 1, 6}})
      cases.push_back(block3d(g[0], g[1], g[2], np));
  for (int np : {1, 2, 3, 4, 8})
    cases.push_back(stem2(3, 5, 2, 2, 2, np)), cases.push_back(stem2(2, 2, 1, 1, 3, np));
  for (int np : {1, 4, 9}) cases.push_back(btio(np == 9 ? 9 : 6, np));
  for (std::int64_t header : {0, 3})
    for (const auto& tt : {std::vector<std::int64_t>{2, 2, 3, 2}, {1, 4, 5, 1}, {3, 1, 2, 4}}) {
      TileSpec t;
      t.tiles_x = tt[0], t.tiles_y = tt[1], t.tile_x = tt[2], t.tile_y = tt[3], t.header = header;
      cases.push_back(tile(t, static_cast<int>(tt[0] * tt[1])));
    }
  for (int np : {1, 2, 4}) cases.push_back(irregular(np * np * 6, np, 7));
  cases.push_back(mesh({0, 1, 1, 0, 2, 2, 2, 0}, 3, 3));
  Rng rng{2026};
  for (int i = 0; i < 300; ++i) cases.push_back(random_periodic(rng, 1 + static_cast<int>(rng.below(5))));
  for (int i = 0; i < 100; ++i)
    cases.push_back(random_lists(rng, 1 + static_cast<int>(rng.below(5)), 1 + rng.below(60)));

  int broken = 0, held_twice = 0, missing = 0, outside = 0;
  const std::size_t whole = cases.size();
  for (std::size_t i = 0; i < whole; ++i) {
    CHECK(check_partition(cases[i]).empty());
    for (int k = 0; k < 6; ++k) cases.push_back(mutate(cases[i], rng));
  }
  for (const Distribution& d : cases) {
    const std::string want = reference_check(d);
    INFO("Nx=" << d.nx << " Np=" << d.nprocs());
    CHECK(check_partition(d) == want);
    // Each strategy alone, with rows of every stride the datatypes use, of Nx (one row) and of a few
    // unrelated lengths (plain intervals cut at row ends).
    CHECK(folding::check_partition_by_bitmap(d) == want);
    std::vector<std::int64_t> periods{0, 1, 2, 5, d.nx > 1 ? d.nx - 1 : 1};
    for (const Datatype& dt : d.per_rank)
      if (dt.stride != 0) periods.push_back(dt.stride < 0 ? -dt.stride : dt.stride);
    for (std::int64_t S : periods) {
      INFO("rows of " << S);
      CHECK(folding::check_partition_by_rows(d, S) == want);
    }
    broken += !want.empty();
    held_twice += want.find("held by rank") != std::string::npos;
    missing += want.find("held by no rank") != std::string::npos;
    outside += want.find("outside [0, Nx)") != std::string::npos;
  }
  // Every kind of failure occurs often.
  CHECK(broken > 1000);
  CHECK(held_twice > 100);
  CHECK(missing > 100);
  CHECK(outside > 100);
}

TEST_CASE("check_partition names overlaps, gaps and ranges of folded rows", "[distribution][partition]") {
  Distribution d = block_cyclic(4096, 64, 4);  // 64 rectangles of 16 rows
  CHECK(check_partition(d).empty());
  d.per_rank[5].tuples[0].length = 3;  // entry 23 of each cycle of 256 is held by no rank
  CHECK(check_partition(d) == "entry 23 of x is held by no rank (Nx=4096)");
  d.per_rank[6].tuples[0].offset = 23;  // rank 6 moves to 23..26: 27 is held by no rank
  CHECK(check_partition(d) == "entry 27 of x is held by no rank (Nx=4096)");
  CHECK(check_partition(d) == reference_check(d));
  Distribution e = block_cyclic(4096, 64, 4);
  e.per_rank[63].count = 15;  // the last cycle's last block is held by no rank
  CHECK(check_partition(e) == "entry 4092 of x is held by no rank (Nx=4096)");
  e.per_rank[63].count = 17;
  CHECK(check_partition(e) == "rank 63 holds entries outside [0, Nx) (tuple {252,4}, Nx=4096)");
  Distribution f = block_cyclic(4096, 64, 4);
  f.per_rank[40].tuples[0].offset += 256 * 3;  // rank 40 starts three cycles late, ends outside
  CHECK(check_partition(f) == reference_check(f));
  f.per_rank[40].count -= 3;  // ... and now stops in time: its first three blocks are missing
  CHECK(check_partition(f) == "entry 160 of x is held by no rank (Nx=4096)");
  f.per_rank[41].tuples[0] = {160, 8};  // rank 41 takes rank 40's blocks and its own in every cycle
  CHECK(check_partition(f) ==
        "entry 928 of x is held by ranks 40 and 41 (each entry must be held exactly once)");
  CHECK(check_partition(f) == reference_check(f));
}

TEST_CASE("check_partition decides block-cyclic at 65,536 ranks from its rectangles",
          "[distribution][partition]") {
  // Nx = 2^32 entries (Np^2): a bitmap of 512 MiB and 2^32 entries before; 65,536 rectangles now.
  Distribution d = block_cyclic(std::int64_t{1} << 32, 65536, 1);
  CHECK(check_partition(d).empty());
  d.per_rank[65535].count -= 1;
  CHECK(check_partition(d) == "entry 4294967295 of x is held by no rank (Nx=4294967296)");
  d.per_rank[65535].count += 1;
  d.per_rank[7].tuples[0].offset = 6;
  CHECK(check_partition(d) == "entry 6 of x is held by ranks 6 and 7 (each entry must be held exactly once)");
  CHECK(iec::check(block_cyclic(std::int64_t{1} << 32, 65536, 1)).empty());
  // Nx = 2^31: every phase splits evenly but the last, where ranks 0..32767 hold the first half of every
  // row of 65,536 entries, i.e. all of piece 0.
  CHECK_THAT(
      iec::check(block_cyclic(std::int64_t{1} << 31, 65536, 1)),
      Catch::Contains("in phase 15 rank 0 holds 32768 entries of [0, 32768) instead of Nx/(2*Np)=16384"));
}

TEST_CASE("IEC's butterfly condition on folded rectangles agrees with counting per rank and piece",
          "[iec][partition]") {
  std::vector<Distribution> cases;
  for (int np : {1, 2, 4, 8, 16})
    for (std::int64_t bx : {1, 2, 4})
      for (std::int64_t rounds : {1, 2, 3, 4, 8, 16})
        cases.push_back(block_cyclic(2 * np * bx * rounds, np, bx));
  for (int np : {2, 4, 8}) {
    for (std::uint64_t seed : {1u, 2u, 3u}) cases.push_back(irregular(np * np * 4, np, seed));
    cases.push_back(stem2(4, 4 * np, 2, 1, 2, np));
    cases.push_back(block3d(4, 4, 2 * np, np));
  }
  Rng rng{14};
  for (int i = 0; i < 200;
       ++i) {  // partitions with every rank holding Nx/Np: ranks of a block-cyclic shuffled
    const int np = 1 << (1 + rng.below(4));
    Distribution d = block_cyclic(2 * np * (1 + rng.below(2 * np)), np, 1);
    for (int r = np - 1; r > 0; --r)
      std::swap(d.per_rank[static_cast<std::size_t>(r)],
                d.per_rank[static_cast<std::size_t>(rng.below(r + 1))]);
    cases.push_back(std::move(d));
  }
  int accepted = 0, rejected = 0;
  for (const Distribution& d : cases) {
    const std::string why = iec::check(d);
    INFO("Nx=" << d.nx << " Np=" << d.nprocs() << ": " << why);
    if (!why.empty() && why.find("split evenly") == std::string::npos) continue;  // refused before the phases
    const std::string want = reference_iec_phases(d);
    CHECK(why.empty() == want.empty());
    if (!want.empty()) CHECK_THAT(why, Catch::Contains(want));
    (why.empty() ? accepted : rejected) += 1;
  }
  CHECK(accepted > 50);
  CHECK(rejected > 50);
}

TEST_CASE("folding: rectangles cover what the datatype selects", "[distribution][partition]") {
  Rng rng{5};
  for (int i = 0; i < 500; ++i) {
    const std::int64_t S = 1 + rng.below(10), nx = S * (1 + rng.below(8)) + rng.below(S);
    Datatype dt{
        {}, 1 + rng.below(4), rng.below(3) == 0 ? rng.below(4 * S + 1) - 2 * S : (rng.below(3) - 1) * S};
    for (int k = 0; k < 1 + rng.below(3); ++k) dt.tuples.push_back({rng.below(nx), 1 + rng.below(S + 2)});
    bool inside = true;
    std::vector<int> want(static_cast<std::size_t>(nx), 0);
    for (const Tuple& t : dt.flatten())
      for (std::int64_t e = t.offset; e < t.offset + t.length; ++e)
        if (e < 0 || e >= nx)
          inside = false;
        else
          want[static_cast<std::size_t>(e)] = std::min(2, want[static_cast<std::size_t>(e)] + 1);
    if (!inside) continue;
    std::vector<folding::Rect> rects;
    const double n = folding::fold(dt, S, nx, nullptr);
    folding::fold(dt, S, nx, &rects);
    CHECK(static_cast<double>(rects.size()) <= n);
    std::vector<int> got(static_cast<std::size_t>(nx), 0);
    for (const folding::Rect& r : rects)
      for (std::int64_t q = r.q0; q < r.q1; ++q)
        for (std::int64_t a = r.a0; a < r.a1; ++a) ++got[static_cast<std::size_t>(q * S + a)];
    for (int& g : got) g = std::min(g, 2);
    CHECK(got == want);
    for (const folding::Rect& r : rects)
      for (std::int64_t x = 0; x <= nx; ++x) {
        std::int64_t below = 0;
        for (std::int64_t q = r.q0; q < r.q1; ++q)
          for (std::int64_t a = r.a0; a < r.a1; ++a) below += q * S + a < x;
        CHECK(folding::below(r, S, x) == below);
      }
  }
}

TEST_CASE("folding: merging keeps how often each entry is covered", "[distribution][partition]") {
  Rng rng{77};
  const std::int64_t S = 6, rows = 5;
  auto coverage = [&](const std::vector<folding::Rect>& rs) {
    std::vector<int> c(static_cast<std::size_t>(S * rows), 0);
    for (const folding::Rect& r : rs)
      for (std::int64_t q = r.q0; q < r.q1; ++q)
        for (std::int64_t a = r.a0; a < r.a1; ++a) ++c[static_cast<std::size_t>(q * S + a)];
    return c;
  };
  int merged = 0;
  for (int i = 0; i < 2000; ++i) {
    std::vector<folding::Rect> rs;
    for (int k = 0; k < 1 + rng.below(8); ++k) {
      const std::int64_t a0 = rng.below(S), q0 = rng.below(rows);
      rs.push_back({a0, a0 + 1 + rng.below(S - a0), q0, q0 + 1 + rng.below(rows - q0)});
    }
    const std::vector<int> before = coverage(rs);
    const std::size_t n = rs.size();
    folding::merge(rs);
    CHECK(coverage(rs) == before);
    merged += rs.size() < n;
  }
  CHECK(merged > 200);
}
