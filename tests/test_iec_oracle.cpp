// IEC I/O against the paper's worked examples: Tables 1-4, the datatypes of §3.3.1/§3.3.3, the memory layouts
// of Figs. 3, 5, 6, 7 (the conference version) and Fig. 8 (Nx=32).
// Paper: Singh, Isaila, Pichel, Carretero, J. Supercomputing 47(1):53-75, 2009.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <stdexcept>

#include "algorithms/common/distribution.hpp"
#include "algorithms/iec/iec.hpp"

using namespace ciosim;

namespace {

using Row = std::vector<std::int64_t>;
constexpr std::int64_t E = -1;  // memory not written yet (empty)

bool contains(const std::vector<std::int64_t>& hay, const std::vector<std::int64_t>& needle) {
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}

}  // namespace

TEST_CASE("closed forms: phases, memory, Table 1", "[iec][oracle]") {
  CHECK(iec::num_phases(1) == 0);
  CHECK(iec::num_phases(2) == 1);
  CHECK(iec::num_phases(4) == 2);
  CHECK(iec::num_phases(6) == 3);  // eq. (1) is a ceiling
  CHECK(iec::num_phases(16) == 4);
  CHECK(iec::buffer_entries(16, 4) == 8);  // "the allocated memory space has 8 entries"
  CHECK(iec::buffer_entries(32, 4) == 16);
  CHECK(iec::buffer_entries(16, 1) == 16);
  const Row table1{0, 2, 2, 4};
  for (int r = 0; r < 4; ++r) CHECK(iec::alloc_offset(r, 16, 4) == table1[static_cast<std::size_t>(r)]);
  CHECK_THROWS_AS(iec::alloc_offset(4, 16, 4), std::invalid_argument);
}

TEST_CASE("partner reproduces Table 2 (Np=8)", "[iec][oracle]") {
  const std::vector<std::vector<std::pair<int, int>>> table2{
      {{0, 1}, {2, 3}, {4, 5}, {6, 7}},
      {{0, 2}, {1, 3}, {4, 6}, {5, 7}},
      {{0, 4}, {1, 5}, {2, 6}, {3, 7}},
  };
  for (int ph = 0; ph < 3; ++ph) {
    for (auto [a, b] : table2[static_cast<std::size_t>(ph)]) {
      CHECK(iec::partner(a, ph) == b);
      CHECK(iec::partner(b, ph) == a);
    }
  }
}

TEST_CASE("recv_offset reproduces Table 3 and file_offset Table 4 (Nx=16, Np=4)", "[iec][oracle]") {
  const Row ph0{4, 0, 6, 2};
  const Row ph1{6, 6, 0, 0};
  const Row table4{0, 8, 4, 12};
  for (int r = 0; r < 4; ++r) {
    CHECK(iec::recv_offset(r, 0, 16, 4) == ph0[static_cast<std::size_t>(r)]);
    CHECK(iec::recv_offset(r, 1, 16, 4) == ph1[static_cast<std::size_t>(r)]);
    CHECK(iec::file_offset(r, 16, 4) == table4[static_cast<std::size_t>(r)]);
  }
  CHECK(iec::file_offset(0, 16, 1) == 0);
  CHECK_THROWS_AS(iec::recv_offset(0, 2, 16, 4), std::invalid_argument);
}

TEST_CASE("receive regions never overlap the initial region or each other", "[iec][oracle]") {
  for (int np : {2, 4, 8, 16, 32, 64}) {
    const std::int64_t nx = 2 * np * 3;
    const std::int64_t half = nx / (2 * np);
    for (int r = 0; r < np; ++r) {
      std::vector<int> used(static_cast<std::size_t>(iec::buffer_entries(nx, np)), 0);
      for (std::int64_t i = 0; i < 2 * half; ++i)
        ++used[static_cast<std::size_t>(iec::alloc_offset(r, nx, np) + i)];
      for (int ph = 0; ph < iec::num_phases(np); ++ph)
        for (std::int64_t i = 0; i < half; ++i)
          ++used[static_cast<std::size_t>(iec::recv_offset(r, ph, nx, np) + i)];
      CHECK(std::all_of(used.begin(), used.end(), [](int u) { return u == 1; }));  // and the buffer is full
    }
  }
}

TEST_CASE("inspector datatypes of §3.3.1 and §3.3.3 (Nx=16, Np=4, Bx=1)", "[iec][oracle]") {
  const Distribution d = block_cyclic(16, 4, 1);
  REQUIRE(iec::check(d).empty());
  const std::vector<iec::RankPlan> plans = iec::inspect_all(d);
  REQUIRE(plans.size() == 4);
  const iec::RankPlan& p0 = plans[0];
  CHECK(p0.alloc_offset == 0);
  CHECK(p0.buffer_entries == 8);
  CHECK(p0.file_offset == 0);
  REQUIRE(p0.phases.size() == 2);
  CHECK(p0.phases[0].partner == 1);
  CHECK(p0.phases[0].recv_offset == 4);
  CHECK(p0.phases[0].send == Datatype{{{2, 2}}, 1, 0});  // Fig. 5: sending datatype {2,2}
  CHECK(p0.phases[1].partner == 2);
  CHECK(p0.phases[1].recv_offset == 6);
  CHECK(p0.phases[1].send == Datatype{{{1, 1}, {5, 1}}, 1, 0});        // Datatype1 = {1,1},{5,1}
  CHECK(plans[1].phases[0].send == Datatype{{{2, 2}}, 1, 0});          // "P0 receives ... from P1: {2,2}"
  CHECK(plans[2].phases[1].send == Datatype{{{2, 1}, {6, 1}}, 1, 0});  // Input_Datatype1 of P0
  CHECK(plans[3].phases[0].send == Datatype{{{4, 2}}, 1, 0});          // "P3 received datatype ... {4,2}"
  CHECK(p0.pack == Datatype{{{0, 1}, {4, 1}, {6, 2}}, 1, 0});          // Datatype_disk, no replication
  for (const iec::RankPlan& p : plans) CHECK(p.pack.size() == 4);
}

TEST_CASE("memory layouts of Figs. 3, 5, 6 and the packed chunks of Fig. 7", "[iec][oracle]") {
  const Distribution d = block_cyclic(16, 4, 1);
  const std::vector<iec::RankPlan> plans = iec::inspect_all(d);
  const std::vector<Row> fig3{{0, 4, 8, 12, E, E, E, E},
                              {E, E, 1, 5, 9, 13, E, E},
                              {E, E, 2, 6, 10, 14, E, E},
                              {E, E, E, E, 3, 7, 11, 15}};
  const std::vector<Row> fig5{{0, 4, 8, 12, 1, 5, E, E},
                              {8, 12, 1, 5, 9, 13, E, E},
                              {E, E, 2, 6, 10, 14, 3, 7},
                              {E, E, 10, 14, 3, 7, 11, 15}};
  const std::vector<Row> fig6{{0, 4, 8, 12, 1, 5, 2, 3},
                              {8, 12, 1, 5, 9, 13, 10, 11},
                              {4, 5, 2, 6, 10, 14, 3, 7},
                              {12, 13, 10, 14, 3, 7, 11, 15}};
  CHECK(iec::simulate_memory(d, plans, 0) == fig3);
  CHECK(iec::simulate_memory(d, plans, 1) == fig5);
  CHECK(iec::simulate_memory(d, plans, 2) == fig6);
  CHECK(iec::simulate_memory(d, plans) == fig6);

  // Fig. 7: packing gives each rank a chunk of consecutive entries.
  std::vector<std::vector<std::byte>> local;
  for (int r = 0; r < 4; ++r) {
    Row values;
    for (std::int64_t k = 0; k < 4; ++k)
      values.push_back(phy2log(d.per_rank[static_cast<std::size_t>(r)], k));
    local.emplace_back(as_bytes(values).begin(), as_bytes(values).end());
  }
  const auto buffers = iec::exchange_all(plans, 8, local);
  const std::vector<Row> fig7{{0, 1, 2, 3}, {8, 9, 10, 11}, {4, 5, 6, 7}, {12, 13, 14, 15}};
  for (std::size_t r = 0; r < 4; ++r) {
    const std::vector<std::byte> chunk = iec::pack_chunk(plans[r], buffers[r], 8);
    Row packed(4);
    std::memcpy(packed.data(), chunk.data(), chunk.size());
    CHECK(packed == fig7[r]);
  }
}

TEST_CASE("Fig. 8: P0 with Nx=32 packs 4 tuples replicated twice", "[iec][oracle]") {
  const Distribution d = block_cyclic(32, 4, 1);
  const std::vector<iec::RankPlan> plans = iec::inspect_all(d);
  CHECK(plans[0].pack == Datatype{{{0, 1}, {8, 1}, {12, 1}, {14, 1}}, 2, 1});
  // The paper's final list for P0: <0,0>,<1,8>,<2,12>,<3,14>,<4,1>,<5,9>,<6,13>,<7,15>.
  const Row memory = iec::simulate_memory(d, plans)[0];
  const std::vector<std::pair<std::int64_t, std::int64_t>> list{{0, 0}, {1, 8}, {2, 12}, {3, 14},
                                                                {4, 1}, {5, 9}, {6, 13}, {7, 15}};
  for (auto [logical, physical] : list) CHECK(memory[static_cast<std::size_t>(physical)] == logical);
  // Properties 1 and 3 hold here only with the physical (ascending) order of the sent entries: P2 sends its
  // entries 2,6 (positions 4,5) and 3,7 (positions 12,13) as {4,2},{12,2}.
  CHECK(plans[2].phases[1].send == Datatype{{{4, 2}, {12, 2}}, 1, 0});
  CHECK(plans[0].phases[1].send == Datatype{{{2, 2}, {10, 2}}, 1, 0});
}

TEST_CASE("Properties 1-3: send datatypes of block-cyclic Bx=1 have 2^ph tuples of Nx/(Np*2^(ph+1))",
          "[iec][oracle]") {
  for (int np : {2, 4, 8, 16}) {
    for (std::int64_t m : {1, 2, 4}) {
      const std::int64_t nx = static_cast<std::int64_t>(np) * np * m;
      const std::vector<iec::RankPlan> plans = iec::inspect_all(block_cyclic(nx, np, 1));
      for (const iec::RankPlan& plan : plans) {
        for (int ph = 0; ph < iec::num_phases(np); ++ph) {
          const Datatype send = plan.phases[static_cast<std::size_t>(ph)].send.datatype();
          INFO("Nx=" << nx << " Np=" << np << " rank=" << plan.rank << " phase=" << ph);
          CHECK(send.tuples.size() == (std::size_t{1} << ph));  // Property 1
          for (const Tuple& t : send.tuples)
            CHECK(t.length == nx / (np * (std::int64_t{2} << ph)));  // Property 3
        }
      }
      CHECK(2 * plans[0].phases[0].send.datatype().tuples[0].offset ==
            nx / np);  // Property 2's example: a = 0.5
    }
  }
}

TEST_CASE("the datatype exchange is recursive: P2 forwards P3's datatype to P0 (§3.3.3)", "[iec][oracle]") {
  const Distribution d = block_cyclic(16, 4, 1);
  std::vector<iec::Inspector> insp;
  for (int r = 0; r < 4; ++r) insp.emplace_back(d, r);
  std::vector<std::vector<std::int64_t>> ph0(4);
  for (int r = 0; r < 4; ++r)
    ph0[static_cast<std::size_t>(r)] = insp[static_cast<std::size_t>(r)].outgoing(0)->serialize_words();
  CHECK_THROWS_AS(insp[0].outgoing(1), std::logic_error);  // phase 0 not received yet
  for (int r = 0; r < 4; ++r)
    insp[static_cast<std::size_t>(r)].incoming(0, ph0[static_cast<std::size_t>(iec::partner(r, 0))]);
  std::vector<std::vector<std::int64_t>> ph1(4);
  for (int r = 0; r < 4; ++r)
    ph1[static_cast<std::size_t>(r)] = insp[static_cast<std::size_t>(r)].outgoing(1)->serialize_words();
  CHECK(contains(ph1[2], ph0[3]));  // P2's bundle carries what P3 sent it in phase 0
  CHECK(contains(ph1[0], ph0[1]));
  CHECK(ph1[2].size() > ph0[2].size());

  std::vector<std::int64_t> broken = ph1[2];
  broken.pop_back();
  CHECK_THROWS_AS(insp[0].incoming(1, broken), std::invalid_argument);
}

TEST_CASE("inspector step machine: order, truncation and work counter", "[iec][oracle]") {
  const Distribution d = block_cyclic(32, 4, 1);
  iec::Inspector a(d, 0);
  iec::Inspector b(d, 1);
  const std::int64_t before = a.tuples_processed();
  CHECK_THROWS_AS(a.incoming(0, std::vector<std::int64_t>{}), std::logic_error);
  CHECK_THROWS_AS(a.finish(), std::logic_error);
  const auto out = a.outgoing(0)->serialize_words();
  CHECK(a.tuples_processed() > before);
  CHECK_THROWS_AS(a.incoming(0, std::vector<std::int64_t>(out.begin(), out.end() - 1)),
                  std::invalid_argument);
  const auto wrong_sender = b.outgoing(0);
  iec::Inspector c(d, 0);
  c.outgoing(0);
  CHECK_THROWS_AS(c.incoming(0, out), std::invalid_argument);  // rank 0's own bundle is not from its partner
  CHECK(iec::Inspector(d, 0).phases() == 2);
  CHECK_THROWS_AS(iec::Inspector(d, 4), std::invalid_argument);
  (void)wrong_sender;
}

TEST_CASE("one rank: no phases, identity packing at offset 0", "[iec][oracle]") {
  const Distribution d = from_lists(10, {{{6, 4}, {0, 6}}});
  REQUIRE(iec::check(d).empty());
  const auto plans = iec::inspect_all(d);
  REQUIRE(plans.size() == 1);
  CHECK(plans[0].phases.empty());
  CHECK(plans[0].file_offset == 0);
  CHECK(plans[0].buffer_entries == 10);
  CHECK(plans[0].pack == Datatype{{{4, 6}, {0, 4}}, 1, 0});
  CHECK(iec::simulate_file(d, plans, 4) == expected_file(d, FileLayout::Logical, 4));
}
