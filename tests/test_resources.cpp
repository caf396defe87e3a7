// The memory a point will need, estimated before simulating, and the size syntax of --max-memory.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

#include "algorithms/common/distribution.hpp"
#include "config/params.hpp"
#include "config/resources.hpp"
#include "config/workload.hpp"

using namespace ciosim;
using namespace ciosim::config;

namespace {

RunSpec point(const std::string& algorithm, std::int64_t nx) {
  RunSpec r;
  r.algorithm = algorithm;
  r.ranks = 4;
  r.platform.nodes = 4;
  r.workload.nx = nx;
  r.workload.bx = 64;
  r.workload.element_size = 4;
  return r;
}

/// A compare-study point: 16 ranks on 16 nodes, Bx = 1.
RunSpec fine_on_16(const std::string& algorithm, std::int64_t nx, PayloadChoice payload) {
  RunSpec r = point(algorithm, nx);
  r.ranks = 16;
  r.platform.nodes = 16;
  r.workload.bx = 1;
  r.payload = payload;
  return r;
}

/// A point measured on the 2-core VM (docs/history/benchmarks-log.md, 2026-11-27): Bx = 1 on `np` ranks and
/// nodes.
struct Measured {
  int np;
  std::int64_t nx;
  PayloadChoice payload;
  double mib;
};

/// Checks that the estimate of `algorithm` at each point lies between `low` and `high` times its peak.
void check_against(const std::string& algorithm, std::span<const Measured> points, double low, double high) {
  for (const Measured& m : points) {
    RunSpec r = fine_on_16(algorithm, m.nx, m.payload);
    r.ranks = m.np;
    r.platform.nodes = m.np;
    const MemoryEstimate e = estimate_memory(r, workload_size(r.workload, m.np));
    const double mib = static_cast<double>(e.bytes) / (1 << 20);
    INFO(algorithm << " on " << m.np << " ranks, Nx " << m.nx << ": estimated " << mib << " MiB, measured "
                   << m.mib << " (" << e.detail << ")");
    CHECK(mib > low * m.mib);
    CHECK(mib < high * m.mib);
  }
}

}  // namespace

TEST_CASE("estimate_memory: grows with the file, more for the butterfly techniques") {
  const RunSpec small = point("block", 1 << 20), big = point("block", 1 << 26);
  const auto es = estimate_memory(small, block_cyclic(small.workload.nx, 4, 64));
  const auto eb = estimate_memory(big, block_cyclic(big.workload.nx, 4, 64));
  // 256 MiB of file: 2.5 x 256 MiB of payload over the base (measured: 651 MiB resident for block).
  CHECK(eb.bytes > es.bytes);
  CHECK(eb.bytes > 600LL << 20);
  CHECK(eb.bytes < 800LL << 20);
  const RunSpec iec = point("iec", 1 << 26);
  CHECK(estimate_memory(iec, block_cyclic(iec.workload.nx, 4, 64)).bytes > 3 * (eb.bytes - es.bytes) / 2);
  CHECK(eb.detail.find("2.5 x the 256.0 MiB file") != std::string::npos);
}

TEST_CASE("estimate_memory: IEC's periodic lists keep about Np/4 tuples per rank, not one per block") {
  // compare-500mb's Bx = 1 point: 131,072,000 entries on 16 ranks, measured at 3.40 GiB resident
  // (docs/history/benchmarks-log.md, 2026-11-26); one tuple per entry at 48 B would add 5.9 GiB.
  RunSpec iec = fine_on_16("iec", 131072000, PayloadChoice::Bytes);
  const WorkloadSize size = workload_size(iec.workload, iec.ranks);
  const auto e = estimate_memory(iec, size);
  CHECK(e.bytes > 7 * (500LL << 20));
  CHECK(e.bytes < 4LL << 30);
  CHECK(e.detail.find("offset-length tuples") == std::string::npos);
  // Nx/(Np Bx) = 2^20 halves at each of the 4 phases: about Np^2 / 4 tuples. 2^20 + 1 is odd: the list
  // unrolls, one tuple per block (48 B each) again, about 768 MiB more for the same file.
  RunSpec even = iec;
  even.workload.nx = 16LL << 20;
  RunSpec odd = iec;
  odd.workload.nx = 16 * ((1LL << 20) + 1);
  const double extra = static_cast<double>(estimate_memory(odd, workload_size(odd.workload, 16)).bytes -
                                           estimate_memory(even, workload_size(even.workload, 16)).bytes);
  CHECK(extra > 48.0 * ((16 << 20) - 16 * 16 / 4) * 0.99);
  CHECK(extra < 48.0 * (16 << 20) * 1.01);
  // Another technique on the same point keeps one tuple per block.
  RunSpec tp = iec;
  tp.algorithm = "two-phase";
  CHECK(estimate_memory(tp, size).detail.find("offset-length tuples") != std::string::npos);
}

TEST_CASE("estimate_memory: a sequence's steps stay in the file store, view-based's pools hold bytes") {
  RunSpec one = point("two-phase", 1 << 24);  // 64 MiB a step
  const Distribution d = block_cyclic(one.workload.nx, 4, 64);
  const auto e1 = estimate_memory(one, d);
  RunSpec forty = one;
  forty.sequence = "open (write next)*40 close";  // 40 steps: 39 more in the file store
  const auto e40 = estimate_memory(forty, d);
  CHECK(e40.bytes - e1.bytes == 39LL * (64 << 20));
  CHECK(e40.detail.find("2.4 GiB of the sequence's other steps") != std::string::npos);
  RunSpec viewed = one;
  viewed.sequence = "open write view:1048576 write close";  // a view 1 MiB further: one more MiB
  CHECK(estimate_memory(viewed, d).bytes - e1.bytes == 1LL << 20);
  RunSpec vb = forty;
  vb.algorithm = "view-based";  // 4 aggregators x 64 MiB of pool (the default), less than the 2.5 GiB file
  // (and 48 B a tuple where two-phase, storing in file order, keeps 23 B: 2^24 / 64 tuples)
  const std::int64_t list_bytes = 25LL * ((1 << 24) / 64);
  CHECK(estimate_memory(vb, d).bytes - e40.bytes == 4LL * (64 << 20) + list_bytes);
  vb.hints.vb_pool_size = 1LL << 30;  // pools larger than the file: at most the file's 2.5 GiB
  CHECK(estimate_memory(vb, d).bytes - e40.bytes == 40LL * (64 << 20) + list_bytes);
}

TEST_CASE("estimate_memory: a file past 2^63 bytes saturates instead of wrapping") {
  RunSpec r = point("block", std::int64_t{1} << 61);
  r.workload.element_size = 64;
  r.payload = PayloadChoice::Bytes;  // the bytes' size is what saturates (auto would count pieces here)
  Distribution d;
  d.nx = r.workload.nx;
  d.per_rank.resize(4);
  CHECK(estimate_memory(r, d).bytes == INT64_MAX);
}

TEST_CASE("parse_size: bytes with binary and decimal units, errors name the value as written") {
  CHECK(parse_size("4096", "--max-memory") == 4096);
  CHECK(parse_size("8GiB", "--max-memory") == 8LL << 30);
  CHECK(parse_size("512 MiB", "--max-memory") == 512LL << 20);
  CHECK(parse_size("1e9", "--max-memory") == 1000000000);
  CHECK(parse_size("2GB", "--max-memory") == 2000000000);
  for (const char* bad : {"", "lots", "0", "-1GiB", "8 GiBs", "1e30"}) {
    INFO(bad);
    try {
      parse_size(bad, "--max-memory");
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(std::string(e.what()).find(std::string("got \"") + bad + "\"") != std::string::npos);
    }
  }
  CHECK(format_bytes(1536) == "1.5 KiB");
  CHECK(format_bytes(100) == "100 B");
  CHECK(physical_memory() > 0);
}

TEST_CASE("estimate_memory: an elided rank's block-cyclic data is one strided piece, not one per block") {
  // compare-100mb's Bx = 1 point elided: measured 35 MiB resident for Block I/O and IEC
  // (docs/history/benchmarks-log.md, 2026-11-26 third session); a piece per block would be 26 M pieces,
  // gigabytes.
  const RunSpec block = fine_on_16("block", 26214400, PayloadChoice::Elided);
  const WorkloadSize closed = workload_size(block.workload, block.ranks);
  CHECK(closed.pieces == 16);
  CHECK(closed.tuples == 26214400);
  const WorkloadSize built = distribution_size(block_cyclic(block.workload.nx, 16, 1));
  CHECK(built.pieces == 16);
  CHECK(built.tuples == 26214400);
  const MemoryEstimate elided = estimate_memory(block, closed);
  INFO(elided.detail);
  CHECK(elided.detail.find("2.5 x 1.5 KiB of elided pieces") != std::string::npos);  // 16 x 96 B
  RunSpec bytes = block;
  bytes.payload = PayloadChoice::Bytes;
  CHECK(estimate_memory(bytes, closed).bytes - elided.bytes > 2 * (100LL << 20));
  // Two tuples a replica that do not join (a run of 1 and one of 2) stay two pieces a replica.
  Distribution d;
  d.nx = 64;
  d.per_rank = {Datatype{{{0, 1}, {2, 2}}, 16, 4}};
  CHECK(distribution_size(d).pieces == 32);
  // Two tuples that continue each other are one run a replica: the replicas join into one piece.
  d.per_rank = {Datatype{{{0, 1}, {1, 2}}, 16, 4}};
  CHECK(distribution_size(d).pieces == 1);
}

TEST_CASE("estimate_memory: two-phase holds a piece in 23 B when every rank stores in file order") {
  // The closed forms' kinds store every rank's entries in file order (their workload_size says so).
  auto ordered = [](WorkloadSpec w, int ranks) {
    INFO(w.kind << " on " << ranks << " ranks");
    CHECK_FALSE(workload_size(w, ranks).out_of_order);
    CHECK_FALSE(distribution_size(make_distribution(w, ranks)).out_of_order);
  };
  WorkloadSpec w;
  w.element_size = 4;
  for (int ranks : {1, 4, 16}) {
    w.kind = "block-cyclic";
    for (std::int64_t bx : {1, 3, 64}) {
      w.bx = bx;
      w.nx = 48 * 64 * ranks;
      ordered(w, ranks);
    }
    w.kind = "block3d";
    w.nx = 8;
    w.ny = 12;
    w.nz = 16;
    ordered(w, ranks);
    w.kind = "stem2";
    w.nx = 4;
    w.ny = 16;
    w.nz = 3;
    w.nl = 2;
    w.nchem = 2;
    ordered(w, ranks);
    w.kind = "tile";
    w.tiles_x = 2;
    w.tiles_y = ranks / 2 > 0 ? ranks / 2 : 1;
    w.tiles_x = ranks / w.tiles_y;
    w.tile_x = 5;
    w.tile_y = 3;
    w.header_bytes = 8;
    ordered(w, ranks);
  }
  w.kind = "btio";
  w.btio_class = "S";
  w.element_size = 8;
  for (int ranks : {1, 4, 16}) ordered(w, ranks);

  // The compare study's Bx = 1 points, measured (docs/history/benchmarks-log.md, 2026-11-27): the estimate is
  // above each and within 40 %.
  const Measured measured[] = {{16, 26214400, PayloadChoice::Elided, 495},
                               {16, 26214400, PayloadChoice::Bytes, 838},
                               {16, 131072000, PayloadChoice::Elided, 2176},
                               {16, 131072000, PayloadChoice::Bytes, 3707}};
  check_against("two-phase", measured, 1.0, 1.4);
  // A rank that stores out of file order (lists-fig11's rank 3) keeps the memory offsets too: 48 B a piece.
  const Distribution lists = from_lists(16, {{{0, 1}, {7, 2}, {12, 1}},
                                             {{3, 1}, {4, 1}, {9, 1}, {14, 1}},
                                             {{1, 1}, {5, 1}, {10, 1}, {15, 1}},
                                             {{11, 1}, {2, 1}, {13, 1}, {6, 1}}});
  CHECK(distribution_size(lists).out_of_order);
  // Replicas that step back (or overlap) are out of order too.
  Distribution d;
  d.nx = 64;
  d.per_rank = {Datatype{{{0, 2}, {6, 2}}, 4, 4}};
  CHECK(distribution_size(d).out_of_order);
  d.per_rank = {Datatype{{{0, 2}, {6, 2}}, 4, 8}};
  CHECK_FALSE(distribution_size(d).out_of_order);
  RunSpec tp = point("two-phase", 1 << 24);
  tp.workload.bx = 1;
  WorkloadSize ordered_size = workload_size(tp.workload, 4);
  WorkloadSize unordered_size = ordered_size;
  unordered_size.out_of_order = true;
  CHECK(estimate_memory(tp, unordered_size).bytes - estimate_memory(tp, ordered_size).bytes ==
        Approx(25.0 * (1 << 24)).epsilon(0.01));
  // Other techniques keep 48 B a tuple.
  RunSpec block = tp;
  block.algorithm = "block";
  CHECK(estimate_memory(block, ordered_size).bytes - estimate_memory(tp, ordered_size).bytes ==
        Approx(25.0 * (1 << 24)).epsilon(0.01));
}

TEST_CASE("estimate_memory: IEC's executor buffers grow with its phases") {
  // Measured with Bx = 1 on uc3m-2007 (docs/history/benchmarks-log.md, 2026-11-27): a 256 MiB file on 16, 256
  // and 1024 ranks, and Nx = Np^2 on 1024 to 16,384 ranks. The estimate is above each and within 20 %.
  constexpr PayloadChoice bytes = PayloadChoice::Bytes;
  const Measured measured[] = {{16, 1 << 26, bytes, 1804},      {256, 1 << 26, bytes, 2341},
                               {1024, 1 << 26, bytes, 2633},    {1024, 1 << 20, bytes, 92},
                               {4096, 1 << 24, bytes, 861},     {8192, 1 << 26, bytes, 3368},
                               {16384, 1LL << 28, bytes, 13489}};
  check_against("iec", measured, 1.0, 1.2);
}

TEST_CASE("estimate_memory: multiple-phase keeps the whole array on every rank") {
  // Measured with Bx = 1 on uc3m-2007 (docs/history/benchmarks-log.md, 2026-11-27). The bytes grow as Np
  // files; the estimate said 118 MiB for the 1024-rank point that needs 4206 MiB. It is now within 10 % below
  // (the 1024-rank points: -0.1 % with bytes, -6.5 % elided) and at most 3x above (the lists' 48 B a tuple on
  // 4 ranks).
  const Measured measured[] = {
      {4, 1 << 24, PayloadChoice::Bytes, 491},     {16, 1 << 24, PayloadChoice::Bytes, 1286},
      {16, 1 << 24, PayloadChoice::Elided, 1307},  {64, 1 << 20, PayloadChoice::Bytes, 279},
      {64, 1 << 20, PayloadChoice::Elided, 92},    {256, 1 << 20, PayloadChoice::Bytes, 1058},
      {256, 1 << 20, PayloadChoice::Elided, 101},  {1024, 1 << 20, PayloadChoice::Bytes, 4206},
      {1024, 1 << 20, PayloadChoice::Elided, 182}, {16, 1 << 20, PayloadChoice::Bytes, 85}};
  check_against("multiple-phase", measured, 0.9, 3.0);
}

TEST_CASE("run.payload = auto: IEC elided from 1 GiB when every rank's data is one piece, at any Bx") {
  // IEC on 16 ranks, 1 GiB at Bx = 1 (docs/history/benchmarks-log.md, 2026-11-27 third session): elided
  // 16.5 s and 271 MiB against 21.5 s and 7.0 GiB with bytes; its buffers hold a region's streams as one
  // grouped piece.
  for (const std::string a : {"iec", "iec-parametric"}) {
    INFO(a);
    const RunSpec gib = fine_on_16(a, std::int64_t{1} << 28, PayloadChoice::Auto);
    CHECK(auto_chooses_elided(gib, workload_size(gib.workload, gib.ranks)));
    const RunSpec half = fine_on_16(a, std::int64_t{1} << 27, PayloadChoice::Auto);
    CHECK_FALSE(auto_chooses_elided(half, workload_size(half.workload, half.ranks)));  // 512 MiB: bytes
    // The same 1 GiB as a piece per entry (an irregular distribution's size): bytes.
    CHECK_FALSE(auto_chooses_elided(gib, WorkloadSize{268435456.0, 268435456.0, 268435456.0, true}));
  }
  CHECK(technique("iec").whole_streams);
  // Two-phase takes a round's pieces one by one: at Bx = 1 it stays with bytes (1.3x slower elided).
  const RunSpec tp = fine_on_16("two-phase", std::int64_t{1} << 28, PayloadChoice::Auto);
  CHECK_FALSE(auto_chooses_elided(tp, workload_size(tp.workload, tp.ranks)));
  CHECK_FALSE(technique("two-phase").whole_streams);
}

TEST_CASE("estimate_memory: iec-parametric's exchanges, elided and with bytes") {
  // Measured at Nx = Np^2 with the skeleton's settings (docs/history/benchmarks-log.md, 2026-11-27 third
  // session).
  constexpr PayloadChoice elided = PayloadChoice::Elided, bytes = PayloadChoice::Bytes;
  const Measured measured[] = {{4096, 1 << 24, elided, 171},
                               {8192, 1 << 26, elided, 328},
                               {16384, 1LL << 28, elided, 641},
                               {4096, 1 << 24, bytes, 830},
                               {16384, 1LL << 28, bytes, 13255}};
  check_against("iec-parametric", measured, 1.0, 1.3);
}

TEST_CASE("estimate_memory: without guard pages every actor's stack is resident") {
  // Measured with CIOSIM_SIMGRID_CFG='contexts/guard-size:0;contexts/stack-size:16', iec-parametric at
  // Nx = Np^2, elided (docs/history/benchmarks-log.md, 2026-11-27 fourth and fifth sessions). The estimate
  // counts the ranks and, per rank, one request actor for each strip of its chunk (1 at 16,384 ranks, 2 at
  // 32,768, 4 at 65,536): an upper bound, which the measured peaks stay below.
  const char* was = std::getenv("CIOSIM_SIMGRID_CFG");
  const std::string saved = was ? was : "";
  ::setenv("CIOSIM_SIMGRID_CFG", "contexts/guard-size:0;contexts/stack-size:16", 1);
  constexpr PayloadChoice elided = PayloadChoice::Elided;
  const Measured measured[] = {
      {16384, 1LL << 28, elided, 864}, {32768, 1LL << 30, elided, 2251}, {65536, 1LL << 32, elided, 6785}};
  check_against("iec-parametric", measured, 1.0, 1.5);
  RunSpec r = fine_on_16("iec-parametric", 1LL << 32, elided);
  r.ranks = r.platform.nodes = 65536;
  const MemoryEstimate with = estimate_memory(r, workload_size(r.workload, r.ranks));
  CHECK(with.detail.find("of SimGrid stacks from the heap (contexts/guard-size:0: 327680 actors at most, "
                         "16.0 KiB each)") != std::string::npos);
  ::setenv("CIOSIM_SIMGRID_CFG", "contexts/factory:thread", 1);  // guard pages on: no such term
  const MemoryEstimate without = estimate_memory(r, workload_size(r.workload, r.ranks));
  CHECK(without.detail.find("SimGrid stacks") == std::string::npos);
  CHECK(with.bytes - without.bytes == 327680LL * 16 * 1024);
  if (was)
    ::setenv("CIOSIM_SIMGRID_CFG", saved.c_str(), 1);
  else
    ::unsetenv("CIOSIM_SIMGRID_CFG");
}

TEST_CASE("cgroup_memory_limit: the smallest limit on the group's path, v2 and v1, none when unlimited") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("ciosim-cgroup-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto put = [&](const fs::path& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text << "\n";
  };
  // v2: the job's group is unlimited, its parent holds 1 GiB, the root nothing.
  put("proc-v2", "0::/slurm/job_7/step_0");
  put("fs/slurm/job_7/step_0/memory.max", "max");
  put("fs/slurm/job_7/memory.max", "1073741824");
  put("fs/slurm/memory.max", "4294967296");
  CHECK(cgroup_memory_limit((root / "proc-v2").string(), (root / "fs").string()) == 1073741824);
  // v1: the memory controller's hierarchy; v1's "no limit" is a page-rounded LONG_MAX.
  put("proc-v1", "7:cpu,cpuacct:/a\n5:memory:/docker/abc\n");
  put("fs/memory/docker/abc/memory.limit_in_bytes", "9223372036854771712");
  CHECK(cgroup_memory_limit((root / "proc-v1").string(), (root / "fs").string()) == 0);
  put("fs/memory/docker/memory.limit_in_bytes", "536870912");
  std::string file;
  CHECK(cgroup_memory_limit((root / "proc-v1").string(), (root / "fs").string(), &file) == 536870912);
  CHECK(file == "memory.limit_in_bytes");  // named in the refusal as the file that binds
  CHECK(cgroup_memory_limit((root / "proc-v2").string(), (root / "fs").string(), &file) == 1073741824);
  CHECK(file == "memory.max");
  // No such files, or a malformed value: no limit known.
  put("fs/slurm/job_7/memory.max", "lots");
  put("fs/slurm/memory.max", "max");
  CHECK(cgroup_memory_limit((root / "proc-v2").string(), (root / "fs").string()) == 0);
  CHECK(cgroup_memory_limit((root / "missing").string(), (root / "fs").string()) == 0);
  fs::remove_all(root);
}
