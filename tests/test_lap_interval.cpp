// The LAP aggregator assignment's pure steps (algorithms/lap/aggregation_interval.*) and the mesh
// workload (algorithms/common/distribution mesh, config/workload read_partition): intervals with and
// without a remainder, ACN and AVN counts on hand-made meshes, host grouping, the benefit matrix, where
// the intervals and ROMIO's file domains coincide, and the worked example of docs/two-phase.md (mesh1, 8
// hosts of one rank, AVN). No simulation.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <numeric>

#include "algorithms/common/distribution.hpp"
#include "algorithms/lap/aggregation_interval.hpp"
#include "algorithms/two_phase/two_phase.hpp"
#include "config/workload.hpp"

using namespace ciosim;
using namespace ciosim::lap;

namespace {

std::vector<std::int64_t> v(std::initializer_list<std::int64_t> l) {
  return l;
}

/// A temporary file holding `text`; removed at scope exit.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/ciosim-part-XXXXXX";
    const int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

}  // namespace

TEST_CASE("LAP intervals: one per host, the last absorbing the remainder", "[lap]") {
  const Intervals even = make_intervals(12, 3);
  CHECK(even.size == 4);
  CHECK(even.begin == v({0, 4, 8}));
  CHECK(even.end == v({3, 7, 11}));
  const Intervals rem = make_intervals(11, 3);  // floor(11/3) = 3: [0,2] [3,5] [6,10]
  CHECK(rem.size == 3);
  CHECK(rem.begin == v({0, 3, 6}));
  CHECK(rem.end == v({2, 5, 10}));
  CHECK(make_intervals(5, 1).end == v({4}));
  CHECK_THROWS_WITH(make_intervals(2, 3), Catch::Contains("2 items (mesh nodes) cannot make 3 intervals"));
  CHECK_THROWS_WITH(make_intervals(5, 0), Catch::Contains("at least one host"));
}

TEST_CASE("LAP counts: ACN counts pieces, AVN counts items, split at interval ends", "[lap]") {
  // 10 nodes, 3 intervals [0,2] [3,5] [6,9]; the rank holds nodes 0-3, 5-6 and 9.
  const Intervals iv = make_intervals(10, 3);
  const std::vector<Block> blocks = {{0, 4}, {5, 2}, {9, 1}};
  // {0,4}: 3 nodes in interval 0, 1 in interval 1; {5,2}: 1 in 1, 1 in 2; {9,1}: 1 in 2.
  CHECK(interval_counts(blocks, iv, LapCriterion::Acn) == v({1, 2, 2}));
  CHECK(interval_counts(blocks, iv, LapCriterion::Avn) == v({3, 2, 2}));
  // A block crossing two interval ends is three pieces.
  const std::vector<Block> long_block = {{1, 8}};
  CHECK(interval_counts(long_block, iv, LapCriterion::Acn) == v({1, 1, 1}));
  CHECK(interval_counts(long_block, iv, LapCriterion::Avn) == v({2, 3, 3}));
  // 11 nodes: the last interval is [6,10]; a block starting at 9 >= 3 * 3 belongs to it (the reference
  // computes index 3 and reads past its array).
  const Intervals rem = make_intervals(11, 3);
  const std::vector<Block> tail = {{9, 2}};
  CHECK(interval_counts(tail, rem, LapCriterion::Avn) == v({0, 0, 2}));
  CHECK(interval_counts(tail, rem, LapCriterion::Acn) == v({0, 0, 1}));
}

TEST_CASE("LAP blocks: a rank's entries as maximal runs of whole items", "[lap]") {
  Datatype dt;
  dt.tuples = {{20, 10}, {0, 10}, {10, 10}, {40, 10}};  // out of order; 3 items of 10 entries then one
  const std::vector<Block> b = item_blocks(dt, 10);
  REQUIRE(b.size() == 2);
  CHECK((b[0].start == 0 && b[0].length == 3));
  CHECK((b[1].start == 4 && b[1].length == 1));
  Datatype bad;
  bad.tuples = {{5, 10}};
  CHECK_THROWS_WITH(item_blocks(bad, 10), Catch::Contains("not whole items of 10 entries"));
  CHECK(item_blocks(Datatype{}, 3).empty());
}

TEST_CASE("LAP hosts and the benefit matrix: rows = hosts, columns = intervals", "[lap]") {
  const Hosts h = group_hosts({"b", "a", "b", "c", "a"});
  CHECK(h.names == std::vector<std::string>{"b", "a", "c"});
  CHECK(h.ranks == std::vector<std::vector<int>>{{0, 2}, {1, 4}, {3}});
  const std::vector<std::vector<std::int64_t>> counts = {
      {1, 0, 0}, {0, 2, 0}, {0, 0, 5}, {4, 0, 0}, {0, 3, 1}};
  const Matrix w = benefit_matrix(h, counts);
  // host b = ranks 0, 2; host a = ranks 1, 4; host c = rank 3.
  CHECK(w.a == std::vector<Cost>{1, 0, 5, 0, 5, 1, 4, 0, 0});
  const Choice c = choose(h, w);
  // Best: interval 0 -> c (4), interval 1 -> a (5), interval 2 -> b (5) = 14.
  CHECK(c.interval_host == std::vector<int>{2, 1, 0});
  CHECK(c.ranklist == std::vector<int>{3, 1, 0});  // the lowest rank of each chosen host
  CHECK(c.cb_config_list == "c,a,b");
}

TEST_CASE("LAP intervals coincide with ROMIO's file domains only when the hosts divide the mesh", "[lap]") {
  const std::int64_t item_bytes = 10 * 4;  // load 10 floats
  for (std::int64_t nodes : {12, 11, 13}) {
    const Intervals iv = make_intervals(nodes, 3);
    const std::vector<Offset> st = {0}, end = {nodes * item_bytes - 1};  // the whole file is accessed
    const two_phase::FileDomains fd = two_phase::calc_file_domains(st, end, 3, 0, 0);
    bool same = true;
    for (std::size_t k = 0; k < 3; ++k)
      same = same && fd.start[k] == iv.begin[k] * item_bytes && fd.end[k] == (iv.end[k] + 1) * item_bytes - 1;
    INFO("nodes = " << nodes);
    CHECK(same == (nodes % 3 == 0));
  }
  // 11 nodes: intervals of 3, 3, 5 nodes (120, 120, 200 bytes); ROMIO's domains of ceil(440/3) = 147
  // bytes, the last 146: domain k is shifted against interval k and cuts nodes in two.
  const two_phase::FileDomains fd =
      two_phase::calc_file_domains(std::vector<Offset>{0}, std::vector<Offset>{439}, 3, 0, 0);
  CHECK(fd.start == std::vector<Offset>{0, 147, 294});
}

TEST_CASE("mesh workload: node-major file, each rank's maximal runs of owned nodes", "[lap][workload]") {
  const Distribution d = mesh({0, 0, 1, 0, 1, 1, 2}, 3, 2);
  CHECK(d.nx == 14);
  CHECK(d.unit == 2);
  CHECK(d.per_rank[0].tuples == std::vector<Tuple>{{0, 4}, {6, 2}});
  CHECK(d.per_rank[1].tuples == std::vector<Tuple>{{4, 2}, {8, 4}});
  CHECK(d.per_rank[2].tuples == std::vector<Tuple>{{12, 2}});
  CHECK(check_partition(d).empty());
  // ACN/AVN on it: 7 nodes, 3 intervals [0,1] [2,3] [4,6].
  const Intervals iv = make_intervals(7, 3);
  CHECK(interval_counts(item_blocks(d.per_rank[0], d.unit), iv, LapCriterion::Avn) == v({2, 1, 0}));
  CHECK(interval_counts(item_blocks(d.per_rank[1], d.unit), iv, LapCriterion::Acn) == v({0, 1, 1}));
  CHECK(interval_counts(item_blocks(d.per_rank[1], d.unit), iv, LapCriterion::Avn) == v({0, 1, 2}));
  CHECK_THROWS_WITH(mesh({0, 3}, 3, 1), Catch::Contains("node 1 is owned by rank 3, outside [0, 3)"));
  CHECK_THROWS_WITH(mesh({0}, 1, 0), Catch::Contains("load must be >= 1"));
}

TEST_CASE("partition files: one rank per line, bad lines and wrong sizes are named", "[lap][workload]") {
  TempFile good("1\n0\n1\r\n2\n");
  CHECK(read_partition(good.path, 4, 3) == std::vector<int>{1, 0, 1, 2});
  CHECK_THROWS_WITH(read_partition(good.path, 5, 3),
                    Catch::Contains("has 4 lines (mesh nodes) but workload.nx = 5"));
  CHECK_THROWS_WITH(read_partition(good.path, 4, 4),
                    Catch::Contains("partition into 3 parts (ranks 0..2) but run.ranks = 4"));
  CHECK_THROWS_WITH(read_partition(good.path, 4, 2),
                    Catch::Contains("line 4 assigns rank 2 but run.ranks = 2"));
  TempFile bad("0\nx1\n1\n");
  CHECK_THROWS_WITH(read_partition(bad.path, 3, 2), Catch::Contains("line 2: 'x1' is not a rank"));
  TempFile neg("0\n-1\n");
  CHECK_THROWS_WITH(read_partition(neg.path, 2, 2), Catch::Contains("line 2: '-1' is not a rank"));
  TempFile gap("0\n\n1\n");
  CHECK_THROWS_WITH(read_partition(gap.path, 3, 2), Catch::Contains("line 2 is empty"));
  CHECK_THROWS_WITH(read_partition("/nonexistent/part", 3, 2),
                    Catch::Contains("/nonexistent/part not found"));
  CHECK_THROWS_WITH(read_partition("", 3, 2), Catch::Contains("needs workload.partition"));
}

TEST_CASE(
    "a partition file goes through the input door: no FIFO, device or directory, no file past its bound",
    "[lap][input]") {
  // Each is refused before a byte is read: a FIFO would block forever, /dev/zero never ends, and a
  // partition of N nodes cannot take more than 32 bytes a line.
  char dir[] = "/tmp/ciosim-door-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string fifo = std::string(dir) + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_partition(fifo, 3, 2), Catch::Contains("workload.partition " + fifo + " is a FIFO"));
  CHECK_THROWS_WITH(read_partition(dir, 3, 2),
                    Catch::Contains("is a directory; give a file of one owner rank"));
  CHECK_THROWS_WITH(read_partition("/dev/zero", 3, 2), Catch::Contains("/dev/zero is a device"));
  TempFile big(std::string(32 * 3 + 4096 + 1, '0'));
  CHECK_THROWS_WITH(
      read_partition(big.path, 3, 2),
      Catch::Contains("is 4193 bytes, more than the 4192 bytes that 3 lines of one rank each can take"));
  TempFile fits("0\n1\n1\n");
  CHECK(read_partition(fits.path, 3, 2) == std::vector<int>{0, 1, 1});
  std::remove(fifo.c_str());
  ::rmdir(dir);
}

TEST_CASE("LAP worked example: mesh1, 8 hosts of one rank, AVN (docs/two-phase.md)", "[lap]") {
  // Expected values from the worked example: interval -> host 1 2 6 7 0 3 4 5; the data each aggregator holds
  // locally rises from 2,639 to 16,085 mesh nodes (default: interval k aggregated by host k).
  const std::string path = std::string(CIOSIM_SOURCE_DIR) + "/scenarios/data/bips3d/mesh1/asignacion8";
  const Distribution d = mesh(read_partition(path, 47200, 8), 8, 100);
  const Intervals iv = make_intervals(47200, 8);
  CHECK(iv.size == 5900);
  std::vector<std::vector<std::int64_t>> counts;
  for (int r = 0; r < 8; ++r)
    counts.push_back(
        interval_counts(item_blocks(d.per_rank[static_cast<std::size_t>(r)], d.unit), iv, LapCriterion::Avn));
  std::vector<std::string> names;
  for (int r = 0; r < 8; ++r) names.push_back("host" + std::to_string(r));
  const Hosts hosts = group_hosts(names);
  const Matrix w = benefit_matrix(hosts, counts);
  std::int64_t total = 0, local_default = 0;
  for (int k = 0; k < 8; ++k) {
    local_default += w.at(k, k);
    for (int h = 0; h < 8; ++h) total += w.at(h, k);
  }
  CHECK(total == 47200);
  CHECK(local_default == 2639);
  const Choice c = choose(hosts, w);
  CHECK(c.interval_host == std::vector<int>{1, 2, 6, 7, 0, 3, 4, 5});
  std::int64_t local_lap = 0;
  for (int k = 0; k < 8; ++k) local_lap += w.at(c.interval_host[static_cast<std::size_t>(k)], k);
  CHECK(local_lap == 16085);
  CHECK(c.cb_config_list == "host1,host2,host6,host7,host0,host3,host4,host5");
}
