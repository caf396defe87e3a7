// The mesh workload's partition computed with METIS from a graph file (config/metis_partition.*): the
// graph reader's checks, and METIS_PartGraphKway on a grid whose good partitions are known (an 8 x 8 grid
// in 4 parts: the quadrant split cuts 16 edges). No simulation.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "config/metis_partition.hpp"
#include "config/workload.hpp"

using namespace ciosim;

namespace {

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/ciosim-graph-XXXXXX";
    const int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    ::close(fd);
    path = name;
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

/// The w x h grid graph in METIS format (node (x, y) = y*w + x + 1).
std::string grid(int w, int h) {
  std::ostringstream out;
  const int edges = (w - 1) * h + w * (h - 1);
  out << "% a " << w << " x " << h << " grid\n" << w * h << " " << edges << "\n";
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      if (y > 0) out << (y - 1) * w + x + 1 << " ";
      if (x > 0) out << y * w + x << " ";
      if (x + 1 < w) out << y * w + x + 2 << " ";
      if (y + 1 < h) out << (y + 1) * w + x + 1 << " ";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace

TEST_CASE("METIS graph files: the reader builds the adjacency and names every bad line", "[lap][metis]") {
  TempFile g(grid(3, 2));  // 6 nodes, 7 edges
  const CsrGraph c = read_metis_graph(g.path, 6);
  CHECK(c.nodes() == 6);
  CHECK(c.xadj == std::vector<std::int32_t>{0, 2, 5, 7, 9, 12, 14});
  CHECK(c.adjncy[0] == 1);  // node 1's neighbours: 2 and 4 (1-based)
  CHECK(c.adjncy[1] == 3);
  CHECK_THROWS_WITH(read_metis_graph(g.path, 7), Catch::Contains("has 6 nodes but workload.nx = 7"));
  TempFile weighted("2 1 011\n2\n1\n");
  CHECK_THROWS_WITH(read_metis_graph(weighted.path, 2), Catch::Contains("line 1: weighted graphs"));
  TempFile range("2 1\n3\n1\n");
  CHECK_THROWS_WITH(read_metis_graph(range.path, 2), Catch::Contains("line 2: neighbour 3 of node 1"));
  TempFile asym("3 1\n2\n\n2\n");
  CHECK_THROWS_WITH(read_metis_graph(asym.path, 3), Catch::Contains("node 1 lists 2 but not the other way"));
  TempFile count("2 2\n2\n1\n");
  CHECK_THROWS_WITH(read_metis_graph(count.path, 2),
                    Catch::Contains("2 adjacencies, the header's 2 edges need 4"));
  // An edge count whose adjacencies (2 M) do not fit in 64 bits either (found by the fuzzer: the check
  // computed 2 M, a signed overflow).
  TempFile huge("2 8888888888888888888\n2\n1\n");
  CHECK_THROWS_WITH(read_metis_graph(huge.path, 2), Catch::Contains("line 1: the graph is too large"));
  TempFile text("2 1\n2 x\n1\n");
  CHECK_THROWS_WITH(read_metis_graph(text.path, 2), Catch::Contains("line 2: '2 x' is not a list"));
  TempFile shortf("3 1\n2\n1\n");
  CHECK_THROWS_WITH(read_metis_graph(shortf.path, 3),
                    Catch::Contains("missing the neighbour list of node 3"));
  TempFile empty("");
  CHECK_THROWS_WITH(read_metis_graph(empty.path, 3), Catch::Contains("missing the header"));
  CHECK_THROWS_WITH(read_metis_graph("/nonexistent/g", 3),
                    Catch::Contains("workload.graph /nonexistent/g not found"));
  CHECK_THROWS_WITH(read_metis_graph("/dev/zero", 3),
                    Catch::Contains("workload.graph /dev/zero is a device"));
}

TEST_CASE("METIS k-way: an 8 x 8 grid in 4 balanced parts with a small cut, deterministically",
          "[lap][metis]") {
  TempFile g(grid(8, 8));
  const CsrGraph c = read_metis_graph(g.path, 64);
  const std::vector<int> part = metis_partition(c, 4);
  REQUIRE(part.size() == 64);
  std::vector<int> sizes(4, 0);
  for (int p : part) {
    REQUIRE(p >= 0);
    REQUIRE(p < 4);
    ++sizes[static_cast<std::size_t>(p)];
  }
  for (int s : sizes) {
    CHECK(s >= 12);  // METIS's default imbalance is 3 %: 16 +- a little
    CHECK(s <= 20);
  }
  int cut = 0;
  for (std::int64_t i = 0; i < c.nodes(); ++i)
    for (std::int32_t k = c.xadj[static_cast<std::size_t>(i)]; k < c.xadj[static_cast<std::size_t>(i) + 1];
         ++k)
      cut += part[static_cast<std::size_t>(i)] !=
             part[static_cast<std::size_t>(c.adjncy[static_cast<std::size_t>(k)])];
  cut /= 2;
  CHECK(cut >= 16);          // no 4-way balanced partition of the grid cuts fewer than the quadrants
  CHECK(cut <= 16 * 3 / 2);  // and METIS gets within 1.5x of them
  CHECK(metis_partition(c, 4) == part);  // fixed seed
  CHECK(metis_partition(c, 1) == std::vector<int>(64, 0));
  CHECK_THROWS_WITH(metis_partition(c, 0), Catch::Contains("parts must be >= 1"));
}

TEST_CASE("mesh workload from a METIS graph: exactly one of partition and graph", "[lap][metis][workload]") {
  TempFile g(grid(6, 5));
  WorkloadSpec w;
  w.kind = "mesh";
  w.nx = 30;
  w.load = 2;
  w.graph = g.path;
  const Distribution d = make_distribution(w, 3);
  CHECK(d.nx == 60);
  std::int64_t held = 0;
  for (const Datatype& dt : d.per_rank) {
    CHECK(dt.size() > 0);
    held += dt.size();
  }
  CHECK(held == 60);
  w.partition = g.path;
  CHECK_THROWS_WITH(make_distribution(w, 3), Catch::Contains("exactly one of workload.partition"));
  w.partition.clear();
  w.graph.clear();
  CHECK_THROWS_WITH(make_distribution(w, 3), Catch::Contains("exactly one of workload.partition"));
}
