// The file-system seam and the NFS and local-disk models, against their closed forms
// (models/nfs/nfs_time.hpp, models/local/local_time.hpp), and the platform file's [filesystem] table.
// Each TEST_CASE runs at most one SimGrid engine (ctest runs every TEST_CASE in its own process).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "models/local/local_time.hpp"
#include "models/network/profiles.hpp"
#include "models/nfs/nfs_time.hpp"
#include "sim/simulate.hpp"
#include "tests/result_phase.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

// SimGrid's disk actions end about 6e-6 (relative) late (tests/test_sim_models.cpp, kPvfsTolerance).
constexpr double kTolerance = 1e-5;

std::vector<std::byte> pattern(std::int64_t bytes, int seed) {
  std::vector<std::byte> d(static_cast<std::size_t>(bytes));
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::byte>(i * 13 + 7 * seed + 1);
  return d;
}

/// One rank writes `bytes` at offset 0 over NFS; returns the result and the file.
RunResult nfs_lone_write(const NfsConfig& cfg, std::int64_t bytes, std::vector<std::byte>* file) {
  RunSpec s = test::filesystem_spec("nfs", 1, 1);
  s.platform.nfs = cfg;
  const std::vector<std::byte> data = pattern(bytes, 1);
  auto r = sim::run_with(
      s,
      [&](Process& p) {
        p.phase("write");
        p.write_at(0, data);
      },
      [&](const filesystem::FileStore& f) { *file = f.bytes(); });
  CHECK(*file == data);
  return r;
}

}  // namespace

TEST_CASE("NFS, sync commit, one RPC in flight: each WRITE waits for the disk", "[model][nfs]") {
  NfsConfig cfg;
  cfg.commit = "sync";
  cfg.max_outstanding = 1;
  const std::int64_t bytes = 10 * cfg.wsize + 1000;  // a short last RPC
  std::vector<std::byte> file;
  const RunResult r = nfs_lone_write(cfg, bytes, &file);
  const auto expected = nfs::lone_write_times(bytes, cfg, network_profile("myrinet"));
  CHECK(test::phase_time(r, "write") == Approx(expected.write_s).epsilon(kTolerance));
  CHECK(test::phase_time(r, "close") == 0);  // nothing to commit
  // Disk-bound: at 50 MB/s the disk takes 6.6 ms of each 32 KiB WRITE; the sum is at least that.
  CHECK(test::phase_time(r, "write") > static_cast<double>(bytes) / cfg.disk_write_Bps);
}

TEST_CASE("NFS, async commit, slow disk: the close's COMMIT waits for the flush", "[model][nfs]") {
  NfsConfig cfg;
  cfg.commit = "async";
  cfg.max_outstanding = 1;
  cfg.disk_write_Bps = 5e6;  // 6.6 ms per 32 KiB on disk, far more than an RPC round trip
  const std::int64_t bytes = 8 * cfg.wsize;
  std::vector<std::byte> file;
  const RunResult r = nfs_lone_write(cfg, bytes, &file);
  const auto expected = nfs::lone_write_times(bytes, cfg, network_profile("myrinet"));
  CHECK(test::phase_time(r, "write") == Approx(expected.write_s).epsilon(kTolerance));
  CHECK(test::phase_time(r, "close") == Approx(expected.close_s).epsilon(kTolerance));
  // The WRITEs return at network speed; the close pays for the disk: most of 8 x 6.6 ms.
  CHECK(test::phase_time(r, "write") < 0.25 * static_cast<double>(bytes) / cfg.disk_write_Bps);
  CHECK(test::phase_time(r, "close") > 0.75 * static_cast<double>(bytes) / cfg.disk_write_Bps);
}

TEST_CASE("NFS, async commit, fast disk: WRITEs and COMMIT as the closed form says", "[model][nfs]") {
  NfsConfig cfg;
  cfg.commit = "async";
  cfg.max_outstanding = 1;
  cfg.disk_write_Bps = 1e10;
  const std::int64_t bytes = 5 * cfg.wsize;
  std::vector<std::byte> file;
  const RunResult r = nfs_lone_write(cfg, bytes, &file);
  const auto expected = nfs::lone_write_times(bytes, cfg, network_profile("myrinet"));
  CHECK(test::phase_time(r, "write") == Approx(expected.write_s).epsilon(kTolerance));
  CHECK(test::phase_time(r, "close") == Approx(expected.close_s).epsilon(kTolerance));
}

TEST_CASE("NFS: RPCs in flight overlap the network with the disk", "[model][nfs]") {
  NfsConfig cfg;
  cfg.commit = "sync";
  const std::int64_t bytes = 64 * cfg.wsize;
  std::vector<std::byte> file;
  NfsConfig serial = cfg;
  serial.max_outstanding = 1;
  const RunResult r = nfs_lone_write(cfg, bytes, &file);
  const double t = test::phase_time(r, "write");
  // Bounded below by the disk and above by one RPC at a time.
  CHECK(t >= static_cast<double>(bytes) / cfg.disk_write_Bps);
  CHECK(t < nfs::lone_write_times(bytes, serial, network_profile("myrinet")).write_s);
}

TEST_CASE("NFS: two ranks' list writes and reads come back byte for byte", "[model][nfs]") {
  RunSpec s = test::filesystem_spec("nfs", 2, 2);
  // Interleaved 1000-byte regions: rank r owns [2000 i + 1000 r, +1000), across wsize boundaries.
  std::vector<std::vector<std::byte>> back(2);
  std::vector<std::byte> file;
  sim::run_with(
      s,
      [&](Process& p) {
        std::vector<Extent> regions;
        for (int i = 0; i < 70; ++i) regions.push_back({2000 * i + 1000 * p.rank(), 1000});
        const std::vector<std::byte> data = pattern(70000, p.rank());
        p.write_list(regions, data);
        p.barrier();
        std::vector<std::byte> in(data.size());
        p.read_list(regions, in);
        back[static_cast<std::size_t>(p.rank())] = in == data ? in : std::vector<std::byte>{};
      },
      [&](const filesystem::FileStore& f) { file = f.bytes(); });
  CHECK(back[0] == pattern(70000, 0));
  CHECK(back[1] == pattern(70000, 1));
  REQUIRE(file.size() == 140000);
  CHECK(file[1000] == pattern(70000, 1)[0]);
}

TEST_CASE(
    "local disk: a lone write of k regions takes a call and k - 1 regions' costs, and the bytes at disk "
    "speed",
    "[model][local]") {
  RunSpec s = test::filesystem_spec("local", 1, 2);
  s.platform.local.region_overhead_s = 3e-6;   // apart from the call's cost, so that the formula is tested
  s.platform.local.open_overhead_s = 4.5e-4;   // the collective open and close: their own costs, not a
  s.platform.local.close_overhead_s = 1.5e-4;  // call's
  const std::vector<Extent> regions = {{0, 300000}, {500000, 200000}, {900000, 100000}};
  const std::vector<std::byte> data = pattern(600000, 3);
  std::vector<std::byte> file;
  const RunResult r = sim::run_with(
      s,
      [&](Process& p) {
        p.phase("write");
        p.write_list(regions, data);
      },
      [&](const filesystem::FileStore& f) { file = f.bytes(); });
  CHECK(test::phase_time(r, "write") ==
        Approx(local::write_time(600000, 3, 1, s.platform.local)).epsilon(kTolerance));
  CHECK(test::phase_time(r, "write") == Approx(2e-5 + 2 * 3e-6 + 600000 / 50e6).epsilon(kTolerance));
  CHECK(test::phase_time(r, "open") == Approx(4.5e-4));
  CHECK(test::phase_time(r, "close") == Approx(1.5e-4));
  REQUIRE(file.size() == 1000000);
  CHECK(std::equal(data.begin() + 300000, data.begin() + 500000, file.begin() + 500000));
}

TEST_CASE("local disk: two ranks of the file's node share its disk", "[model][local]") {
  RunSpec s = test::filesystem_spec("local", 2, 2);
  s.platform.cores_per_node = 2;  // both ranks on node 0
  s.platform.cpu_cores = 2;
  const RunResult r = sim::run_with(s, [&](Process& p) {
    const std::vector<std::byte> data = pattern(1 << 20, p.rank());
    p.barrier();
    p.phase("write");
    p.write_at(p.rank() << 20, data);
  });
  CHECK(test::phase_time(r, "write") ==
        Approx(local::write_time(1 << 20, 1, 2, s.platform.local)).epsilon(kTolerance));
}

TEST_CASE("local disk: a rank on another node cannot reach the file", "[model][local]") {
  RunSpec s = test::filesystem_spec("local", 2, 2);
  s.platform.local.node = 0;
  try {
    sim::run_with(s, [&](Process& p) {
      const std::vector<std::byte> data = pattern(100, p.rank());
      p.write_at(100 * p.rank(), data);
    });
    FAIL("rank 1 on node1 wrote to node0's local disk");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    CHECK(what.find("rank 1: writes the file from node1") != std::string::npos);
    CHECK(what.find("node0's own disk") != std::string::npos);
  }
}

namespace {
const char* kBase = R"(
name = "t"
[nodes]
count = 2
cores_per_node = 1
cpu_cores = 1
memcpy_Bps = 1e8
tuple_cost_s = 1e-8
loopback_Bps = 1e8
[network]
mpi = "myrinet"
io = "myrinet"
)";
const char* kPvfs = R"(
[pvfs]
io_servers = 2
stripe_size = 65536
disk_write_Bps = 5e7
disk_read_Bps = 5e7
request_overhead_s = 1e-4
metadata_overhead_s = 1e-4
region_overhead_s = 1e-6
client_region_overhead_s = 1e-6
flow_buffer = 65536
max_outstanding = 8
request_header = 256
region_descriptor = 16
)";
const char* kNfs = R"(
[nfs]
commit = "sync"
wsize = 8192
rsize = 8192
max_outstanding = 16
server_threads = 8
rpc_overhead_s = 5e-5
client_rpc_overhead_s = 2e-5
rpc_header = 200
disk_write_Bps = 5e7
disk_read_Bps = 5e7
)";

std::string error_of(const std::string& text) {
  try {
    config::parse_platform(text, "t.toml");
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("platform files: [filesystem] kind picks a described file system", "[config][filesystem]") {
  // Files written before [filesystem] existed have PVFS, and say so.
  const auto old = config::parse_platform(std::string(kBase) + kPvfs, "t.toml");
  CHECK(old.spec.filesystem == "pvfs");
  CHECK(old.spec.filesystems == std::vector<std::string>{"pvfs"});
  // An NFS-only platform needs no [pvfs] table.
  const auto nfs =
      config::parse_platform(std::string(kBase) + "[filesystem]\nkind = \"nfs\"\n" + kNfs, "t.toml");
  CHECK(nfs.spec.filesystem == "nfs");
  CHECK(nfs.spec.filesystems == std::vector<std::string>{"nfs"});
  CHECK(nfs.spec.nfs.wsize == 8192);
  CHECK(nfs.spec.nfs.sync_commit());
  // Written back, it parses to the same platform.
  const auto again = config::parse_platform(config::platform_toml(nfs, ""), "t2.toml");
  CHECK(again.spec.filesystem == "nfs");
  CHECK(again.spec.nfs.rpc_header == 200);
  CHECK(config::platform_toml(again, "") == config::platform_toml(nfs, ""));
}

TEST_CASE("platform files: a bad [filesystem] is one line naming the choices", "[config][filesystem]") {
  const std::string unknown = error_of(std::string(kBase) + "[filesystem]\nkind = \"lustre\"\n" + kPvfs);
  CHECK(unknown.find("filesystem.kind must be one of: pvfs, nfs, local; got \"lustre\"") !=
        std::string::npos);
  const std::string no_table = error_of(std::string(kBase) + "[filesystem]\nkind = \"nfs\"\n" + kPvfs);
  CHECK(no_table.find("needs a [nfs] table") != std::string::npos);
  const std::string partial = error_of(std::string(kBase) + kPvfs + "[nfs]\nwsize = 8192\n");
  CHECK(partial.find("missing required keys nfs.commit") != std::string::npos);
  std::string maybe = kNfs;
  maybe.replace(maybe.find("\"sync\""), 6, "\"maybe\"");
  const std::string commit = error_of(std::string(kBase) + kPvfs + maybe);
  CHECK(commit.find("nfs.commit must be one of: sync, async") != std::string::npos);
  for (const std::string& e : {unknown, no_table, partial, commit}) CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("a simulation whose ranks wait for a message never sent is an error, never a result",
          "[sim][safety]") {
  // Rank 0 waits for a message rank 1 never sends: SimGrid finds no activity that can complete. The run
  // must throw naming the unfinished ranks and the phase they were in, not return a result.
  RunSpec s = test::filesystem_spec("pvfs", 2, 2);
  std::string what;
  try {
    sim::run_with(s, [](Process& p) {
      p.phase("wait");
      if (p.rank() == 0) {
        std::vector<std::byte> buf(8);
        p.recv(1, 7, buf);
      }
    });
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  INFO(what);
  CHECK(what.find("1 of 2 ranks unfinished") != std::string::npos);
  CHECK(what.find("rank 0 was in phase wait") != std::string::npos);
  CHECK(what.find("deadlock") != std::string::npos);
}

namespace {

/// Rank 0 writes `bytes` (PVFS), rank 1 nothing; both close with the platform's `close`. Returns the
/// result; *write_s is rank 0's write.
RunResult late_rank_close(const std::string& close, double* write_s) {
  RunSpec s = test::filesystem_spec("pvfs", 2, 2);
  s.platform.close = close;
  const std::vector<std::byte> data = pattern(8'000'000, 3);
  const RunResult r = sim::run_with(s, [&](Process& p) {
    p.phase("write");
    if (p.rank() == 0) p.write_at(0, data);
  });
  *write_s = test::phase_time(r, "write");
  return r;
}

}  // namespace

TEST_CASE("filesystem.close = barrier: a rank that finished early waits in its close for the slowest",
          "[model][filesystem]") {
  double write_s = 0;
  const RunResult r = late_rank_close("barrier", &write_s);
  // Rank 1 reaches its close at once and leaves it after rank 0's write: the close phase (the maximum
  // over ranks) is that write plus a barrier and a metadata round trip. No call of the technique is added.
  CHECK(test::phase_time(r, "close") > write_s);
  CHECK(test::phase_time(r, "close") < write_s + 1e-3);
  const auto barriers = r.calls.find("barrier");
  CHECK((barriers == r.calls.end() ? 0 : barriers->second) == 0);
  // The close's time on rank 1 is its MPI wait, not file-system work.
  for (const auto& ph : r.phases)
    if (ph.name == "close") CHECK(ph.rank_network_s.at(1) > 0.9 * write_s);
}

TEST_CASE("filesystem.close = local: each rank closes on its own", "[model][filesystem]") {
  double write_s = 0;
  const RunResult r = late_rank_close("local", &write_s);
  CHECK(write_s > 0.01);
  CHECK(test::phase_time(r, "close") < 1e-3);
}
