// Multiple-Phase Collective I/O without a simulator: Fig. 5's pairing, the STEM-II distribution of Fig. 3,
// the memory layouts of the paper's small examples (Figs. 3 and 4) after each phase, eq. (1)'s exchanged
// entries, and properties of the closed-form datatypes over uneven layouts (Singh et al.,
// PDP 2007). The figures are drawings whose layouts the paper's text does not spell out; the expected layouts
// below are derived by hand from §4's description (Fortran order, y block-distributed, half of the data
// swapped with the Fig. 5 partner per phase, received entries stored at their own positions).
#include <catch2/catch.hpp>

#include "algorithms/common/butterfly.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/iec/iec.hpp"
#include "algorithms/multiple_phase/multiple_phase.hpp"

using namespace ciosim;
namespace mp = ciosim::multiple_phase;

namespace {

constexpr std::int64_t X = -1;  // an unassigned memory entry (a gap of Fig. 3)

mp::Layout layout(const Distribution& d) {
  mp::Layout l;
  const std::string why = mp::layout_of(d, l);
  INFO(why);
  REQUIRE(why.empty());
  return l;
}

/// Every entry of x is held by exactly one rank after k phases.
void check_held_partition(const Distribution& d, const mp::Layout& l, int k) {
  Distribution held;
  held.nx = d.nx;
  for (int r = 0; r < d.nprocs(); ++r) held.per_rank.push_back(mp::held(l, r, k));
  INFO("k = " << k);
  CHECK(check_partition(held) == "");
}

}  // namespace

TEST_CASE("Fig. 5: the target processor of each phase (Np = 4: rank 0 pairs with 1, then 2)", "[mp]") {
  CHECK(butterfly::partner(0, 0) == 1);
  CHECK(butterfly::partner(0, 1) == 2);
  const int expected[4][2] = {{1, 2}, {0, 3}, {3, 0}, {2, 1}};  // Fig. 5 applied by hand to Np = 4
  for (int p = 0; p < 4; ++p)
    for (int ph = 0; ph < 2; ++ph) CHECK(butterfly::partner(p, ph) == expected[p][ph]);
  for (int p = 0; p < 64; ++p)
    for (int ph = 0; ph < 6; ++ph) {
      const int q = butterfly::partner(p, ph);
      CHECK(butterfly::partner(q, ph) == p);  // a pairing
      CHECK((q ^ p) == (1 << ph));            // differing in bit ph only
      CHECK(butterfly::is_lower(p, ph) == (p % (2 << ph) < (1 << ph)));
      CHECK(iec::partner(p, ph) == q);  // IEC's butterfly is the same pairing in the same order
    }
  CHECK_THROWS_AS(butterfly::partner(-1, 0), std::invalid_argument);
  CHECK(butterfly::phases(16) == 4);
  CHECK(butterfly::check_ranks(6, "multiple-phase").find("power-of-two") != std::string::npos);
}

TEST_CASE("stem2: Fortran order, y block-distributed, uneven blocks to the first ranks", "[mp][stem2]") {
  // Fig. 3: Nx = 2, Ny = 4, Nz = 2, Nl = Nph = 1 over 2 processors: entry (x, y, z) is x + 2y + 8z.
  const Distribution d = stem2(2, 4, 2, 1, 1, 2);
  CHECK(d.nx == 16);
  CHECK(d.per_rank[0] == Datatype{{{0, 4}}, 2, 8});  // y = 0, 1 of both z planes
  CHECK(d.per_rank[1] == Datatype{{{4, 4}}, 2, 8});  // y = 2, 3
  // Ny = 61 over 16 ranks (SL1): 13 ranks of 4 rows, then 3 of 3.
  std::int64_t next = 0;
  for (int p = 0; p < 16; ++p) {
    const auto [y0, y1] = block_rows(61, 16, p);
    CHECK(y0 == next);
    CHECK(y1 - y0 == (p < 13 ? 4 : 3));
    next = y1;
  }
  CHECK(next == 61);
  const Distribution sl1 = stem2(61, 61, 15, 56, 3, 16);
  CHECK(sl1.nx * 4 == 37'507'680);  // Table 1: 35.7 MB (MiB) of 4-byte reals
  CHECK(check_partition(sl1) == "");
  CHECK(sl1.per_rank[13] == Datatype{{{52 * 61, 3 * 61}}, 15 * 56 * 3, 61 * 61});
  // More ranks than rows: the last ones hold nothing, and it is still a partition.
  const Distribution thin = stem2(3, 2, 2, 1, 1, 4);
  CHECK(thin.per_rank[2].size() == 0);
  CHECK(check_partition(thin) == "");
  CHECK_THROWS_WITH(stem2(2, 0, 2, 1, 1, 2), Catch::Contains("ny=0"));
}

TEST_CASE("Fig. 3: two processors, memory before and after the phase", "[mp]") {
  const Distribution d = stem2(2, 4, 2, 1, 1, 2);
  using M = std::vector<std::vector<std::int64_t>>;
  // Each processor holds the whole array with gaps where the other's rows are (Fig. 3).
  CHECK(mp::simulate_memory(d, 0) == M{{0, 1, 2, 3, X, X, X, X, 8, 9, 10, 11, X, X, X, X},
                                       {X, X, X, X, 4, 5, 6, 7, X, X, X, X, 12, 13, 14, 15}});
  // One phase (log2 2): rank 0 keeps plane z = 0 and receives rank 1's part of it; rank 1 takes z = 1.
  CHECK(mp::simulate_memory(d, 1) == M{{0, 1, 2, 3, 4, 5, 6, 7, X, X, X, X, X, X, X, X},
                                       {X, X, X, X, X, X, X, X, 8, 9, 10, 11, 12, 13, 14, 15}});
  const mp::Layout l = layout(d);
  CHECK(mp::held(l, 0, 1) == Datatype{{{0, 8}}, 1, 0});  // one contiguous block each
  CHECK(mp::held(l, 1, 1) == Datatype{{{8, 8}}, 1, 0});
}

TEST_CASE("Fig. 4: four processors, memory after each phase", "[mp]") {
  // Nx = 1, Ny = 4, Nz = 4: entry (y, z) is y + 4z; processor p holds y = p: p, p+4, p+8, p+12.
  const Distribution d = stem2(1, 4, 4, 1, 1, 4);
  using M = std::vector<std::vector<std::int64_t>>;
  CHECK(mp::simulate_memory(d, 0) == M{{0, X, X, X, 4, X, X, X, 8, X, X, X, 12, X, X, X},
                                       {X, 1, X, X, X, 5, X, X, X, 9, X, X, X, 13, X, X},
                                       {X, X, 2, X, X, X, 6, X, X, X, 10, X, X, X, 14, X},
                                       {X, X, X, 3, X, X, X, 7, X, X, X, 11, X, X, X, 15}});
  // Phase 0 (pairs 0-1, 2-3): the lower rank keeps z = 0, 1, the upper z = 2, 3; each takes its partner's
  // rows of its planes into its gaps.
  CHECK(mp::simulate_memory(d, 1) == M{{0, 1, X, X, 4, 5, X, X, X, X, X, X, X, X, X, X},
                                       {X, X, X, X, X, X, X, X, 8, 9, X, X, 12, 13, X, X},
                                       {X, X, 2, 3, X, X, 6, 7, X, X, X, X, X, X, X, X},
                                       {X, X, X, X, X, X, X, X, X, X, 10, 11, X, X, 14, 15}});
  // Phase 1 (pairs 0-2, 1-3): one whole plane each, rank r plane bitrev(r), as IEC's file_offset.
  CHECK(mp::simulate_memory(d, 2) == M{{0, 1, 2, 3, X, X, X, X, X, X, X, X, X, X, X, X},
                                       {X, X, X, X, X, X, X, X, 8, 9, 10, 11, X, X, X, X},
                                       {X, X, X, X, 4, 5, 6, 7, X, X, X, X, X, X, X, X},
                                       {X, X, X, X, X, X, X, X, X, X, X, X, 12, 13, 14, 15}});
  const mp::Layout l = layout(d);
  for (int r = 0; r < 4; ++r) CHECK(mp::held(l, r, 2).tuples.front().offset == iec::file_offset(r, 16, 4));
  // After one phase the write is non-contiguous: rank 0 writes {0,2} and {4,2} through its view.
  CHECK(mp::held(l, 0, 1) == Datatype{{{0, 2}}, 2, 4});
}

TEST_CASE("eq. (1): every rank exchanges Nx*Ny*Nz*Nl*Nph/(2Np) entries in every phase", "[mp]") {
  struct Shape {
    std::int64_t nx, ny, nz, nl, nph;
    int np;
  };
  for (const Shape& s : {Shape{1, 4, 4, 1, 1, 4}, Shape{2, 4, 2, 1, 1, 2}, Shape{3, 8, 4, 2, 2, 8},
                         Shape{5, 16, 2, 4, 2, 16}}) {
    const Distribution d = stem2(s.nx, s.ny, s.nz, s.nl, s.nph, s.np);
    const mp::Layout l = layout(d);
    const std::int64_t nee = s.nx * s.ny * s.nz * s.nl * s.nph / (2 * s.np);
    for (int ph = 0; ph < butterfly::phases(s.np); ++ph)
      for (int r = 0; r < s.np; ++r) {
        INFO("Np " << s.np << " rank " << r << " phase " << ph);
        const mp::Step st = mp::step(l, r, ph);
        CHECK(st.send.size() == nee);
        CHECK(st.recv.size() == nee);
        CHECK(st.partner == butterfly::partner(r, ph));
      }
  }
  // SL1 over 8 ranks: Ny = 61 is uneven, so ranks exchange different amounts, but each still sends half of
  // what it holds ("each processor exchanges an amount of data equal to half of its assigned data"), and
  // the pairs' messages match.
  const Distribution sl1 = stem2(61, 61, 15, 56, 3, 8);
  const mp::Layout l = layout(sl1);
  for (int ph = 0; ph < 3; ++ph) {
    std::int64_t sent = 0;
    for (int r = 0; r < 8; ++r) {
      const mp::Step st = mp::step(l, r, ph);
      CHECK(2 * st.send.size() == mp::held(l, r, ph).size());
      CHECK(st.recv.size() == mp::step(l, st.partner, ph).send.size());
      sent += st.send.size();
    }
    CHECK(sent == sl1.nx / 2);
  }
}

TEST_CASE("uneven layouts: the held pieces partition x after every phase, all phases give one block",
          "[mp]") {
  struct Case {
    Distribution d;
    const char* what;
  };
  for (const Case& c : {Case{stem2(61, 61, 15, 56, 3, 16), "SL1 over 16 (W = 2520 planes, uneven halves)"},
                        Case{stem2(2, 5, 3, 1, 1, 4), "Ny = 5 over 4, W = 3"},
                        Case{stem2(3, 2, 2, 1, 1, 8), "more ranks than rows"},
                        Case{block_cyclic(96, 4, 3), "block-cyclic"}}) {
    INFO(c.what);
    const mp::Layout l = layout(c.d);
    const int all = butterfly::phases(c.d.nprocs());
    for (int k = 0; k <= all; ++k) check_held_partition(c.d, l, k);
    for (int r = 0; r < c.d.nprocs(); ++r) CHECK(mp::held(l, r, all).tuples.size() <= 1);
  }
  // Real data through the datatypes: every held entry holds its own index after every phase.
  const Distribution d = stem2(2, 5, 3, 1, 2, 4);
  const mp::Layout l = layout(d);
  for (int k = 0; k <= 2; ++k) {
    const auto mem = mp::simulate_memory(d, k);
    for (int r = 0; r < 4; ++r) {
      std::vector<std::int64_t> expect(static_cast<std::size_t>(d.nx), X);
      for (const Tuple& t : mp::held(l, r, k).flatten())
        for (std::int64_t i = t.offset; i < t.offset + t.length; ++i) expect[static_cast<std::size_t>(i)] = i;
      CHECK(mem[static_cast<std::size_t>(r)] == expect);
    }
  }
}

TEST_CASE("multiple-phase refuses what it cannot run with one line naming the constraint", "[mp]") {
  CHECK(mp::check(stem2(2, 6, 2, 1, 1, 6)).find("power-of-two") != std::string::npos);
  const std::string why = mp::check(block3d(4, 4, 4, 8));
  CHECK(why.find("regular distribution") != std::string::npos);
  CHECK(why.find('\n') == std::string::npos);
  CHECK(mp::check(stem2(61, 61, 15, 56, 3, 16)) == "");
  CHECK(mp::check_phases(0, 16) == "");
  CHECK(mp::check_phases(4, 16) == "");
  CHECK(mp::check_phases(5, 16).find("valid: 1..4") != std::string::npos);
  CHECK(mp::check_phases(0, 12).find("power-of-two") != std::string::npos);
  CHECK(mp::phases_to_run(0, 16) == 4);
  CHECK(mp::phases_to_run(2, 16) == 2);
}
