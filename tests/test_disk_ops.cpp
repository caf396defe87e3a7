// DiskOps (models/filesystem/disk_ops_sim.hpp) hands disk operations to helper actors so that SimGrid's
// per-actor activity list stays short; the simulated instants must be those of issuing them directly.
// One SimGrid engine per TEST_CASE (ctest runs every TEST_CASE in its own process).
#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>
#include <utility>
#include <vector>

#include "models/filesystem/disk_ops_sim.hpp"
#include "tests/sim_engine.hpp"

namespace sg4 = simgrid::s4u;
using ciosim::filesystem::DiskOps;

TEST_CASE("disk operations through DiskOps start and end when direct ones would", "[model][disk]") {
  ciosim::test::SimEngine engine;
  auto* zone = sg4::create_full_zone("zone");
  // Two identical hosts, each with a disk shared by two actors: on host "direct" both issue their own
  // operations; on host "helped" the first goes through DiskOps (no direct operations, so helpers from
  // the first; 600 operations cross two helper retirements), the second issues its own.
  sg4::Host* direct = zone->create_host("direct", 1e9);
  sg4::Host* helped = zone->create_host("helped", 1e9);
  sg4::Disk* d_direct = direct->create_disk("disk", 50e6, 20e6)->seal();
  sg4::Disk* d_helped = helped->create_disk("disk", 50e6, 20e6)->seal();
  zone->seal();
  constexpr int kOps = 600;
  using Times = std::vector<std::pair<double, double>>;
  Times direct_a, direct_b, helped_a, helped_b;
  // Operation i: a write of (i % 7 + 1) * 64 KiB, a read every third; a pause now and then so that the
  // two actors' operations overlap in changing ways.
  auto body = [](sg4::Disk* disk, DiskOps* ops, Times* out, int phase) {
    for (int i = 0; i < kOps; ++i) {
      const bool write = (i + phase) % 3 != 0;
      const std::int64_t bytes = (i % 7 + 1) * 65536;
      const double t0 = sg4::Engine::get_clock();
      if (ops != nullptr) {
        ops->run(disk, write, bytes);
      } else if (write) {
        disk->write(static_cast<sg_size_t>(bytes));
      } else {
        disk->read(static_cast<sg_size_t>(bytes));
      }
      out->emplace_back(t0, sg4::Engine::get_clock());
      if (i % 11 == phase) sg4::this_actor::sleep_for(1e-3);
    }
  };
  sg4::Actor::create("a", direct, [&] { body(d_direct, nullptr, &direct_a, 0); });
  sg4::Actor::create("b", direct, [&] { body(d_direct, nullptr, &direct_b, 5); });
  sg4::Actor::create("a", helped, [&] {
    DiskOps ops(helped, 0);
    body(d_helped, &ops, &helped_a, 0);
  });
  sg4::Actor::create("b", helped, [&] { body(d_helped, nullptr, &helped_b, 5); });
  engine->run();
  REQUIRE(direct_a.size() == kOps);
  REQUIRE(helped_a.size() == kOps);
  CHECK(helped_a == direct_a);
  CHECK(helped_b == direct_b);
  // The two actors did share the disk: the run took longer than one actor's bytes alone.
  CHECK(direct_a.back().second > 0.5);
}

TEST_CASE("a daemon killed while DiskOps serves it lets the simulation end", "[model][disk]") {
  // The end of a simulation kills daemons wherever they are; one blocked in DiskOps::run must unwind
  // without a simcall (with thread contexts one hung there). Thread contexts on purpose.
  ciosim::test::SimEngine engine(ciosim::test::SimEngine::Contexts::threads);
  auto* zone = sg4::create_full_zone("zone");
  sg4::Host* host = zone->create_host("host", 1e9);
  sg4::Disk* disk = host->create_disk("disk", 1e8, 1e8)->seal();
  zone->seal();
  int done = 0;
  sg4::Actor::create("daemon", host, [&] {
    sg4::Actor::self()->daemonize();
    DiskOps ops(host, 0);
    for (int i = 0; i < 100; ++i) {
      ops.run(disk, true, 1000000);  // 10 ms each
      ++done;
    }
  });
  sg4::Actor::create("main", host, [] { sg4::this_actor::sleep_for(0.055); });
  engine->run();
  CHECK(sg4::Engine::get_clock() == Approx(0.055));
  CHECK(done == 5);
}
