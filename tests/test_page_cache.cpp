// The write-back page cache (models/filesystem/page_cache.hpp, page_cache_sim.hpp): its accounting, then
// the simulated cache against closed forms — a write below the background threshold costs the copy only,
// sync adds the disk, a writer past the dirty limit is held to the disk's pace, reads hit what is cached,
// the periodic writeback takes an expired file — and the file systems that use it. Each TEST_CASE runs at
// most one SimGrid engine (ctest runs every TEST_CASE in its own process).
#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "models/filesystem/disk_sim.hpp"
#include "models/filesystem/page_cache.hpp"
#include "models/filesystem/page_cache_sim.hpp"
#include "sim/simulate.hpp"
#include "tests/result_phase.hpp"
#include "tests/sim_engine.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;
using filesystem::DiskOps;
using filesystem::PageCache;
using filesystem::PageCacheConfig;
using filesystem::PageCacheSim;
namespace sg4 = simgrid::s4u;

namespace {

constexpr std::int64_t kPage = PageCache::kPage;
constexpr double kDiskBps = 50e6;
constexpr double kCopyBps = 1e9;
// SimGrid's disk actions end about 6e-6 (relative) late (tests/test_sim_models.cpp): per operation.
constexpr double kTolerance = 1e-5;

PageCacheConfig cache_of(double bytes) {
  PageCacheConfig c;
  c.bytes = bytes;
  c.dirty_ratio = 0.2;
  c.dirty_background_ratio = 0.1;
  c.copy_Bps = kCopyBps;
  return c;
}

/// A host with one disk of kDiskBps both ways, without position, and a cache in front of it that counts
/// the bytes the disk moved.
struct Rig {
  sg4::Host* host = nullptr;
  std::unique_ptr<filesystem::DiskSim> disk;
  std::unique_ptr<PageCacheSim> cache;
  std::int64_t disk_written = 0, disk_read = 0;
  explicit Rig(const PageCacheConfig& cfg) {
    auto* zone = sg4::create_full_zone("zone");
    host = zone->create_host("host", 1e9);
    sg4::Disk* d = host->create_disk("disk", kDiskBps, kDiskBps)->seal();
    zone->seal();
    disk = std::make_unique<filesystem::DiskSim>(d, filesystem::DiskGeometry{}, kDiskBps, kDiskBps);
    cache =
        std::make_unique<PageCacheSim>(cfg, host, [this](DiskOps& ops, bool w, Offset pos, std::int64_t n) {
          disk->io(ops, w, pos, n);
          (w ? disk_written : disk_read) += n;
        });
    cache->start();
  }
};

}  // namespace

TEST_CASE("page cache accounting: pages dirtied, misses, writeback order, eviction", "[model][cache]") {
  PageCache c;
  // A write dirties every page it touches; rewriting a dirty page dirties nothing new.
  CHECK(c.write(100, 5000, 1.0) == 2 * kPage);
  CHECK(c.dirty() == 2 * kPage);
  CHECK(c.dirtied_when() == 1.0);
  CHECK(c.write(0, kPage, 2.0) == 0);
  CHECK(c.dirtied_when() == 1.0);  // the file was already dirty
  // What a read would miss: the pages after the cached ones.
  CHECK(c.misses(0, 20000) == std::vector<Extent>{{2 * kPage, 3 * kPage}});
  CHECK(c.misses(kPage, 10).empty());
  // Three dirty runs; writeback takes them in offset order from where it stopped, wrapping around.
  c.write(100 * kPage, kPage, 3.0);
  c.write(50 * kPage, kPage, 3.0);
  CHECK(c.take_dirty(kPage) == std::vector<Extent>{{0, kPage}});
  CHECK(c.take_dirty(kPage) == std::vector<Extent>{{kPage, kPage}});
  CHECK(c.take_dirty(10 * kPage) == std::vector<Extent>{{50 * kPage, kPage}, {100 * kPage, kPage}});
  CHECK(c.dirty() == 0);
  CHECK(c.writeback() == 4 * kPage);
  c.written(4 * kPage);
  CHECK(c.writeback() == 0);
  CHECK(c.cached() == 4 * kPage);
  // The index wraps: a page dirtied below it is found.
  c.write(10 * kPage, kPage, 4.0);
  CHECK(c.dirtied_when() == 4.0);  // clean to dirty again
  CHECK(c.take_dirty(kPage) == std::vector<Extent>{{10 * kPage, kPage}});
  c.written(kPage);
  // Eviction drops the least recently used clean pages, never dirty ones.
  PageCache e;
  e.insert_clean(0, 4 * kPage);           // used first
  e.insert_clean(10 * kPage, 4 * kPage);  // then
  e.write(20 * kPage, 4 * kPage, 0.0);    // dirty
  e.touch(0, kPage);                      // the first run is now the most recent
  e.evict(8 * kPage);
  CHECK(e.cached() == 8 * kPage);
  CHECK(e.misses(10 * kPage, 4 * kPage) == std::vector<Extent>{{10 * kPage, 4 * kPage}});
  CHECK(e.misses(0, 4 * kPage).empty());
  e.evict(0);
  CHECK(e.cached() == 4 * kPage);  // the dirty pages stay
  CHECK(e.dirty() == 4 * kPage);
}

TEST_CASE("page cache configuration: a cache that cannot work is refused, naming its keys",
          "[model][cache]") {
  CHECK(PageCacheConfig{}.problem("pvfs.page_cache_").empty());  // no cache
  PageCacheConfig c = cache_of(1e9);
  CHECK(c.problem("pvfs.page_cache_").empty());
  c.dirty_background_ratio = 0.3;  // above dirty_ratio
  CHECK_THAT(c.problem("pvfs.page_cache_"),
             Catch::Contains("pvfs.page_cache_dirty_background_ratio") && Catch::Contains("at most"));
  c = cache_of(100);
  CHECK_THAT(c.problem("nfs.page_cache_"),
             Catch::Contains("nfs.page_cache_bytes") && Catch::Contains("page"));
  c = cache_of(1e9);
  c.dirty_ratio = 1.5;
  CHECK_THAT(c.problem("local.page_cache_"), Catch::Contains("local.page_cache_dirty_ratio"));
  // Through the platform: a --set that leaves the background above the limit is refused before running.
  PlatformSpec p;
  p.name = "t";
  p.filesystems = {"pvfs"};
  p.pvfs.cache = cache_of(1e9);
  p.pvfs.cache.dirty_background_ratio = 0.5;
  CHECK_THROWS_WITH(config::check_platform(p, "scenario"),
                    Catch::Contains("pvfs.page_cache_dirty_background_ratio"));
}

TEST_CASE("page cache: a write below the background threshold costs the copy and sync adds the disk",
          "[model][cache]") {
  test::SimEngine engine(test::SimEngine::Contexts::threads);  // the flusher, a daemon, is killed at the end
  Rig rig(cache_of(1e9));                                      // background threshold 100 MB
  constexpr std::int64_t bytes = 40'000'000;
  double wrote = -1, synced = -1;
  sg4::Actor::create("writer", rig.host, [&] {
    rig.cache->write(0, bytes);
    wrote = sg4::Engine::get_clock();
    CHECK(rig.disk_written == 0);
    rig.cache->flush();
    synced = sg4::Engine::get_clock();
  });
  engine->run();
  CHECK(wrote == Approx(bytes / kCopyBps));
  // The flusher writes 4 MiB batches one after the other: the disk's time for the (page-rounded) bytes.
  const auto paged = static_cast<double>((bytes + kPage - 1) / kPage * kPage);
  CHECK(synced == Approx(bytes / kCopyBps + paged / kDiskBps).epsilon(kTolerance));
  CHECK(rig.disk_written == static_cast<std::int64_t>(paged));
  CHECK(rig.cache->state().dirty() == 0);
}

TEST_CASE("page cache: a writer past the dirty limit is held to the disk's pace", "[model][cache]") {
  test::SimEngine engine(test::SimEngine::Contexts::threads);  // the flusher, a daemon, is killed at the end
  const PageCacheConfig cfg = cache_of(1e8);                   // limit 20 MB, background 10 MB
  Rig rig(cfg);
  constexpr std::int64_t bytes = 200'000'000;
  double wrote = -1;
  sg4::Actor::create("writer", rig.host, [&] {
    rig.cache->write(0, bytes);
    wrote = sg4::Engine::get_clock();
  });
  engine->run();
  // At the end at most the limit is dirty or under writeback, so the disk has had at least the rest; it
  // starts once the background threshold is passed. A cache that never throttles would take 0.2 s, a
  // write-through disk 4 s.
  const double lower = cfg.background_limit() / kCopyBps + (bytes - cfg.dirty_limit()) / kDiskBps;
  const double batch = 1024.0 * kPage / kDiskBps;
  CHECK(wrote >= lower * (1 - kTolerance));
  CHECK(wrote <= lower + cfg.dirty_limit() / kCopyBps + batch);
  CHECK(static_cast<double>(rig.cache->state().dirty() + rig.cache->state().writeback()) <=
        cfg.dirty_limit());
}

TEST_CASE("page cache: reads hit what it holds and read the rest from the disk", "[model][cache]") {
  test::SimEngine engine(test::SimEngine::Contexts::threads);  // the flusher, a daemon, is killed at the end
  Rig rig(cache_of(1e9));
  constexpr std::int64_t bytes = 8 * 1024 * 1024;
  double hit = -1, miss = -1;
  sg4::Actor::create("reader", rig.host, [&] {
    rig.cache->write(0, bytes);
    DiskOps ops(rig.host, 0);
    double t0 = sg4::Engine::get_clock();
    rig.cache->read(ops, 0, bytes);  // what was just written: in memory
    hit = sg4::Engine::get_clock() - t0;
    t0 = sg4::Engine::get_clock();
    rig.cache->read(ops, bytes, bytes);  // never written: from the disk
    miss = sg4::Engine::get_clock() - t0;
    t0 = sg4::Engine::get_clock();
    rig.cache->read(ops, bytes, bytes);  // now cached
    CHECK(sg4::Engine::get_clock() - t0 == Approx(bytes / kCopyBps));
  });
  engine->run();
  CHECK(hit == Approx(bytes / kCopyBps));
  CHECK(miss == Approx(bytes / kDiskBps + bytes / kCopyBps).epsilon(kTolerance));
  CHECK(rig.disk_read == bytes);
}

TEST_CASE("page cache: the periodic writeback takes a file dirty for longer than the expiry",
          "[model][cache]") {
  test::SimEngine engine(test::SimEngine::Contexts::threads);  // the flusher, a daemon, is killed at the end
  PageCacheConfig cfg = cache_of(1e9);
  cfg.dirty_expire_s = 30;
  cfg.writeback_interval_s = 5;
  Rig rig(cfg);
  std::int64_t dirty_before = -1, dirty_after = -1;
  sg4::Actor::create("writer", rig.host, [&] {
    sg4::this_actor::sleep_for(1.0);
    rig.cache->write(0, 1'000'000);  // dirtied at 1 s: expires at 31 s, found at 35 s
    sg4::this_actor::sleep_until(34.9);
    dirty_before = rig.cache->state().dirty();
    sg4::this_actor::sleep_until(36.0);
    dirty_after = rig.cache->state().dirty() + rig.cache->state().writeback();
  });
  engine->run();
  CHECK(dirty_before > 0);
  CHECK(dirty_after == 0);
  CHECK(rig.disk_written > 0);
}

namespace {

/// One rank writes `bytes` and syncs (the run closes the file); returns the result after checking the file's
/// bytes.
RunResult write_sync_close(RunSpec s, std::int64_t bytes) {
  std::vector<std::byte> data(static_cast<std::size_t>(bytes));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7 + 3);
  std::vector<std::byte> file;
  auto r = sim::run_with(
      s,
      [&](Process& p) {
        p.phase("write");
        p.write_at(0, data);
        p.phase("sync");
        p.file_sync();
      },
      [&](const filesystem::FileStore& f) { file = f.bytes(); });
  CHECK(file == data);
  return r;
}

}  // namespace

TEST_CASE("local page cache: a write costs the copy and sync the disk and close flushes nothing",
          "[model][cache]") {
  constexpr std::int64_t bytes = 20'000'000;
  RunSpec s = test::filesystem_spec("local", 1, 1);
  s.platform.local.cache = cache_of(1e9);
  const RunResult r = write_sync_close(s, bytes);
  const double overhead = s.platform.local.request_overhead_s;
  CHECK(test::phase_time(r, "write") == Approx(overhead + bytes / kCopyBps));
  const auto paged = static_cast<double>((bytes + kPage - 1) / kPage * kPage);
  CHECK(test::phase_time(r, "sync") == Approx(paged / s.platform.local.disk_write_Bps).epsilon(kTolerance));
  CHECK(test::phase_time(r, "close") == Approx(overhead));
}

TEST_CASE("NFS server page cache: UNSTABLE WRITEs land in memory and the close's COMMIT waits for the disk",
          "[model][cache]") {
  constexpr std::int64_t bytes = 20'000'000;
  RunSpec s = test::filesystem_spec("nfs", 1, 1);
  s.platform.nfs.cache = cache_of(1e9);
  std::vector<std::byte> data(static_cast<std::size_t>(bytes), std::byte{5});
  const RunResult r = sim::run_with(s, [&](Process& p) {
    p.phase("write");
    p.write_at(0, data);
  });
  const double disk = static_cast<double>(bytes) / s.platform.nfs.disk_write_Bps;
  CHECK(test::phase_time(r, "write") < disk / 2);  // the network and the server's copy, not the disk
  // The COMMIT: a round trip and the disk's time for the page-rounded bytes.
  CHECK(test::phase_time(r, "close") == Approx(disk).epsilon(0.01));
  CHECK(test::phase_time(r, "close") > disk);
}

TEST_CASE("PVFS server page caches: writes at memory speed and a sync that flushes every server",
          "[model][cache]") {
  constexpr std::int64_t bytes = 20'000'000;
  RunSpec s = test::filesystem_spec("pvfs", 1, 1);
  s.platform.pvfs.io_servers = 4;
  s.platform.pvfs.disk_write_Bps = 10e6;  // slower than the network, so that the disk decides
  s.platform.pvfs.cache = cache_of(1e9);
  const RunResult r = write_sync_close(s, bytes);
  // A quarter of the bytes per server: written through, the write would take at least one server's disk
  // time; cached, the sync pays it (the four servers' flushes run at once).
  const double per_server = static_cast<double>(bytes) / 4 / s.platform.pvfs.disk_write_Bps;
  CHECK(test::phase_time(r, "write") < per_server / 4);
  CHECK(test::phase_time(r, "sync") == Approx(per_server).epsilon(0.02));
}

TEST_CASE("NFS client page cache: a write costs the copy and the close sends it, then COMMITs",
          "[model][cache]") {
  constexpr std::int64_t bytes = 20'000'000;
  RunSpec s = test::filesystem_spec("nfs", 1, 1);
  s.platform.nfs.client_cache = cache_of(1e9);
  std::vector<std::byte> data(static_cast<std::size_t>(bytes));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 11 + 1);
  std::vector<std::byte> file;
  const RunResult r = sim::run_with(
      s,
      [&](Process& p) {
        p.phase("write");
        p.write_at(0, data);
      },
      [&](const filesystem::FileStore& f) { file = f.bytes(); });
  CHECK(file == data);
  CHECK(test::phase_time(r, "write") ==
        Approx(bytes / kCopyBps));  // no RPC yet: the data is in the node's memory
  // The close sends the WRITEs (at least the bytes over the link) and the COMMIT waits for the disk,
  // which the server's write-behind overlapped with them.
  const double disk = static_cast<double>(bytes) / s.platform.nfs.disk_write_Bps;
  CHECK(test::phase_time(r, "close") > disk);
  CHECK(test::phase_time(r, "close") < 1.5 * disk);
}

TEST_CASE("local page cache: two ranks' writes to one file are copied one at a time (the inode lock)",
          "[model][cache]") {
  // Linux's buffered writes hold the inode's lock while they copy (ext4, XFS): two ranks of one node
  // writing 10 MB each at once end one copy apart, even with a core each.
  constexpr std::int64_t bytes = 10'000'000;
  RunSpec s = test::filesystem_spec("local", 2, 1);
  s.platform.cores_per_node = 2;
  s.platform.cpu_cores = 2;
  s.platform.local.cache = cache_of(1e9);
  std::vector<std::byte> data(static_cast<std::size_t>(bytes), std::byte{5});
  const RunResult r = sim::run_with(s, [&](Process& p) {
    p.phase("write");
    p.write_at(p.rank() * bytes, data);
  });
  // Each call's own cost is inside the lock too: two calls' worth.
  const double overhead = s.platform.local.request_overhead_s;
  CHECK(test::phase_time(r, "write") == Approx(2.0 * (overhead + bytes / kCopyBps)));
}

TEST_CASE("local page cache: small writes of two ranks to one file take turns, call costs included",
          "[model][cache]") {
  // 100 writes of 4 KiB per rank at once (Bx = 1024 of 4-byte entries, block-cyclic): every call finds
  // and allocates its pages under the inode lock, so the 200 calls are served one after the other.
  constexpr int calls = 100;
  constexpr std::int64_t bytes = 4096;
  RunSpec s = test::filesystem_spec("local", 2, 1);
  s.platform.cores_per_node = 2;
  s.platform.cpu_cores = 2;
  s.platform.local.cache = cache_of(1e9);
  s.platform.local.request_overhead_s = 3e-6;
  std::vector<std::byte> data(static_cast<std::size_t>(bytes), std::byte{6});
  const RunResult r = sim::run_with(s, [&](Process& p) {
    p.phase("write");
    for (int k = 0; k < calls; ++k) p.write_at((2 * k + p.rank()) * bytes, data);
  });
  CHECK(test::phase_time(r, "write") == Approx(2.0 * calls * (3e-6 + bytes / kCopyBps)));
}

TEST_CASE("local page cache: a write call that adds pages costs new_pages_call_s more, inside the lock",
          "[model][cache]") {
  // Two ranks, 1,024 writes of 4 bytes each into one page apiece (rank r's calls fill page r): only each
  // rank's first call adds a page. All 2,048 calls take turns.
  constexpr int calls = 1024;
  RunSpec s = test::filesystem_spec("local", 2, 1);
  s.platform.cores_per_node = 2;
  s.platform.cpu_cores = 2;
  s.platform.local.cache = cache_of(1e9);
  s.platform.local.request_overhead_s = 7e-7;
  s.platform.local.new_pages_call_s = 1.6e-6;
  const std::vector<std::byte> data(4, std::byte{7});
  const RunResult r = sim::run_with(s, [&](Process& p) {
    p.phase("write");
    for (int k = 0; k < calls; ++k) p.write_at(p.rank() * 4096 + 4 * k, data);
  });
  CHECK(test::phase_time(r, "write") == Approx(2.0 * calls * (7e-7 + 4 / kCopyBps) + 2 * 1.6e-6));
}
