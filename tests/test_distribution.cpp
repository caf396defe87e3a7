// Distributions: block-cyclic (paper §3, Fig. 1 and equation (6)), the seeded irregular distribution,
// explicit lists, the partition check and per-piece counting. Paper: Singh et al., J. Supercomputing 47(1),
// 2009.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <thread>
#include <vector>

#include "algorithms/common/distribution.hpp"

using namespace ciosim;

namespace {

std::vector<std::int64_t> logicals(const Datatype& dt) {
  std::vector<std::int64_t> out;
  for (std::int64_t k = 0; k < dt.size(); ++k) out.push_back(phy2log(dt, k));
  return out;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no exception>";
}

}  // namespace

TEST_CASE("block_cyclic reproduces Fig. 1 and equation (6)", "[distribution]") {
  const Distribution d = block_cyclic(16, 4, 1);
  REQUIRE(d.nprocs() == 4);
  CHECK(d.nx == 16);
  CHECK(logicals(d.per_rank[0]) == std::vector<std::int64_t>{0, 4, 8, 12});  // Fig. 1, P0
  CHECK(logicals(d.per_rank[3]) == std::vector<std::int64_t>{3, 7, 11, 15});
  CHECK(d.per_rank[1] == Datatype{{{1, 1}}, 4, 4});

  const Distribution e = block_cyclic(48, 3, 4);
  for (int r = 0; r < 3; ++r)
    for (std::int64_t k = 0; k < 16; ++k)  // Log_Addr = rank*Bx + floor(Phy/Bx)*Np*Bx + Phy%Bx
      CHECK(phy2log(e.per_rank[static_cast<std::size_t>(r)], k) == r * 4 + (k / 4) * 3 * 4 + k % 4);
  CHECK(check_partition(e).empty());
}

TEST_CASE("block_cyclic rejects bad parameters, naming the constraint", "[distribution]") {
  CHECK(message_of([] { block_cyclic(100, 4, 8); }) ==
        "block-cyclic needs Nx divisible by Np*Bx (Nx=100, Np=4, Bx=8)");
  CHECK_THAT(message_of([] { block_cyclic(0, 4, 1); }), Catch::Contains("> 0"));
  CHECK_THAT(message_of([] { block_cyclic(16, 0, 1); }), Catch::Contains("> 0"));
  CHECK_THAT(message_of([] { block_cyclic(16, 4, 0); }), Catch::Contains("> 0"));
}

TEST_CASE("irregular is seeded, portable and gives Nx/Np^2 of every chunk to every rank", "[distribution]") {
  // Golden value from an independent Python transcription of splitmix64 + Fisher-Yates (irregular(32, 4,
  // 2024)).
  const Distribution g = irregular(32, 4, 2024);
  CHECK(g.per_rank[0].tuples == std::vector<Tuple>{{2, 1}, {6, 1}, {13, 2}, {16, 1}, {18, 1}, {28, 2}});
  CHECK(g.per_rank[2].tuples == std::vector<Tuple>{{0, 1}, {7, 1}, {9, 2}, {20, 1}, {23, 2}, {27, 1}});
  CHECK(g.per_rank[3].tuples ==
        std::vector<Tuple>{{1, 1}, {4, 1}, {8, 1}, {12, 1}, {19, 1}, {22, 1}, {25, 1}, {30, 1}});

  for (int np : {1, 2, 4, 8}) {
    for (std::uint64_t seed : {1u, 2u, 99u}) {
      const std::int64_t nx = 3 * np * np * 2;
      const Distribution d = irregular(nx, np, seed);
      CHECK(check_partition(d).empty());
      for (const Datatype& dt : d.per_rank) {
        CHECK(dt.count == 1);
        std::vector<std::int64_t> counts(static_cast<std::size_t>(np));
        count_per_piece(dt, nx / np, counts);
        for (std::int64_t c : counts) CHECK(c == nx / np / np);
        const auto l = logicals(dt);
        CHECK(std::is_sorted(l.begin(), l.end()));
        for (std::size_t i = 1; i < dt.tuples.size(); ++i)  // merged: no two tuples are adjacent
          CHECK(dt.tuples[i - 1].offset + dt.tuples[i - 1].length < dt.tuples[i].offset);
      }
      const Distribution again = irregular(nx, np, seed);
      for (int r = 0; r < np; ++r)
        CHECK(again.per_rank[static_cast<std::size_t>(r)] == d.per_rank[static_cast<std::size_t>(r)]);
    }
  }
  CHECK_FALSE(irregular(64, 4, 1).per_rank[0] == irregular(64, 4, 2).per_rank[0]);
  CHECK(message_of([] { irregular(24, 4, 1); }) == "irregular needs Nx divisible by Np^2 (Nx=24, Np=4)");
}

TEST_CASE("from_lists validates a partition, naming the first missing or duplicated entry",
          "[distribution]") {
  const Distribution d = from_lists(6, {{{4, 2}, {0, 1}}, {{1, 3}}});
  CHECK(logicals(d.per_rank[0]) == std::vector<std::int64_t>{4, 5, 0});
  CHECK(logicals(d.per_rank[1]) == std::vector<std::int64_t>{1, 2, 3});

  CHECK_THAT(message_of([] {
               from_lists(6, {{{0, 2}}, {{3, 3}}});
             }),
             Catch::Contains("partition [0, Nx)") && Catch::Contains("entry 2 of x is held by no rank"));
  CHECK_THAT(message_of([] {
               from_lists(6, {{{0, 3}}, {{2, 4}}});
             }),
             Catch::Contains("entry 2 of x is held by ranks 0 and 1"));
  CHECK_THAT(message_of([] {
               from_lists(6, {{{0, 3}, {1, 1}}, {{3, 3}}});
             }),
             Catch::Contains("entry 1 of x is held by rank 0 twice"));
  CHECK_THAT(message_of([] { from_lists(6, {{{0, 3}}, {{3, 4}}}); }), Catch::Contains("outside [0, Nx)"));
  CHECK_THAT(message_of([] { from_lists(6, {{{0, 5}}}); }), Catch::StartsWith("the lists must partition"));
  CHECK(message_of([] { from_lists(6, {{{0, 6}}, {}}); }) == "<no exception>");  // an empty rank is allowed
}

TEST_CASE("check_partition agrees between its sorting and bitmap strategies", "[distribution]") {
  // Many single-entry replicas take the bitmap path, few long tuples the sorting path.
  Distribution many = block_cyclic(64, 4, 1);
  CHECK(check_partition(many).empty());
  many.per_rank[1].tuples[0].offset = 0;  // rank 1 now holds 0,4,...; 1,5,... are missing
  CHECK(check_partition(many) ==
        "entry 0 of x is held by ranks 0 and 1 (each entry must be held exactly once)");
  many.per_rank[0].tuples[0].offset = 1;  // ranks 0 and 1 swapped: a partition again
  CHECK(check_partition(many).empty());
  many.per_rank[1].tuples[0].offset = 2;  // ranks 1 and 2 hold 2,6,...; 0,4,... are missing
  CHECK(check_partition(many) == "entry 0 of x is held by no rank (Nx=64)");
  many.per_rank[3].tuples[0].offset = 0;  // 0,4,... back, 3,7,... missing: the duplicate 2 comes first
  CHECK(check_partition(many) ==
        "entry 2 of x is held by ranks 1 and 2 (each entry must be held exactly once)");

  Distribution few = from_lists(1000, {{{0, 500}}, {{500, 500}}});
  few.per_rank[1].tuples[0] = {499, 500};
  CHECK(check_partition(few) ==
        "entry 499 of x is held by ranks 0 and 1 (each entry must be held exactly once)");
  few.per_rank[1].tuples[0] = {501, 499};
  CHECK(check_partition(few) == "entry 500 of x is held by no rank (Nx=1000)");
  CHECK(check_partition(Distribution{}) == "Nx must be positive (Nx=0)");
  Distribution bad_count = block_cyclic(16, 4, 1);
  bad_count.per_rank[2].count = 0;
  CHECK_THAT(check_partition(bad_count), Catch::Contains("rank 2 has replica count 0"));
}

TEST_CASE("count_per_piece: closed form over replicas equals walking them", "[distribution]") {
  // Pieces of 7 entries; the datatypes have many replicas so the closed form is used; compare with a walk.
  const std::vector<Datatype> cases{
      {{{0, 1}}, 100, 4},          {{{3, 2}, {9, 1}}, 60, 11}, {{{5, 3}}, 40, 3},  // stride == length
      {{{2, 2}, {20, 5}}, 50, 30}, {{{0, 0}, {1, 1}}, 90, 2},
  };
  for (const Datatype& dt : cases) {
    for (std::int64_t npieces : {1, 4, 16}) {
      const std::int64_t piece = 7;
      std::vector<std::int64_t> fast(static_cast<std::size_t>(npieces));
      count_per_piece(dt, piece, fast);
      std::vector<std::int64_t> slow(static_cast<std::size_t>(npieces));
      for (const Tuple& t : dt.flatten())
        for (std::int64_t e = t.offset; e < t.offset + t.length; ++e)
          if (e < piece * npieces) ++slow[static_cast<std::size_t>(e / piece)];
      CHECK(fast == slow);
    }
  }
}

TEST_CASE("entries_before sums the entries of the lower ranks, and stays right when asked again") {
  // Ranks of unequal sizes, each a run of x in rank order, the last taking the rest.
  std::vector<std::vector<Tuple>> lists(8);
  std::int64_t next = 0;
  for (int r = 0; r < 8; ++r) {
    const std::int64_t n = (r * 7) % 5 * 40 + 10 * r;
    lists[static_cast<std::size_t>(r)].push_back(Tuple{next, n});
    next += n;
  }
  lists[7].push_back(Tuple{next, 1000 - next});
  const Distribution d = ciosim::from_lists(1000, lists);
  std::int64_t sum = 0;
  for (int r = 0; r <= d.nprocs(); ++r) {
    CHECK(d.entries_before(r) == sum);
    if (r < d.nprocs()) sum += d.per_rank[static_cast<std::size_t>(r)].size();
  }
  CHECK(d.entries_before(d.nprocs()) == 1000);
  CHECK(d.entries_before(3) == d.entries_before(3));
  Distribution copy = d;
  copy.per_rank.pop_back();  // a different rank count rebuilds the sums
  CHECK(copy.entries_before(copy.nprocs()) == 1000 - d.per_rank.back().size());
  CHECK(d.entries_before(1) != d.entries_before(2) - d.entries_before(1));  // the sizes differ
  CHECK_THROWS_WITH(d.entries_before(9), "entries_before: rank must be in [0, Np] (rank=9, Np=8)");
  CHECK_THROWS(d.entries_before(-1));
}

TEST_CASE(
    "entries_before: ranks on threads asking at once (the tests' in-memory Process) get the same sums") {
  // Each round, 8 threads ask a fresh distribution at once; the first calls build the prefix sums. Built
  // without a lock they raced (a double free under AddressSanitizer, CI 2026-11-26).
  int wrong = 0;
  for (int round = 0; round < 200; ++round) {
    const Distribution d = block_cyclic(64 * 8, 8, 2);
    std::vector<std::int64_t> got(8, -1);
    std::vector<std::thread> threads;
    for (int r = 0; r < 8; ++r)
      threads.emplace_back([&d, &got, r] { got[static_cast<std::size_t>(r)] = d.entries_before(r); });
    for (std::thread& t : threads) t.join();
    for (int r = 0; r < 8; ++r)
      if (got[static_cast<std::size_t>(r)] != 64 * r) ++wrong;
  }
  CHECK(wrong == 0);
}
