// Disks with position (models/filesystem/disk_geometry.hpp, disk_sim.hpp): the geometry's closed forms,
// then the simulated disk against them — a lone sequential stream, two interleaved streams, the elevator's
// order, a random pattern — and the file systems that use it. Each TEST_CASE runs at most one SimGrid
// engine (ctest runs every TEST_CASE in its own process).
#include <catch2/catch.hpp>
#include <cmath>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "models/filesystem/disk_geometry.hpp"
#include "models/filesystem/disk_sim.hpp"
#include "models/network/profiles.hpp"
#include "models/pvfs/write_time.hpp"
#include "sim/simulate.hpp"
#include "tests/sim_engine.hpp"

using namespace ciosim;
using filesystem::DiskGeometry;
using filesystem::DiskOps;
using filesystem::DiskSim;
namespace sg4 = simgrid::s4u;

namespace {

// A 7200 rpm disk of 2004 (the uc3m-2007 platform's): 1 ms track to track, 15 ms full stroke, 80 GB.
DiskGeometry barracuda() {
  DiskGeometry g;
  g.rpm = 7200;
  g.seek_track_s = 1e-3;
  g.seek_full_s = 15e-3;
  g.capacity_bytes = 80e9;
  return g;
}

constexpr double kBps = 50e6;  // the media rate of the disks below, both directions
// SimGrid's disk actions end about 6e-6 (relative) late (tests/test_sim_models.cpp): per operation.
constexpr double kTolerance = 1e-5;

/// Positioning along a sequence of (position, length) accesses from head 0, and their transfers.
double sequence_time(const DiskGeometry& g, const std::vector<std::pair<std::int64_t, std::int64_t>>& seq) {
  std::int64_t head = 0;
  double t = 0;
  for (const auto& [pos, len] : seq) {
    t += g.positioning_s(head, pos, kBps) + static_cast<double>(len) / kBps;
    head = pos + len;
  }
  return t;
}

/// A host with one disk of kBps both ways.
sg4::Disk* one_disk(sg4::Host** host) {
  auto* zone = sg4::create_full_zone("zone");
  *host = zone->create_host("host", 1e9);
  sg4::Disk* d = (*host)->create_disk("disk", kBps, kBps)->seal();
  zone->seal();
  return d;
}

}  // namespace

TEST_CASE("disk geometry: seeks, rotation, skips and the datasheet's average", "[model][disk]") {
  const DiskGeometry g = barracuda();
  CHECK(g.positioned());
  CHECK_FALSE(DiskGeometry{}.positioned());
  CHECK(g.seek_s(0) == 0);
  CHECK(g.seek_s(1) == Approx(1e-3).margin(1e-6));      // the shortest seek: track to track
  CHECK(g.seek_s(80e9) == Approx(15e-3));               // across the disk: full stroke
  CHECK(g.seek_s(160e9) == Approx(15e-3));              // no further than the disk
  CHECK(g.seek_s(20e9) == Approx(1e-3 + 14e-3 * 0.5));  // sqrt(1/4)
  CHECK(g.revolution_s() == Approx(60.0 / 7200));
  // The average over uniform pairs, by quadrature of the model itself: matches the closed form (8/15).
  double sum = 0;
  constexpr int n = 400;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) sum += g.seek_s(std::abs(i - j) * 80e9 / n);
  CHECK(sum / (n * n) == Approx(g.average_seek_s()).epsilon(0.01));
  CHECK(g.average_seek_s() == Approx(1e-3 + 14e-3 * 8 / 15));
  // No positioning where the head is; a short forward skip costs the bytes passing under the head; a
  // backward or long jump a seek and half a revolution.
  CHECK(g.positioning_s(4096, 4096, kBps) == 0);
  CHECK(g.positioning_s(0, 50000, kBps) == Approx(50000 / kBps));
  const double half = 30.0 / 7200;
  CHECK(g.positioning_s(50000, 0, kBps) == Approx(g.seek_s(50000) + half));
  CHECK(g.positioning_s(0, 10000000, kBps) == Approx(g.seek_s(1e7) + half));
  // A skip of nearly a track: the seek and half a revolution are cheaper than waiting for it.
  const double track = kBps * g.revolution_s();
  CHECK(g.positioning_s(0, static_cast<std::int64_t>(0.9 * track), kBps) ==
        Approx(g.seek_s(0.9 * track) + half));
  // Without rotation, a skip is a seek.
  DiskGeometry ssdish = g;
  ssdish.rpm = 0;
  CHECK(ssdish.positioning_s(0, 50000, kBps) == Approx(ssdish.seek_s(50000)));
  // Inconsistent values are named.
  DiskGeometry bad = g;
  bad.seek_full_s = 0.5e-3;
  CHECK(bad.problem("pvfs.disk_").find("pvfs.disk_seek_full_s") != std::string::npos);
  bad = g;
  bad.capacity_bytes = 0;
  CHECK(bad.problem("nfs.disk_").find("nfs.disk_capacity_bytes must be > 0") != std::string::npos);
  DiskGeometry only_capacity;
  only_capacity.capacity_bytes = 1e9;
  CHECK_FALSE(only_capacity.problem("local.disk_").empty());
  CHECK(g.problem("pvfs.disk_").empty());
  CHECK(DiskGeometry{}.problem("pvfs.disk_").empty());
}

TEST_CASE("a lone sequential stream pays no positioning", "[model][disk]") {
  test::SimEngine engine;
  sg4::Host* host = nullptr;
  sg4::Disk* d = one_disk(&host);
  DiskSim disk(d, barracuda(), kBps, kBps);
  constexpr int k = 40;
  constexpr std::int64_t len = 65536;
  double end = -1;
  sg4::Actor::create("stream", host, [&] {
    DiskOps ops(host, 0);
    for (int i = 0; i < k; ++i) disk.io(ops, true, i * len, len);
    end = sg4::Engine::get_clock();
  });
  engine->run();
  CHECK(end == Approx(k * static_cast<double>(len) / kBps).epsilon(kTolerance));
  CHECK(disk.head() == k * len);
}

TEST_CASE("two interleaved streams: the head goes back and forth, a seek each time", "[model][disk]") {
  test::SimEngine engine;
  sg4::Host* host = nullptr;
  sg4::Disk* d = one_disk(&host);
  const DiskGeometry g = barracuda();
  DiskSim disk(d, g, kBps, kBps);
  constexpr int k = 10;
  constexpr std::int64_t len = 1 << 20;
  constexpr std::int64_t gap = 1000000000;  // stream B starts 1 GB further
  double end_a = -1, end_b = -1;
  auto stream = [&](std::int64_t base, double* end) {
    DiskOps ops(host, 0);
    for (int i = 0; i < k; ++i) disk.io(ops, true, base + i * len, len);
    *end = sg4::Engine::get_clock();
  };
  sg4::Actor::create("a", host, [&] { stream(0, &end_a); });
  sg4::Actor::create("b", host, [&] { stream(gap, &end_b); });
  engine->run();
  // A's first access finds the head at 0; from then on each stream's next access queues while the other's
  // is served, and the elevator alternates: A0 B0 A1 B1 ... every access after A0 paying a seek.
  std::vector<std::pair<std::int64_t, std::int64_t>> seq;
  for (int i = 0; i < k; ++i) {
    seq.emplace_back(i * len, len);
    seq.emplace_back(gap + i * len, len);
  }
  CHECK(end_b == Approx(sequence_time(g, seq)).epsilon(kTolerance));
  seq.pop_back();
  CHECK(end_a == Approx(sequence_time(g, seq)).epsilon(kTolerance));
  // About 2k - 1 seeks of a 1 GB distance and half a revolution each, against 2k transfers of 21 ms.
  const double seeks = (2 * k - 1) * (g.seek_s(static_cast<double>(gap)) + g.revolution_s() / 2);
  CHECK(end_b == Approx(2 * k * static_cast<double>(len) / kBps + seeks).epsilon(0.01));
}

TEST_CASE("the elevator serves what waits in C-LOOK order", "[model][disk]") {
  test::SimEngine engine;
  sg4::Host* host = nullptr;
  sg4::Disk* d = one_disk(&host);
  const DiskGeometry g = barracuda();
  DiskSim disk(d, g, kBps, kBps);
  constexpr std::int64_t MB = 1000000;
  constexpr std::int64_t len = 4096;
  // The first access holds the head for 0.4 s (20 MB from 0, ending at 20 MB); meanwhile four accesses
  // arrive, at 30, 5, 50 and 10 MB. C-LOOK from 20 MB: 30, 50, then 5, 10.
  std::vector<std::pair<std::int64_t, double>> done;  // position, end
  sg4::Actor::create("first", host, [&] {
    DiskOps ops(host, 0);
    disk.io(ops, true, 0, 20 * MB);
  });
  const std::int64_t arrivals[] = {30 * MB, 5 * MB, 50 * MB, 10 * MB};
  for (int i = 0; i < 4; ++i)
    sg4::Actor::create("waiter" + std::to_string(i), host, [&, i] {
      sg4::this_actor::sleep_for(0.01 * (i + 1));
      DiskOps ops(host, 0);
      disk.io(ops, false, arrivals[i], len);
      done.emplace_back(arrivals[i], sg4::Engine::get_clock());
    });
  engine->run();
  REQUIRE(done.size() == 4);
  CHECK(done[0].first == 30 * MB);
  CHECK(done[1].first == 50 * MB);
  CHECK(done[2].first == 5 * MB);
  CHECK(done[3].first == 10 * MB);
  const double expected =
      sequence_time(g, {{0, 20 * MB}, {30 * MB, len}, {50 * MB, len}, {5 * MB, len}, {10 * MB, len}});
  CHECK(done[3].second == Approx(expected).epsilon(kTolerance));
}

TEST_CASE("a random pattern pays each access's positioning", "[model][disk]") {
  test::SimEngine engine;
  sg4::Host* host = nullptr;
  sg4::Disk* d = one_disk(&host);
  const DiskGeometry g = barracuda();
  DiskSim disk(d, g, kBps, kBps);
  // 200 accesses of 8 KiB at positions of a linear congruential sequence over 2 GB.
  std::vector<std::pair<std::int64_t, std::int64_t>> seq;
  std::uint64_t x = 12345;
  for (int i = 0; i < 200; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    seq.emplace_back(static_cast<std::int64_t>((x >> 33) % 2000000000) / 512 * 512, 8192);
  }
  double end = -1;
  sg4::Actor::create("random", host, [&] {
    DiskOps ops(host, 0);
    for (const auto& [pos, len] : seq) disk.io(ops, false, pos, len);
    end = sg4::Engine::get_clock();
  });
  engine->run();
  const double expected = sequence_time(g, seq);
  CHECK(end == Approx(expected).epsilon(kTolerance));
  // Positioning dominates: 200 x (about 2.6 ms of seek + 4.2 ms of rotation) against 33 ms of transfers.
  CHECK(expected > 200 * (g.seek_track_s + g.revolution_s() / 2));
  CHECK(expected > 20 * 200 * 8192 / kBps);
}
