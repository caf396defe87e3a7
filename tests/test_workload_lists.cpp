// The `lists` workload: per-rank (offset, length) tuples from a TOML file (IEC paper, Fig. 11).
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <string>

#include "algorithms/iec/iec.hpp"
#include "config/workload.hpp"

using namespace ciosim;

namespace {
std::string write_temp(const std::string& text) {
  char name[] = "/tmp/ciosim-lists-XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  std::ofstream(name) << text;
  return name;
}
WorkloadSpec lists(std::int64_t nx, const std::string& file) {
  WorkloadSpec w;
  w.kind = "lists";
  w.nx = nx;
  w.file = file;
  return w;
}
}  // namespace

TEST_CASE("the shipped Fig. 11 lists give rank 0 the paper's datatype and IEC can write them", "[workload]") {
  const Distribution d =
      make_distribution(lists(16, CIOSIM_SOURCE_DIR "/scenarios/data/fig11-lists.toml"), 4);
  REQUIRE(d.nprocs() == 4);
  CHECK(d.per_rank[0].tuples == std::vector<Tuple>{{0, 1}, {7, 2}, {12, 1}});
  CHECK(phy2log(d.per_rank[0], 2) == 8);  // Fig. 11: physical 2 is logical 8
  CHECK(iec::check(d).empty());
}

TEST_CASE("malformed lists files are rejected with one line naming the problem", "[workload]") {
  const std::string wrong_ranks = write_temp("ranks = [ [[0, 2]], [[2, 2]] ]\n");
  CHECK_THROWS_WITH(make_distribution(lists(4, wrong_ranks), 4),
                    Catch::Contains("lists 2 ranks but run.ranks = 4"));
  const std::string not_pairs = write_temp("ranks = [ [[0, 2, 1]], [[2, 2]] ]\n");
  CHECK_THROWS_WITH(make_distribution(lists(4, not_pairs), 2), Catch::Contains("[offset, length] pairs"));
  const std::string gap = write_temp("ranks = [ [[0, 1]], [[2, 2]] ]\n");
  CHECK_THROWS_WITH(make_distribution(lists(4, gap), 2), Catch::Contains("entry 1 of x is held by no rank"));
  const std::string bad_toml = write_temp("ranks = [ [[0, 1] \n");
  CHECK_THROWS_WITH(make_distribution(lists(4, bad_toml), 2), Catch::Contains(bad_toml));
  CHECK_THROWS_WITH(make_distribution(lists(4, "/nonexistent/lists.toml"), 2),
                    Catch::Contains("/nonexistent/lists.toml"));
  for (const auto& f : {wrong_ranks, not_pairs, gap, bad_toml}) std::remove(f.c_str());
}
