// IEC's plans by parametrisation (Singh et al., J. Supercomputing 2009, §3.3.2): every rank's plan computed
// from Nx, Np and Bx alone must equal the inspector's in every field, and the paper's Properties 1-3 hold
// for rank 0's send datatypes.
#include <catch2/catch.hpp>

#include "algorithms/common/distribution.hpp"
#include "algorithms/iec/iec.hpp"
#include "sim/simulate.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

void require_same(const iec::RankPlan& a, const iec::RankPlan& b) {
  REQUIRE(a.rank == b.rank);
  CHECK(a.alloc_offset == b.alloc_offset);
  CHECK(a.buffer_entries == b.buffer_entries);
  CHECK(a.file_offset == b.file_offset);
  REQUIRE(a.phases.size() == b.phases.size());
  for (std::size_t k = 0; k < a.phases.size(); ++k) {
    INFO("phase " << k);
    CHECK(a.phases[k].partner == b.phases[k].partner);
    CHECK(a.phases[k].recv_offset == b.phases[k].recv_offset);
    CHECK(a.phases[k].send == b.phases[k].send);
  }
  CHECK(a.pack == b.pack);  // tuples, count and stride
}

void check_shape(std::int64_t nx, int np, std::int64_t bx) {
  INFO("Nx=" << nx << " Np=" << np << " Bx=" << bx);
  const Distribution d = block_cyclic(nx, np, bx);
  REQUIRE(iec::block_cyclic_bx(d) == bx);
  REQUIRE(iec::check_parametric(d).empty());
  const std::vector<iec::RankPlan> ref = iec::inspect_all(d);
  for (int r = 0; r < np; ++r) {
    INFO("rank " << r);
    require_same(iec::parametric_plan(nx, np, bx, r), ref[static_cast<std::size_t>(r)]);
  }
}

}  // namespace

TEST_CASE("parametrised plans equal the inspector's on every small block-cyclic shape IEC runs",
          "[iec][parametric]") {
  // Every Np <= 16, Bx <= 6 and Nx up to 4 Np^2 Bx (as multiples of Np Bx) that IEC accepts, including
  // shapes whose replica count goes odd on the way (the inspector unrolls its list there).
  int shapes = 0;
  for (int np = 1; np <= 16; np *= 2)
    for (std::int64_t bx = 1; bx <= 6; ++bx)
      for (std::int64_t nx = np * bx; nx <= 4 * np * np * bx; nx += np * bx) {
        if (!iec::check(block_cyclic(nx, np, bx)).empty()) continue;
        check_shape(nx, np, bx);
        ++shapes;
      }
  CHECK(shapes >= 120);  // 120 shapes on this grid
}

TEST_CASE("parametrised plans equal the inspector's at larger Np and Nx", "[iec][parametric]") {
  check_shape(64 * 64, 64, 1);                // Nx = Np^2: one entry per stream in the last phase
  check_shape(3 * 64 * 64 * 2, 64, 2);        // odd replica counts
  check_shape(128 * 128 * 4, 128, 1);         // several replicas
  check_shape(256 * 256, 256, 1);             // 8 phases
  check_shape(26214400 / 64, 16, 64);         // compare-100mb's shape, 1/64 of the entries
  check_shape(16 * 16 * 1024 * 3, 16, 1024);  // large blocks
}

TEST_CASE("rank 0's parametrised send datatypes follow Properties 1-3 of §3.3.2", "[iec][parametric]") {
  for (const auto& [np, nx] : {std::pair<int, std::int64_t>{8, 64}, {16, 1024}, {64, 3 * 64 * 64}}) {
    INFO("Np=" << np << " Nx=" << nx);
    const iec::RankPlan p = iec::parametric_plan(nx, np, 1, 0);
    REQUIRE(p.phases.size() == static_cast<std::size_t>(iec::num_phases(np)));
    for (std::size_t ph = 0; ph < p.phases.size(); ++ph) {
      const Datatype dt = p.phases[ph].send.datatype();
      CHECK(dt.tuples.size() == std::size_t{1} << ph);  // Property 1: 2^ph tuples
      for (const Tuple& t : dt.tuples)
        CHECK(t.length == nx / (np * (std::int64_t{2} << ph)));  // Property 3: Nx / (Np 2^(ph+1))
    }
    // Property 2's example: in phase 0 rank 0's tuple starts at a_1 * Nx/Np with a_1 = 0.5.
    CHECK(p.phases[0].send.datatype().tuples[0].offset == nx / np / 2);
    // What the rank is charged: the tuples the equations produce, 2^Nph - 1 send tuples and the packing
    // datatype's.
    CHECK(iec::parametric_tuples(p) ==
          (std::int64_t{1} << p.phases.size()) - 1 + static_cast<std::int64_t>(p.pack.tuples()));
  }
}

TEST_CASE("iec-parametric refuses what is not block-cyclic, and what IEC refuses", "[iec][parametric]") {
  CHECK(iec::block_cyclic_bx(block_cyclic(64, 4, 2)) == 2);
  CHECK(iec::block_cyclic_bx(block_cyclic(8, 4, 2)) == 2);  // one replica
  // The same entries as block-cyclic Bx = 1 but rank 0 and rank 1 swapped: not block-cyclic.
  Distribution swapped = block_cyclic(64, 4, 1);
  std::swap(swapped.per_rank[0], swapped.per_rank[1]);
  CHECK(iec::block_cyclic_bx(swapped) == 0);
  CHECK_THAT(iec::check_parametric(swapped), Catch::StartsWith("iec-parametric needs a block-cyclic"));
  CHECK_THAT(iec::check_parametric(irregular(64, 4, 1)), Catch::Contains("workload.kind = block-cyclic"));
  CHECK(iec::check_parametric(block_cyclic(16, 4, 4)) == iec::check(block_cyclic(16, 4, 4)));
  CHECK_THAT(iec::check_parametric(block_cyclic(48, 6, 1)), Catch::Contains("power-of-two"));
  CHECK_THROWS_AS(iec::parametric_plan(16, 4, 4, 0), std::logic_error);  // no IEC plan: halves uneven
  CHECK_THROWS_AS(iec::parametric_plan(64, 4, 1, 4), std::invalid_argument);
  CHECK_THROWS_AS(iec::parametric_plan(60, 6, 1, 0), std::invalid_argument);
}

TEST_CASE("iec-parametric runs IEC's executor after an inspector without messages",
          "[sim][iec][parametric]") {
  const RunResult r = sim::simulate(test::block_cyclic_spec("iec-parametric", 4096, 4));
  CHECK(r.file_verified);
  // Per rank only the executor's two exchange isends (iec adds two per phase for the bundles).
  CHECK(r.calls.at("isend") == 4 * 2);
  CHECK(r.calls.at("irecv") == 4 * 2);
  CHECK(r.calls.at("file_write") == 4);
  std::vector<std::string> names;
  double inspector = -1;
  for (const auto& p : r.phases) {
    names.push_back(p.name);
    if (p.name == "inspector") inspector = p.time_s;
  }
  CHECK(names == std::vector<std::string>{"open", "inspector", "place", "exchange0", "exchange1", "pack",
                                          "write", "close"});
  // The inspector is the slowest rank's steps of its computation at the platform's cost per tuple, nothing
  // else (run.cpu_charge = implementation, the default).
  std::int64_t most = 0;
  for (int rank = 0; rank < 4; ++rank) {
    std::int64_t steps = 0;
    (void)iec::parametric_plan(4096, 4, 4, rank, &steps);
    most = std::max(most, steps);
  }
  CHECK(inspector == Approx(static_cast<double>(most) * PlatformSpec{}.tuple_cost_s).epsilon(1e-6));
}
