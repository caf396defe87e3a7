// The two-phase plan `ciosim plan SCENARIO` shows (two_phase::plan_write) against what the technique does
// in the simulator: every aggregator's window writes (offset, size, in order) and every rank's data
// messages of each round (destination, bytes) equal the plan's rounds. One simulation per TEST_CASE.
#include <catch2/catch.hpp>
#include <map>

#include "algorithms/common/distribution.hpp"
#include "algorithms/two_phase/two_phase.hpp"
#include "algorithms/two_phase/two_phase_explain.hpp"
#include "sim/simulate.hpp"

using namespace ciosim;

namespace {

struct Observed {
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> writes;  ///< per rank: (offset, size)
  /// per rank: (destination, bytes) of the data messages, in call order
  std::vector<std::vector<std::pair<int, std::int64_t>>> data_sends;
};

Observed simulate_two_phase(const Distribution& d, const IoHints& hints, int ranks, int nodes) {
  RunSpec s;
  s.algorithm = "two-phase";
  s.ranks = ranks;
  s.platform.name = "test";
  s.platform.nodes = nodes;
  s.platform.cores_per_node = (ranks + nodes - 1) / nodes;
  s.platform.cpu_cores = s.platform.cores_per_node;
  s.platform.pvfs.io_servers = 2;
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  TechniqueInput in{&d, 4, "x.dat", 1, hints};
  Observed o;
  o.writes.resize(static_cast<std::size_t>(ranks));
  o.data_sends.resize(static_cast<std::size_t>(ranks));
  sim::run_with(s, [&](Process& p) {
    p.record_trace(true);
    two_phase::run_write(p, in, make_local_data(d, p.rank(), 4));
    for (const TraceEvent& e : p.trace()) {
      const auto r = static_cast<std::size_t>(p.rank());
      if (e.kind == Call::FileWrite) o.writes[r].emplace_back(e.a, e.b);
      if (e.kind == Call::Isend && e.phase == "exchange") o.data_sends[r].emplace_back(e.peer, e.a);
    }
  });
  return o;
}

}  // namespace

TEST_CASE("the two-phase plan of a block3d point is what the simulated two-phase write does",
          "[sim][two-phase][plan]") {
  const int P = 8;
  const Distribution d = block3d(8, 8, 8, P);  // 2x2x2 ranks, 2 KiB file
  IoHints hints;
  hints.cb_buffer_size = 256;  // several rounds per aggregator
  hints.cb_config_list = "*:1";
  std::vector<std::string> hosts;
  for (int r = 0; r < P; ++r) hosts.push_back("node" + std::to_string(r / 2));  // 2 ranks per node
  const two_phase::WritePlan plan = two_phase::plan_write(d, 4, hints, hosts);
  REQUIRE(plan.collective);
  CHECK(plan.ranklist == std::vector<int>{0, 2, 4, 6});  // one aggregator per host, its lowest rank
  REQUIRE(plan.aggregators.size() == 4);
  CHECK(plan.aggregators.front().domain_start == 0);
  CHECK(plan.aggregators.back().domain_end == 8 * 8 * 8 * 4 - 1);

  const Observed o = simulate_two_phase(d, hints, P, 4);
  std::map<int, std::vector<std::pair<std::int64_t, std::int64_t>>> planned_writes;
  std::vector<std::vector<std::pair<int, std::int64_t>>> planned_sends(P);
  for (int m = 0; m < plan.max_rounds; ++m)  // every rank sends round m to each aggregator in ranklist order
    for (int s = 0; s < P; ++s)
      for (const auto& ag : plan.aggregators)
        if (m < static_cast<int>(ag.rounds.size()))
          for (const auto& share : ag.rounds[static_cast<std::size_t>(m)].senders)
            if (share.sender == s)
              planned_sends[static_cast<std::size_t>(s)].emplace_back(ag.rank, share.bytes);
  for (const auto& ag : plan.aggregators)
    for (const auto& round : ag.rounds) planned_writes[ag.rank].emplace_back(round.offset, round.size);
  std::int64_t rounds = 0;
  for (int r = 0; r < P; ++r) {
    INFO("rank " << r);
    CHECK(o.writes[static_cast<std::size_t>(r)] == planned_writes[r]);
    auto sent = o.data_sends[static_cast<std::size_t>(r)];
    auto planned = planned_sends[static_cast<std::size_t>(r)];
    std::sort(sent.begin(), sent.end());  // within a round ROMIO posts by destination rank; compare as sets
    std::sort(planned.begin(), planned.end());
    CHECK(sent == planned);
    rounds += static_cast<std::int64_t>(planned_writes[r].size());
  }
  CHECK(rounds > 4);  // the windows really split the domains
}
