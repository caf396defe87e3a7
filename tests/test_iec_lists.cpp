// The IEC inspector's periodic lists (the datatype parametrisation of §3.3.2 of Singh, Isaila, Pichel,
// Carretero, "A collective I/O implementation based on inspector-executor paradigm", J. Supercomputing
// 47(1):53-75, 2009): held as one period's runs and a replica count, the list must give the same plans and
// charge the same tuples, step by step, as the flat list that holds every run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/common/distribution.hpp"
#include "algorithms/iec/iec.hpp"

using namespace ciosim;

namespace {

using Lists = iec::Inspector::Lists;

/// splitmix64: next(bound) is a number in [0, bound).
struct Rng {
  std::uint64_t state;
  std::uint64_t operator()(std::uint64_t bound) {
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) % bound;
  }
};

/// Runs every rank's inspector both ways in lock step; requires equal bundles' sizes, equal tuples
/// processed after every step and equal plans. Returns the largest replica count the periodic lists held
/// after a phase (1: they never stayed periodic).
std::int64_t require_same_plans(const Distribution& d) {
  const int np = d.nprocs();
  std::vector<iec::Inspector> periodic;
  std::vector<iec::Inspector> flat;
  for (int r = 0; r < np; ++r) {
    periodic.emplace_back(d, r, Lists::periodic);
    flat.emplace_back(d, r, Lists::flat);
    REQUIRE(periodic.back().tuples_processed() == flat.back().tuples_processed());
    REQUIRE(flat.back().list_replicas() == 1);
  }
  std::int64_t most = 1;
  for (int ph = 0; ph < periodic.front().phases(); ++ph) {
    std::vector<iec::BundlePtr> pb(static_cast<std::size_t>(np));
    std::vector<iec::BundlePtr> fb(static_cast<std::size_t>(np));
    for (std::size_t r = 0; r < pb.size(); ++r) {
      pb[r] = periodic[r].outgoing(ph);
      fb[r] = flat[r].outgoing(ph);
      INFO("phase " << ph << " rank " << r << " outgoing");
      REQUIRE(pb[r]->serialize_words() == fb[r]->serialize_words());
      REQUIRE(periodic[r].tuples_processed() == flat[r].tuples_processed());
    }
    for (std::size_t r = 0; r < pb.size(); ++r) {
      const auto from = static_cast<std::size_t>(iec::partner(static_cast<int>(r), ph));
      periodic[r].incoming(ph, pb[from]);
      flat[r].incoming(ph, fb[from]);
      INFO("phase " << ph << " rank " << r << " incoming");
      REQUIRE(periodic[r].tuples_processed() == flat[r].tuples_processed());
      most = std::max(most, periodic[r].list_replicas());
    }
  }
  for (std::size_t r = 0; r < periodic.size(); ++r) {
    const iec::RankPlan a = periodic[r].finish();
    const iec::RankPlan b = flat[r].finish();
    INFO("rank " << r << " plan");
    REQUIRE(a.pack == b.pack);
    REQUIRE(a.file_offset == b.file_offset);
    REQUIRE(a.phases.size() == b.phases.size());
    for (std::size_t ph = 0; ph < a.phases.size(); ++ph) {
      CHECK(a.phases[ph].send == b.phases[ph].send);
      CHECK(a.phases[ph].recv_offset == b.phases[ph].recv_offset);
    }
    REQUIRE(periodic[r].tuples_processed() == flat[r].tuples_processed());
  }
  return most;
}

}  // namespace

TEST_CASE("periodic lists: block-cyclic plans and tuple counts equal the flat list's", "[iec][lists]") {
  int stayed_periodic = 0;
  for (int np : {1, 2, 4, 8, 16, 32}) {
    for (std::int64_t bx : {1, 2, 3, 8}) {
      for (std::int64_t m : {1, 2, 3, 4, 5, 12}) {  // odd m: replica counts that cannot halve every phase
        const std::int64_t nx = static_cast<std::int64_t>(np) * np * bx * m;
        INFO("Nx=" << nx << " Np=" << np << " Bx=" << bx);
        if (require_same_plans(block_cyclic(nx, np, bx)) > 1) ++stayed_periodic;
      }
    }
  }
  CHECK(stayed_periodic > 60);  // most of the 144 cases kept the periodic form through a phase
}

TEST_CASE("periodic lists: a block-cyclic list stays one run per stream, 2^(ph+1) after phase ph",
          "[iec][lists]") {
  // Nx = 64 * Np^2 entries with Bx = 1: the paper's Property 1 (2^ph tuples sent in phase ph) says the
  // list is 2^(ph+1) streams after phase ph; the flat list holds Nx/Np single-entry runs instead.
  const int np = 16;
  const Distribution d = block_cyclic(64 * np * np, np, 1);
  iec::Inspector periodic(d, 5);
  iec::Inspector flat(d, 5, Lists::flat);
  CHECK(periodic.list_runs() == 1);
  CHECK(periodic.list_replicas() == 64 * np);
  CHECK(flat.list_runs() == std::size_t(64 * np));
  std::vector<iec::Inspector> all;
  for (int r = 0; r < np; ++r) all.emplace_back(d, r);
  for (int ph = 0; ph < all.front().phases(); ++ph) {
    std::vector<iec::BundlePtr> out;
    for (auto& i : all) out.push_back(i.outgoing(ph));
    for (int r = 0; r < np; ++r)
      all[static_cast<std::size_t>(r)].incoming(ph, out[std::size_t(iec::partner(r, ph))]);
    for (auto& i : all) {
      CHECK(i.list_runs() == std::size_t(2) << ph);
      CHECK(i.list_replicas() == 64 * np >> (ph + 1));
    }
  }
}

TEST_CASE("periodic lists: block_cyclic_stays_periodic says when a list keeps at most 2 Np runs",
          "[iec][lists]") {
  // The memory estimate (config/resources.cpp) counts Np/2 tuples per rank (measured) where the rule says
  // the list stays periodic: the inspector must then hold at most 2 Np runs, and where it says otherwise, a
  // list holding an entry-run per block must have been unrolled (so the estimate counts them all).
  int periodic_shapes = 0, unrolled_shapes = 0;
  for (int np : {2, 4, 8, 16}) {
    for (std::int64_t bx : {1, 3}) {
      for (std::int64_t m : {1, 2, 3, 4, 6, 8, 12, 16, 36, 40, 44, 72, 100}) {
        const std::int64_t nx = static_cast<std::int64_t>(np) * bx * m;
        if (nx % (2 * np) != 0) continue;  // IEC's own requirement
        INFO("Nx=" << nx << " Np=" << np << " Bx=" << bx);
        const Distribution d = block_cyclic(nx, np, bx);
        std::vector<iec::Inspector> all;
        std::size_t most_runs = 0;
        for (int r = 0; r < np; ++r) {
          all.emplace_back(d, r);
          most_runs = std::max(most_runs, all.back().list_runs());
        }
        for (int ph = 0; ph < all.front().phases(); ++ph) {
          std::vector<iec::BundlePtr> out;
          for (auto& i : all) out.push_back(i.outgoing(ph));
          for (int r = 0; r < np; ++r) {
            iec::Inspector& i = all[static_cast<std::size_t>(r)];
            i.incoming(ph, out[std::size_t(iec::partner(r, ph))]);
            most_runs = std::max(most_runs, i.list_runs());
          }
        }
        if (iec::block_cyclic_stays_periodic(nx, np, bx)) {
          ++periodic_shapes;
          CHECK(most_runs <= std::size_t(2 * np));
        } else if (m > 2 * np) {
          ++unrolled_shapes;
          CHECK(most_runs > std::size_t(2 * np));
        }
      }
    }
  }
  CHECK(periodic_shapes > 20);
  CHECK(unrolled_shapes > 5);
  CHECK_FALSE(iec::block_cyclic_stays_periodic(48, 3, 1));  // Np not a power of two
  CHECK_FALSE(iec::block_cyclic_stays_periodic(50, 4, 4));  // Nx not a multiple of Np Bx
}

TEST_CASE("periodic lists: irregular, unsorted and replicated distributions", "[iec][lists]") {
  for (int np : {2, 4, 8, 16})
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      INFO("irregular Np=" << np << " seed=" << seed);
      require_same_plans(irregular(static_cast<std::int64_t>(np) * np * 4, np, seed));
    }
  // Rank r holds two runs per period, stored high one first: the replica is not ascending, so the list
  // starts flat (sorted by the radix sort, charged Nx/Np more tuples).
  {
    const int np = 4;
    Distribution d = block_cyclic(16 * 16, np, 2);
    for (Datatype& dt : d.per_rank) {
      const Tuple t = dt.tuples.front();
      dt.tuples = {{t.offset + 1, 1}, {t.offset, 1}};
    }
    REQUIRE(iec::check(d) == "");
    CHECK(require_same_plans(d) == 1);
  }
  // An hvector with two tuples per replica (each rank holds two blocks of every period of 2*Np blocks).
  {
    const int np = 8;
    const std::int64_t bx = 2;
    std::vector<Datatype> per_rank;
    for (int r = 0; r < np; ++r)
      per_rank.push_back(Datatype{{{r * bx, bx}, {(np + r) * bx, bx}}, 32, 2 * np * bx});
    Distribution d;
    d.nx = 32 * 2 * np * bx;
    d.per_rank = per_rank;
    REQUIRE(iec::check(d) == "");
    CHECK(require_same_plans(d) > 1);
  }
  // STEM-II arrays whose rows split evenly: one run per rank, replicated over z, l and the chemical species.
  int accepted = 0;
  for (auto [ny, np] : {std::pair<std::int64_t, int>{8, 4}, {16, 8}, {32, 4}, {12, 4}}) {
    const Distribution d = stem2(8, ny, 4, 2, 4, np);
    if (!iec::check(d).empty()) continue;
    ++accepted;
    INFO("stem2 Ny=" << ny << " Np=" << np);
    require_same_plans(d);
  }
  CHECK(accepted > 0);
}

TEST_CASE("periodic lists: random replicated patterns equal the flat list's", "[iec][lists]") {
  // Each rank holds c random slots of every period of Np*c entries (merged into ascending tuples), the
  // period replicated Np*m times: an hvector per rank that IEC accepts. Some ranks store their tuples
  // backwards, so their lists start flat while their partners' stay periodic.
  Rng next{0x9e3779b97f4a7c15ULL};
  int periodic_runs = 0;
  for (int np : {2, 4, 8, 16})
    for (std::int64_t c : {1, 2, 3})
      for (std::int64_t m : {1, 2, 3})
        for (int trial = 0; trial < 4; ++trial) {
          const std::int64_t period = np * c;
          std::vector<int> owner(static_cast<std::size_t>(period));
          for (std::int64_t i = 0; i < period; ++i)
            owner[static_cast<std::size_t>(i)] = static_cast<int>(i / c);
          for (std::size_t i = owner.size() - 1; i > 0; --i) std::swap(owner[i], owner[next(i + 1)]);
          Distribution d;
          d.nx = period * np * m;
          for (int r = 0; r < np; ++r) {
            std::vector<Tuple> tuples;
            for (std::int64_t i = 0; i < period; ++i) {
              if (owner[static_cast<std::size_t>(i)] != r) continue;
              if (!tuples.empty() && tuples.back().offset + tuples.back().length == i)
                ++tuples.back().length;
              else
                tuples.push_back({i, 1});
            }
            if (next(3) == 0) std::reverse(tuples.begin(), tuples.end());
            d.per_rank.push_back(Datatype{tuples, np * m, period});
          }
          INFO("Np=" << np << " c=" << c << " m=" << m << " trial " << trial);
          REQUIRE(iec::check(d) == "");
          if (require_same_plans(d) > 1) ++periodic_runs;
        }
  CHECK(periodic_runs > 40);  // of 144 distributions
}

TEST_CASE("nested descriptors: a segment's tuples resolved together give the flat list's plans and counts",
          "[iec][lists]") {
  // At Nx = Np^2 (and multiples) with Np >= 64 the partner's send datatypes are progressions of many tuples,
  // each from another origin rank, which the periodic inspector follows down the bundles together
  // (iec_inspector.cpp, resolve_progression); the flat inspector resolves them one entry range at a time.
  for (int np : {64, 128})
    for (std::int64_t bx : {1, 2})
      for (std::int64_t m : {1, 4}) {
        const std::int64_t nx = std::int64_t{np} * np * bx * m;
        INFO("Nx=" << nx << " Np=" << np << " Bx=" << bx);
        CHECK(require_same_plans(block_cyclic(nx, np, bx)) > 1);
      }
}

TEST_CASE("nested descriptors: at Nx = Np^2 a rank's plan is O(log Np) segments, not O(Np) tuples",
          "[iec][lists]") {
  // Bx = 1 and Nx = Np^2: every rank ends with one entry from each rank, so its packing datatype has about
  // Np/2 tuples and its send datatypes about Np in all (docs/history/benchmarks-log.md). They follow one
  // progression per memory region, so held as strided segments they stay O(Nph) per datatype.
  for (int np : {64, 256}) {
    const int nph = iec::num_phases(np);
    const std::vector<iec::RankPlan> plans = iec::inspect_all(block_cyclic(std::int64_t{np} * np, np, 1));
    std::size_t most_pack = 0;
    std::size_t most_sends = 0;
    std::int64_t pack_tuples = 0;
    for (const iec::RankPlan& p : plans) {
      most_pack = std::max(most_pack, p.pack.segments().size());
      std::size_t sends = 0;
      for (const iec::Phase& ph : p.phases) sends += ph.send.segments().size();
      most_sends = std::max(most_sends, sends);
      pack_tuples = std::max(pack_tuples, p.pack.tuples());
    }
    INFO("Np=" << np << ": at most " << most_pack << " packing segments (" << pack_tuples << " tuples), "
               << most_sends << " send segments over " << nph << " phases");
    CHECK(pack_tuples >= np / 2);  // the flat form is O(Np)
    // Measured: 6 packing and 16 send segments at Np = 64, 8 and 29 at Np = 256.
    CHECK(most_pack <= std::size_t(nph + 1));
    CHECK(most_sends <= std::size_t(nph * (nph + 1) / 2 + nph));
  }
}

TEST_CASE("nested descriptors: corrupted bundles are refused or resolved as the flat lists resolve them",
          "[iec][lists]") {
  // A bundle that arrives as words (real MPI) can be anything. Corrupt one word at a time of a phase-2
  // bundle at Nx = Np^2, whose send datatypes are progressions, with values near the int64 limits: the
  // periodic inspector (a segment at a time) and the flat one (a tuple at a time) refuse it alike or count
  // the same tuples; the sanitizer build checks that neither overflows nor reads outside a datatype.
  const int np = 64;
  const Distribution d = block_cyclic(std::int64_t{np} * np, np, 1);
  std::vector<iec::Inspector> periodic;
  std::vector<iec::Inspector> flat;
  for (int r = 0; r < np; ++r) {
    periodic.emplace_back(d, r);
    flat.emplace_back(d, r, Lists::flat);
  }
  std::vector<std::vector<std::int64_t>> words(static_cast<std::size_t>(np));
  for (int ph = 0; ph < 3; ++ph) {
    for (int r = 0; r < np; ++r) {
      words[std::size_t(r)] = periodic[std::size_t(r)].outgoing(ph)->serialize_words();
      REQUIRE(flat[std::size_t(r)].outgoing(ph)->serialize_words() == words[std::size_t(r)]);
    }
    if (ph == 2) break;
    for (int r = 0; r < np; ++r) {
      periodic[std::size_t(r)].incoming(ph, words[std::size_t(iec::partner(r, ph))]);
      flat[std::size_t(r)].incoming(ph, words[std::size_t(iec::partner(r, ph))]);
    }
  }
  const std::vector<std::int64_t>& good = words[std::size_t(iec::partner(5, 2))];
  Rng next{12345};
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  auto outcome = [](iec::Inspector insp, const std::vector<std::int64_t>& w) -> std::int64_t {
    try {
      insp.incoming(2, w);
      return insp.tuples_processed();
    } catch (const std::exception&) {
      return -1;
    }
  };
  int refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<std::int64_t> bad = good;
    const std::size_t at = next(bad.size());
    const std::int64_t w = bad[at];
    const std::int64_t choices[] = {0,    -1,    1,     big,   big - 1,
                                    -big, w + 1, w - 1, w * 2, static_cast<std::int64_t>(next(4096))};
    bad[at] = choices[next(std::size(choices))];
    const std::int64_t a = outcome(periodic[5], bad);
    INFO("trial " << trial << ": word " << at << " set to " << bad[at]);
    CHECK(a == outcome(flat[5], bad));
    if (a < 0) ++refused;
  }
  CHECK(refused > 0);  // some corruptions must be caught
  CHECK(refused < 400);
}
