// Model tests with analytic oracles: the simulation must produce what the models' closed forms say.
// Each TEST_CASE runs one SimGrid engine (ctest runs every TEST_CASE in its own process).
#include <array>
#include <catch2/catch.hpp>
#include <functional>
#include <limits>
#include <random>
#include <simgrid/s4u.hpp>
#include <vector>

#include "models/network/profiles.hpp"
#include "models/pvfs/striping.hpp"
#include "models/pvfs/write_time.hpp"
#include "sim/simulate.hpp"

using namespace ciosim;

namespace {

RunSpec two_node_spec(const std::string& mpi, const std::string& io) {
  RunSpec s;
  s.algorithm = "none";
  s.ranks = 2;
  s.platform.name = "test";
  s.platform.nodes = 2;
  s.network_mpi = mpi;
  s.network_io = io;
  return s;
}

/// One-way time of a lone message of `bytes` from rank 0 to rank 1, measured in the simulation. Rank 1
/// posts its receive, then tells rank 0 to go, so the measured interval starts when the send starts.
double lone_message(const std::string& profile, std::int64_t bytes) {
  double t_send = -1, t_recv = -1;
  sim::run_with(two_node_spec(profile, profile), [&](Process& p) {
    std::vector<std::byte> buf(static_cast<std::size_t>(bytes));
    if (p.rank() == 1) {
      Request r = p.irecv(0, 7, buf);
      p.send(0, 8, {});
      p.wait(r);
      t_recv = simgrid::s4u::Engine::get_clock();
      p.send(0, 9, {});
    } else {
      p.recv(1, 8, {});
      t_send = simgrid::s4u::Engine::get_clock();
      p.send(1, 7, buf);
      p.recv(1, 9, {});  // keep rank 0's file close off the NIC until the message is in
    }
  });
  return t_recv - t_send;
}

}  // namespace

TEST_CASE("a lone eager message on infiniband-ddr takes o_s + 2L + S/(B f) + o_r", "[model][network]") {
  const auto& p = network_profile("infiniband-ddr");
  const std::int64_t s = 4096;
  REQUIRE(s <= p.eager_threshold);
  CHECK(lone_message(p.name, s) == Approx(p.lone_message_time(s)).epsilon(1e-9));
  CHECK(p.lone_message_time(s) ==
        Approx(0.3e-6 + 2 * 1.25e-6 + 4096 / (2e9 * 2048.0 / 2074.0) + 0.3e-6).epsilon(1e-12));
}

TEST_CASE("a lone rendezvous message on myrinet pays three route latencies", "[model][network]") {
  const auto& p = network_profile("myrinet");
  const std::int64_t s = 1 << 20;
  REQUIRE(s > p.eager_threshold);
  // 0.5 us + 3 * 7 us + 1 MiB / (250 MB/s * 0.92) + 0.5 us
  const double expected = 0.5e-6 + 3 * 7e-6 + 1048576.0 / (250e6 * 0.92) + 0.5e-6;
  CHECK(p.lone_message_time(s) == Approx(expected).epsilon(1e-12));
  CHECK(lone_message(p.name, s) == Approx(expected).epsilon(1e-9));
}

TEST_CASE("a lone 1 MB message on fast-ethernet takes what the profile says", "[model][network]") {
  const auto& p = network_profile("fast-ethernet");
  const std::int64_t s = 1000000;
  // 10 us + 3 * 60 us + 1e6 / (12.5e6 * 1460/1538) + 10 us: about 84.5 ms
  const double expected = 10e-6 + 3 * 60e-6 + 1e6 / (12.5e6 * 1460.0 / 1538.0) + 10e-6;
  CHECK(p.lone_message_time(s) == Approx(expected).epsilon(1e-12));
  CHECK(lone_message(p.name, s) == Approx(expected).epsilon(1e-9));
}

TEST_CASE("a lone small message on gigabit-ethernet and infiniband-sdr", "[model][network]") {
  // Both profiles on one platform is impossible (one MPI network per run), so MPI uses gigabit-ethernet
  // here and the formula of infiniband-sdr is checked by value.
  const auto& g = network_profile("gigabit-ethernet");
  CHECK(lone_message(g.name, 100) == Approx(g.lone_message_time(100)).epsilon(1e-9));
  const auto& ib = network_profile("infiniband-sdr");
  CHECK(ib.lone_message_time(100) == Approx(0.3e-6 + 2 * 2e-6 + 100 / (1e9 * 2048.0 / 2074.0) + 0.3e-6));
}

TEST_CASE("MPI on fast-ethernet does not slow PVFS traffic on myrinet", "[model][network]") {
  // Separate NICs: a write over the I/O network takes the same time whatever the MPI network is.
  RunSpec s = two_node_spec("fast-ethernet", "myrinet");
  s.ranks = 1;
  s.platform.pvfs.io_servers = 4;
  const std::int64_t bytes = 4 * 65536 * 8;
  auto r = sim::run_with(s, [&](Process& p) {
    std::vector<std::byte> buf(static_cast<std::size_t>(bytes));
    p.phase("write");
    p.write_at(0, buf);
  });
  const double expected =
      pvfs::lone_contiguous_write_time(bytes, s.platform.pvfs, network_profile("myrinet"));
  REQUIRE(r.phases.size() == 3);
  CHECK(r.phases[1].name == "write");
  CHECK(r.phases[1].time_s == Approx(expected).epsilon(1e-5));  // see kPvfsTolerance
}

namespace {
// SimGrid's disk actions end about 6e-6 (relative) late (measured: a 64 KiB write at 10 MB/s takes
// 6553.639 us instead of 6553.6 us), and with k > 1 servers the concurrent flows leave a residue of the
// same order (measured: 0.13 us of 27.5 ms at k = 4, n = 4). The PVFS oracles therefore allow 1e-5.
constexpr double kPvfsTolerance = 1e-5;

double simulated_write(PvfsConfig cfg, std::int64_t bytes, std::vector<std::byte>* file_out) {
  RunSpec s = two_node_spec("myrinet", "myrinet");
  s.ranks = 1;
  s.platform.pvfs = cfg;
  std::vector<std::byte> data(static_cast<std::size_t>(bytes));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7 + 3);
  auto r = sim::run_with(
      s,
      [&](Process& p) {
        p.phase("write");
        p.write_at(0, data);
      },
      [&](const filesystem::FileStore& f) { *file_out = f.bytes(); });
  CHECK(*file_out == data);
  return r.phases.at(1).time_s;
}
}  // namespace

TEST_CASE("a disk-bound striped write over k servers takes what the PVFS model says", "[model][pvfs]") {
  PvfsConfig cfg;
  cfg.io_servers = 4;
  cfg.disk_write_Bps = 10e6;  // 64 KiB take 6.6 ms on disk, far more than on the network
  const std::int64_t bytes = 4 * 65536 * 16;
  std::vector<std::byte> file;
  const double t = simulated_write(cfg, bytes, &file);
  const double expected = pvfs::lone_contiguous_write_time(bytes, cfg, network_profile("myrinet"));
  CHECK(t == Approx(expected).epsilon(kPvfsTolerance));
  // Disk-bound: about 16 chunks of 64 KiB per server at 10 MB/s = 0.105 s.
  CHECK(t == Approx(16 * 65536 / 10e6).epsilon(0.02));
}

TEST_CASE("a network-bound striped write takes what the PVFS model says", "[model][pvfs]") {
  PvfsConfig cfg;
  cfg.io_servers = 8;
  cfg.disk_write_Bps = 1e10;
  const std::int64_t bytes = 8 * 65536 * 10;
  std::vector<std::byte> file;
  const double t = simulated_write(cfg, bytes, &file);
  CHECK(t == Approx(pvfs::lone_contiguous_write_time(bytes, cfg, network_profile("myrinet")))
                 .epsilon(kPvfsTolerance));
  // Network-bound: the client NIC moves 5 MiB at 230 MB/s (22.8 ms) plus per-chunk latencies.
  CHECK(t > bytes / (250e6 * 0.92));
}

TEST_CASE("a striped write to one server matches the closed form", "[model][pvfs]") {
  PvfsConfig cfg;
  cfg.io_servers = 1;
  cfg.disk_write_Bps = 10e6;
  const std::int64_t bytes = 65536 * 4;
  std::vector<std::byte> file;
  const double t = simulated_write(cfg, bytes, &file);
  CHECK(t == Approx(pvfs::lone_contiguous_write_time(bytes, cfg, network_profile("myrinet")))
                 .epsilon(kPvfsTolerance));
}

TEST_CASE("a long request (300 chunks per server) still takes what the PVFS model says", "[model][pvfs]") {
  // Past DiskOps::kDirect and a first helper's DiskOps::kPerHelper operations (disk_ops_sim.hpp): the
  // servers hand most chunks to helper actors, which must not move a single simulated instant.
  PvfsConfig cfg;
  cfg.io_servers = 2;
  cfg.disk_write_Bps = 100e6;
  const std::int64_t bytes = 2 * 65536 * 300;
  std::vector<std::byte> file;
  const double t = simulated_write(cfg, bytes, &file);
  CHECK(t == Approx(pvfs::lone_contiguous_write_time(bytes, cfg, network_profile("myrinet")))
                 .epsilon(kPvfsTolerance));
}

TEST_CASE("requests are split by strip round-robin over the servers", "[model][pvfs]") {
  // 3 servers, 10-byte strips; a region [5, 45) touches strips 0..4 -> servers 0,1,2,0,1.
  const Extent e{5, 40};
  auto parts = pvfs::split_by_stripe(std::span(&e, 1), 10, 3);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].server == 0);
  REQUIRE(parts[0].pieces.size() == 2);
  CHECK(parts[0].pieces[0].file_offset == 5);
  CHECK(parts[0].pieces[0].length == 5);
  CHECK(parts[0].pieces[0].local_offset == 5);
  CHECK(parts[0].pieces[1].file_offset == 30);
  CHECK(parts[0].pieces[1].local_offset == 10);  // strip 3 is server 0's second strip
  CHECK(parts[0].pieces[1].data_offset == 25);
  CHECK(parts[0].local_regions == 1);  // local [5,10) and [10,20) are adjacent
  CHECK(parts[1].bytes == 15);         // strip 1 whole, strip 4 [40,45)
  CHECK(parts[2].bytes == 10);
  CHECK(parts[0].bytes + parts[1].bytes + parts[2].bytes == 40);
}

TEST_CASE("split_by_stripe puts every byte where a byte-by-byte reference does", "[model][pvfs]") {
  // Random list requests (ascending, descending, overlapping strips, zero-length regions) on random
  // stripings: every byte of the client's buffer must go to server (b / stripe) % servers at local offset
  // (b / stripe / servers) * stripe + b % stripe, in client-buffer order per server, and each part's
  // pieces must be maximal (no two consecutive ones continue each other in every space).
  std::mt19937_64 rng(20261127);
  for (int round = 0; round < 2000; ++round) {
    const std::int64_t stripe = 1 + static_cast<std::int64_t>(rng() % 64);
    const int servers = 1 + static_cast<int>(rng() % 6);
    std::vector<Extent> regions(rng() % 12);
    std::int64_t at = static_cast<std::int64_t>(rng() % 200);
    for (Extent& e : regions) {
      const bool back = rng() % 4 == 0;
      e.offset = back ? static_cast<std::int64_t>(rng() % 300) : at;
      e.length = static_cast<std::int64_t>(rng() % 3 == 0 ? rng() % 4 : rng() % 150);
      at = e.offset + e.length + static_cast<std::int64_t>(rng() % 40);
    }
    const auto parts = pvfs::split_by_stripe(regions, stripe, servers);
    // The reference: (server, local offset, file offset, data offset) of every byte, in buffer order.
    std::vector<std::vector<std::array<std::int64_t, 3>>> want(static_cast<std::size_t>(servers));
    std::int64_t data = 0;
    for (const Extent& e : regions)
      for (std::int64_t b = e.offset; b < e.offset + e.length; ++b, ++data)
        want[static_cast<std::size_t>(b / stripe % servers)].push_back(
            {(b / stripe / servers) * stripe + b % stripe, b, data});
    std::size_t touched = 0;
    for (const auto& w : want) touched += !w.empty();
    INFO("round " << round << ": stripe " << stripe << ", servers " << servers);
    REQUIRE(parts.size() == touched);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const pvfs::ServerPart& part = parts[i];
      if (i > 0) CHECK(parts[i - 1].server < part.server);
      std::vector<std::array<std::int64_t, 3>> got;
      std::int64_t regions_there = 0;
      for (std::size_t k = 0; k < part.pieces.size(); ++k) {
        const pvfs::Piece& p = part.pieces[k];
        for (std::int64_t j = 0; j < p.length; ++j)
          got.push_back({p.local_offset + j, p.file_offset + j, p.data_offset + j});
        if (k > 0) {
          const pvfs::Piece& q = part.pieces[k - 1];
          const bool local_next = q.local_offset + q.length == p.local_offset;
          CHECK(!(local_next && q.file_offset + q.length == p.file_offset &&
                  q.data_offset + q.length == p.data_offset));
          regions_there += !local_next;
        } else {
          regions_there = 1;
        }
      }
      CHECK(got == want[static_cast<std::size_t>(part.server)]);
      CHECK(part.bytes == static_cast<std::int64_t>(got.size()));
      CHECK(part.local_regions == regions_there);
    }
  }
}

TEST_CASE("P ranks' opens and closes queue at the metadata server", "[model][pvfs]") {
  // Each rank's open and close is one request the metadata server's single CPU serves in turn, so the
  // last of P ranks waits P x metadata_overhead_s, plus one request/reply round trip on the network.
  RunSpec s = two_node_spec("myrinet", "myrinet");
  s.ranks = 4;
  s.platform.nodes = 4;
  s.platform.pvfs.metadata_overhead_s = 1e-3;
  s.platform.pvfs.request_overhead_s = 5e-6;  // not what open and close charge
  const RunResult r = sim::run_with(s, [](Process&) {});
  REQUIRE(r.phases.size() == 2);
  const NetworkProfile& net = network_profile("myrinet");
  const double round_trip_max = 2 * (2 * net.link_latency_s + 256 / (net.link_bandwidth_Bps * 0.5));
  for (const auto& ph : r.phases) {
    INFO(ph.name);
    CHECK(ph.time_s >= 4e-3);
    CHECK(ph.time_s <= 4e-3 + round_trip_max);
  }
}

namespace {
/// The "work" phase of 4 ranks placed on nodes as given (of the test platform changed by `set`) that each
/// declare the work `w`.
double phase_of_four(std::vector<int> placement, const std::function<void(PlatformSpec&)>& set, Work w) {
  RunSpec s = two_node_spec("myrinet", "myrinet");
  s.ranks = 4;
  s.platform.nodes = 4;
  set(s.platform);
  s.rank_nodes = std::move(placement);
  const RunResult r = sim::run_with(s, [w](Process& p) {
    p.barrier();  // the opens end one after the other at the metadata server: start together
    p.phase("work");
    p.compute(w);
  });
  for (const auto& ph : r.phases)
    if (ph.name == "work") return ph.time_s;
  return -1;
}

/// 4 ranks that each declare 1 ms of CPU work (10^6 tuples at 1 ns), on nodes of `cpu_cores` cores.
double shared_compute(std::vector<int> placement, int cpu_cores) {
  return phase_of_four(
      std::move(placement),
      [cpu_cores](PlatformSpec& p) {
        p.cpu_cores = cpu_cores;
        p.tuple_cost_s = 1e-9;
      },
      Work{.tuples = 1000000});
}
}  // namespace

// Ranks placed on one node share its cores for their CPU work (max-min sharing of the cores).
TEST_CASE("CPU work: each rank on a node of its own takes its time", "[model][cpu]") {
  CHECK(shared_compute({0, 1, 2, 3}, 1) == Approx(1e-3).epsilon(1e-9));
}
TEST_CASE("CPU work: 4 ranks on a node of 2 cores take twice as long", "[model][cpu]") {
  CHECK(shared_compute({0, 0, 0, 0}, 2) == Approx(2e-3).epsilon(1e-9));
}
TEST_CASE("CPU work: 4 ranks on one core take 4 times as long", "[model][cpu]") {
  CHECK(shared_compute({0, 0, 0, 0}, 1) == Approx(4e-3).epsilon(1e-9));
}
TEST_CASE("CPU work: 4 ranks on a node of 4 cores take their own time", "[model][cpu]") {
  CHECK(shared_compute({0, 0, 0, 0}, 4) == Approx(1e-3).epsilon(1e-9));
}

namespace {
/// 4 ranks on nodes of 4 cores that each copy 10 MB (1 ms alone at memcpy_Bps = 1e10 B/s), the nodes'
/// memory giving their concurrent copies `memory_Bps` in all (NaN: not given).
double shared_copy(std::vector<int> placement, double memory_Bps) {
  return phase_of_four(
      std::move(placement),
      [memory_Bps](PlatformSpec& p) {
        p.cpu_cores = 4;
        p.memcpy_Bps = 1e10;
        p.memory_Bps = memory_Bps;
      },
      Work{.bytes_copied = 10000000});
}
}  // namespace

// A node's concurrent copies share its memory bandwidth (nodes.memory_Bps), each also bounded by its own
// core's copy rate (memcpy_Bps). One simulation per TEST_CASE (one SimGrid engine per process).
TEST_CASE("copies: without the node's memory bandwidth each copy takes its memcpy time", "[model][cpu]") {
  CHECK(shared_copy({0, 0, 0, 0}, std::numeric_limits<double>::quiet_NaN()) == Approx(1e-3).epsilon(1e-9));
}
TEST_CASE("copies: 4 concurrent copies through a node's 2e10 B/s take twice their memcpy time",
          "[model][cpu]") {
  CHECK(shared_copy({0, 0, 0, 0}, 2e10) == Approx(2e-3).epsilon(1e-6));
}
TEST_CASE("copies: a node's memory enough for all its copies leaves each at its core's rate",
          "[model][cpu]") {
  CHECK(shared_copy({0, 0, 0, 0}, 4e10) == Approx(1e-3).epsilon(1e-6));
}
TEST_CASE("copies: one rank a node shares its node's memory with no one", "[model][cpu]") {
  CHECK(shared_copy({0, 1, 2, 3}, 1e10) == Approx(1e-3).epsilon(1e-6));
}
TEST_CASE("copies: two ranks on each of two nodes share their own node's memory", "[model][cpu]") {
  CHECK(shared_copy({0, 0, 1, 1}, 1e10) == Approx(2e-3).epsilon(1e-6));
}
