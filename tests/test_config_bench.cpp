// The configuration of the btio and tile workloads and of the cacau-2008 platform (García Blas, Isaila,
// Singh, Carretero, "View-based collective I/O for MPI-IO", CCGrid 2008, §VI): keys reach the RunSpec,
// workload.nx belongs to neither kind, bad input is a one-line error, the effective configuration reloads,
// and the compute time between BT-IO writes follows NPB's operation count.
#include <catch2/catch.hpp>
#include <filesystem>

#include "config/params.hpp"
#include "config/scenario.hpp"
#include "config/workload.hpp"
#include "tests/scenario_text.hpp"

using namespace ciosim;
using namespace ciosim::config;

namespace {

LoadOptions opt(std::vector<std::string> sets = {}) {
  return test::scenario_options(std::move(sets));
}

const char* kTile = R"(name = "t"
[run]
algorithm = "two-phase"
ranks = [8, 36]
platform = "cacau-2008"
[workload]
kind = "tile"
tile_x = 2048
tile_y = 1536
element_size = 8
)";

const char* kBtio = R"(name = "b"
[run]
algorithm = "two-phase"
ranks = 25
platform = "cacau-2008"
[workload]
kind = "btio"
class = "C"
element_size = 8
)";

std::string error_of(const std::string& text, std::vector<std::string> sets = {}) {
  return test::scenario_error(text, std::move(sets));
}

using test::contains;

}  // namespace

TEST_CASE("btio and tile keys reach the RunSpec; tiles from MPI_Dims_create", "[config][btio][tile]") {
  const Scenario t = parse_scenario(kTile, "s.toml", opt());
  REQUIRE(t.runs.size() == 2);
  CHECK(t.runs[0].workload.tile_x == 2048);
  CHECK(t.runs[0].workload.tile_y == 1536);
  const TileSpec t8 = tile_spec(t.runs[0].workload, 8);
  CHECK((t8.tiles_x == 4 && t8.tiles_y == 2));
  const TileSpec t36 = tile_spec(t.runs[1].workload, 36);
  CHECK((t36.tiles_x == 6 && t36.tiles_y == 6));
  WorkloadSpec w = t.runs[0].workload;
  w.tiles_y = 1;  // one row of 8 tiles
  CHECK(tile_spec(w, 8).tiles_x == 8);
  const Distribution d = make_distribution(t.runs[1].workload, 36);
  CHECK(d.nx == 36 * 2048 * 1536);

  const Scenario b = parse_scenario(kBtio, "s.toml", opt());
  REQUIRE(b.runs.size() == 1);
  CHECK(b.runs[0].workload.btio_class == "C");
  CHECK(b.runs[0].workload.mflops == 640);
  CHECK(make_distribution(b.runs[0].workload, 25).nx == 5 * 162 * 162 * 162);
  // The saved effective configuration loads back to the same points.
  const Scenario again = parse_scenario(effective_config_toml(b), "e.toml", opt());
  CHECK(again.runs[0].workload.btio_class == "C");
  const Scenario again_t = parse_scenario(effective_config_toml(t), "e.toml", opt());
  CHECK(again_t.runs[1].workload.tile_y == 1536);
}

TEST_CASE("btio compute time between writes: 5 steps of NPB's operation count over the ranks",
          "[config][btio]") {
  WorkloadSpec w;
  w.kind = "btio";
  w.btio_class = "B";
  const double flops = 3478.8 * 102 * 102 * 102 - 17655.7 * 102 * 102 + 28023.7 * 102;
  CHECK(btio_compute_s(w, 25) == Approx(5 * flops / (25 * 640e6)));
  CHECK(btio_compute_s(w, 4) == Approx(6.857).epsilon(1e-3));
  w.mflops = 1280;
  CHECK(btio_compute_s(w, 4) == Approx(6.857 / 2).epsilon(1e-3));
}

TEST_CASE("btio and tile: bad input is a one-line error naming the valid choices", "[config][btio][tile]") {
  const std::string square = error_of(kBtio, {"run.ranks=8"});
  CHECK(contains(square, "square number of ranks"));
  CHECK(error_of(kBtio, {"workload.class=W", "run.ranks=64"}).empty());  // 24 / 8 = 3 points per cell
  CHECK(contains(error_of(kBtio, {"workload.class=D"}), "valid choices: S, W, A, B, C"));
  CHECK(contains(error_of(kBtio, {"workload.element_size=4"}), "set workload.element_size = 8"));
  CHECK(contains(error_of(kBtio, {"workload.nx=100"}), "workload.nx is given but workload.kind is not"));
  CHECK(contains(error_of(kBtio, {"workload.tile_x=4"}),
                 "workload.tile_x is given but workload.kind is not tile"));
  CHECK(contains(error_of(kTile, {"workload.overlap_x=2"}), "overlap_x/overlap_y must be 0"));
  CHECK(contains(error_of(kTile, {"workload.tiles_x=3"}),
                 "run.ranks = 8 is not a multiple of workload.tiles_x = 3"));
  CHECK(contains(error_of(kTile, {"workload.header_bytes=12"}), "multiple of workload.element_size = 8"));
  CHECK(contains(error_of(kTile, {"workload.tile_x=0"}), "needs workload.tile_x and workload.tile_y >= 1"));
  CHECK(contains(error_of(kTile, {"workload.class=B"}),
                 "workload.class is given but workload.kind is not btio"));
  for (const std::string& e : {square, error_of(kTile, {"workload.overlap_x=2"})})
    CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("the cacau-2008 platform: the paper's PVFS2 and one process per node, IPoIB for both networks",
          "[config][cacau]") {
  const RunSpec r = parse_scenario(kBtio, "s.toml", opt()).runs.at(0);
  CHECK(r.platform.pvfs.io_servers == 8);
  CHECK(r.platform.pvfs.stripe_size == 65536);
  CHECK(r.platform.cores_per_node == 1);
  CHECK(r.platform.nodes == 64);
  CHECK(r.network_mpi == "cacau-ipoib");
  CHECK(r.network_io == "cacau-ipoib");
  CHECK(contains(error_of(kBtio, {"run.ranks=81"}), "exceeds the 64 cores of platform"));
}
