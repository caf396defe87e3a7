// What IEC's inspectors are charged (run.cpu_charge): by default the work of the code that runs — the
// elements its loops visit, counted as they run (Inspector::work(), parametric_plan's steps) — and on
// request the paper's cost, one tuple per list entry at each step (Singh, Isaila, Pichel, Carretero, "A
// collective I/O implementation based on inspector-executor paradigm", J. Supercomputing 47(1), 2009,
// §3.3.3). The simulated inspector's CPU time must be what the counting instrument saw, times the
// platform's cost per tuple.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/common/distribution.hpp"
#include "algorithms/iec/iec.hpp"
#include "sim/simulate.hpp"
#include "tests/result_phase.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

struct Counts {
  std::vector<std::int64_t> work;    ///< per rank: Inspector::work() plus the bundle words sent and parsed
  std::vector<std::int64_t> tuples;  ///< per rank: tuples_processed()
};

/// Steps every rank's inspector in one thread, as the Process-driven inspector does on each rank, and
/// counts what each one's code visited and what the paper's algorithm processes.
Counts step_all(const Distribution& d, iec::Inspector::Lists lists = iec::Inspector::Lists::periodic) {
  std::vector<iec::Inspector> insp;
  for (int r = 0; r < d.nprocs(); ++r) insp.emplace_back(d, r, lists);
  Counts c{std::vector<std::int64_t>(insp.size(), 0), {}};
  std::vector<iec::BundlePtr> out(insp.size());
  for (int ph = 0; ph < insp.front().phases(); ++ph) {
    for (std::size_t r = 0; r < insp.size(); ++r) {
      out[r] = insp[r].outgoing(ph);
      c.work[r] += out[r]->words();  // serialized by the sender
    }
    for (std::size_t r = 0; r < insp.size(); ++r) {
      const auto from = static_cast<std::size_t>(iec::partner(static_cast<int>(r), ph));
      c.work[r] += 2 * out[from]->words();  // parsed and checked by the receiver
      insp[r].incoming(ph, out[from]);
    }
  }
  for (std::size_t r = 0; r < insp.size(); ++r) {
    (void)insp[r].finish();
    c.work[r] += insp[r].work();
    c.tuples.push_back(insp[r].tuples_processed());
  }
  return c;
}

std::int64_t sum(const std::vector<std::int64_t>& v) {
  std::int64_t s = 0;
  for (std::int64_t x : v) s += x;
  return s;
}

constexpr auto* phase = &test::phase_of;

}  // namespace

TEST_CASE("the inspector's work follows its periodic lists, the paper's tuples its entries", "[iec][cost]") {
  // Block-cyclic on 8 ranks, Bx = 64: 64 blocks per rank, then 4096 (64 times the entries).
  const Counts small = step_all(block_cyclic(8 * 64 * 64, 8, 64));
  const Counts large = step_all(block_cyclic(8 * 64 * 4096, 8, 64));
  // The paper's algorithm walks every entry at every step: 64 times the tuples.
  CHECK(sum(large.tuples) > 60 * sum(small.tuples));
  // The periodic lists hold one period's runs and a replica count: the work hardly grows.
  CHECK(sum(large.work) < 2 * sum(small.work));
  CHECK(sum(large.work) * 1000 < sum(large.tuples));
  // The same inspector with flat lists (every run held) walks every block.
  const Counts flat = step_all(block_cyclic(8 * 64 * 4096, 8, 64), iec::Inspector::Lists::flat);
  CHECK(sum(flat.tuples) == sum(large.tuples));  // the paper's count does not depend on the form
  CHECK(sum(flat.work) > 8 * 4096);              // at least every rank's 4096 blocks
  CHECK(sum(flat.work) > 50 * sum(large.work));
}

TEST_CASE("an irregular distribution's inspector works through its entries", "[iec][cost]") {
  // Random ownership of single entries: nothing periodic, every entry a run of its own.
  const Distribution d = irregular(4096, 4, 7);
  const Counts c = step_all(d);
  for (std::size_t r = 0; r < c.work.size(); ++r) CHECK(c.work[r] >= 1024);  // at least its own entries
}

/// The simulated `algorithm`'s inspector CPU time per rank, charged as `cost`. tuple_cost_s = 1 ms, so that
/// the messages' host overheads (microseconds) are below the tolerance of the checks.
std::vector<double> inspector_cpu(const std::string& algorithm, CpuCharge cost) {
  RunSpec s = test::block_cyclic_spec(algorithm, 8 * 16 * 256, 16, 8);
  s.platform.tuple_cost_s = 1e-3;
  s.cpu_charge = cost;
  const RunResult r = sim::simulate(s);
  CHECK(r.file_verified);
  return phase(r, "inspector").rank_cpu_s;
}

void check_charged(const std::vector<double>& cpu, const std::vector<std::int64_t>& expected, double eps) {
  REQUIRE(cpu.size() == expected.size());
  for (std::size_t rank = 0; rank < cpu.size(); ++rank)
    CHECK(cpu[rank] == Approx(static_cast<double>(expected[rank]) * 1e-3).epsilon(eps));
}

/// Each rank's steps of parametric_plan and the tuples of its plan's datatypes, on the shape above.
void parametric_counts(std::vector<std::int64_t>& steps, std::vector<std::int64_t>& tuples) {
  for (int rank = 0; rank < 8; ++rank) {
    std::int64_t w = 0;
    const iec::RankPlan plan = iec::parametric_plan(8 * 16 * 256, 8, 16, rank, &w);
    steps.push_back(w);
    tuples.push_back(iec::parametric_tuples(plan));
  }
}

TEST_CASE("the simulated inspector is charged what the counting instrument saw", "[iec][cost][sim]") {
  const Counts c = step_all(block_cyclic(8 * 16 * 256, 8, 16));
  check_charged(inspector_cpu("iec", CpuCharge::implementation), c.work, 1e-4);
}

TEST_CASE("the simulated inspector charged the paper's way is charged its tuples", "[iec][cost][sim]") {
  const Counts c = step_all(block_cyclic(8 * 16 * 256, 8, 16));
  check_charged(inspector_cpu("iec", CpuCharge::paper), c.tuples, 1e-4);
}

TEST_CASE("iec-parametric is charged its computation's steps", "[iec][cost][sim]") {
  std::vector<std::int64_t> steps, tuples;
  parametric_counts(steps, tuples);
  // O(log^2 Np) steps a rank, whatever Nx: the same with 16 times the periods.
  for (int rank = 0; rank < 8; ++rank) {
    std::int64_t w = 0;
    (void)iec::parametric_plan(8 * 16 * 4096, 8, 16, rank, &w);
    CHECK(w == steps[static_cast<std::size_t>(rank)]);
  }
  check_charged(inspector_cpu("iec-parametric", CpuCharge::implementation), steps, 1e-9);
}

TEST_CASE("iec-parametric charged the paper's way is charged its datatypes' tuples", "[iec][cost][sim]") {
  std::vector<std::int64_t> steps, tuples;
  parametric_counts(steps, tuples);
  check_charged(inspector_cpu("iec-parametric", CpuCharge::paper), tuples, 1e-9);
}

TEST_CASE("the executor's placement is charged in phase place, and not at all the paper's way",
          "[iec][cost][sim]") {
  // Every execution allocates the buffer (zeroed) and copies the rank's entries in: the bytes of both at
  // the platform's memcpy rate. The paper's executor finds the entries in place (Fig. 2 L1-L2).
  RunSpec s = test::block_cyclic_spec("iec-parametric", 8 * 16 * 256, 16, 8);
  s.platform.memcpy_Bps = 1e6;  // 1 MB/s: the placement's microseconds of message overheads are noise
  const RunResult r = sim::simulate(s);
  REQUIRE(r.file_verified);
  const iec::RankPlan plan = iec::parametric_plan(8 * 16 * 256, 8, 16, 0);
  const double bytes = static_cast<double>(plan.buffer_entries * 4 + 16 * 256 * 4);
  for (const double cpu : phase(r, "place").rank_cpu_s) CHECK(cpu == Approx(bytes / 1e6).epsilon(1e-9));
}

TEST_CASE("charged the paper's way, the executor has no place phase", "[iec][cost][sim]") {
  RunSpec s = test::block_cyclic_spec("iec", 8 * 16 * 256, 16, 8);
  s.cpu_charge = CpuCharge::paper;
  const RunResult r = sim::simulate(s);
  REQUIRE(r.file_verified);
  for (const PhaseTime& p : r.phases) CHECK(p.name != "place");
}
