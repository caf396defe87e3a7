// Configuration layer: parameter table, platform files, scenario parsing and sweep expansion, --set
// overrides, every bad-input path, the effective configuration, results JSON/CSV and the RunResult codec.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "algorithms/technique.hpp"
#include "config/params.hpp"
#include "config/placement.hpp"
#include "config/platform_file.hpp"
#include "config/results.hpp"
#include "config/scenario.hpp"
#include "config_fixture.hpp"
#include "models/network/profiles.hpp"

namespace fs = std::filesystem;
using namespace ciosim;
using namespace ciosim::config;
using namespace ciosim::test;

namespace {

const char* kScenario = R"(name = "t"
[run]
algorithm = ["iec", "block"]
ranks = 4
platform = "tiny"
[workload]
nx = 1024
bx = [1, 4, 16]
)";

}  // namespace

TEST_CASE("parameters: declared once, unique, choices from the registries") {
  const auto params = parameters({"p1", "p2"});
  std::set<std::string> keys;
  for (const auto& p : params) CHECK(keys.insert(p.key).second);
  CHECK(params.front().key == "run.algorithm");
  std::vector<std::string> algos;
  for (const auto& t : techniques()) algos.push_back(t.name);
  CHECK(param(params, "run.algorithm").choices == algos);
  std::vector<std::string> nets;
  for (const auto& n : network_profiles()) nets.push_back(n.name);
  CHECK(param(params, "network.mpi").choices == nets);
  CHECK(param(params, "run.platform").choices == std::vector<std::string>{"p1", "p2"});
  CHECK(param(params, "workload.kind").choices == std::vector<std::string>{"block-cyclic", "irregular",
                                                                           "lists", "block3d", "stem2",
                                                                           "mesh", "btio", "tile", "trace"});
  CHECK(param(params, "hints.lap").choices == std::vector<std::string>{"none", "acn", "avn"});
  CHECK(param(params, "hints.lap").default_text() == "none");
  CHECK(param(params, "run.iterations").default_text() == "1");
  CHECK(param(params, "network.io").default_text() == "(platform's)");
  CHECK(param(params, "workload.nx").required());
  CHECK(contains(error_of([&] { param(params, "run.nope"); }), "run.ranks"));
}

TEST_CASE("check_value: types, ranges and choices") {
  const auto params = parameters({"tiny"});
  CHECK_NOTHROW(check_value(param(params, "workload.bx"), Value{std::int64_t{8}}));
  CHECK(
      contains(error_of([&] { check_value(param(params, "workload.bx"), Value{std::int64_t{0}}); }), ">= 1"));
  CHECK(contains(error_of([&] { check_value(param(params, "workload.nx"), Value{std::string("100MiB")}); }),
                 "must be an integer"));
  const std::string e = error_of([&] { check_value(param(params, "network.mpi"), Value{std::string("x")}); });
  CHECK(contains(e, "myrinet"));
  CHECK(contains(e, "fast-ethernet"));
  CHECK(contains(error_of([&] { check_value(param(params, "run.platform"), Value{std::string("nope")}); }),
                 "tiny"));
  CHECK_NOTHROW(check_value(param(params, "run.platform"), Value{std::string("dir/x.toml")}));
}

TEST_CASE("platform file: values, sources, defaults of the name") {
  const PlatformFile p = parse_platform(kPlatform, "tiny.toml");
  CHECK(p.spec.name == "tiny");
  CHECK(p.spec.nodes == 4);
  CHECK(p.spec.network_io == "fast-ethernet");
  CHECK(p.spec.pvfs.io_servers == 2);
  CHECK(p.spec.pvfs.disk_read_Bps == 4.5e7);
  CHECK(p.spec.loopback_Bps == 1e9);
  // A file without the later keys (written before they existed) keeps the earlier model: one core per
  // placed rank, open and close cost request_overhead_s each; each default is recorded as a source.
  CHECK(p.spec.cpu_cores == p.spec.cores_per_node);
  CHECK(p.spec.pvfs.metadata_overhead_s == p.spec.pvfs.request_overhead_s);
  // Without a [filesystem] table the platform has PVFS, the only file system before the table existed.
  CHECK(p.spec.filesystem == "pvfs");
  // Nor a disk geometry: a disk without position, a bandwidth only.
  CHECK_FALSE(p.spec.pvfs.disk.positioned());
  // Nor a page cache: the disk is written through; its copy speed, unused then, is the nodes' memcpy.
  CHECK_FALSE(p.spec.pvfs.cache.enabled());
  CHECK(p.spec.pvfs.cache.copy_Bps == p.spec.memcpy_Bps);
  // Nor a [filesystem] close: each rank closes on its own.
  CHECK(p.spec.close == "local");
  // Nor a server placement: the servers have hosts of their own.
  CHECK(p.spec.pvfs.server_placement == "dedicated");
  REQUIRE(p.sources.size() == 18);
  CHECK(p.sources[0].first == "filesystem.close_source");
  CHECK(p.sources[0].second.find("as before the key existed") != std::string::npos);
  CHECK(p.sources[1].first == "filesystem.kind_source");
  CHECK(p.sources[1].second.find("pvfs") != std::string::npos);
  CHECK(p.sources[2] == std::pair<std::string, std::string>{"nodes.count_source", "test"});
  CHECK(p.sources[3].first == "nodes.cpu_cores_source");
  CHECK(p.sources[3].second.find("nodes.cores_per_node") != std::string::npos);
  // Nor the MPI library's cost per piece: run.cpu_charge = "library" refuses the platform.
  CHECK(p.sources[4].first == "nodes.romio_piece_s_source");
  CHECK(p.spec.romio_piece_s == 0);
  CHECK(p.sources[5].first == "pvfs.disk_capacity_bytes_source");
  CHECK(p.sources[5].second.find("without position") != std::string::npos);
  CHECK(p.sources[6].first == "pvfs.disk_read_Bps_source");
  CHECK(p.sources[7].first == "pvfs.disk_rpm_source");
  CHECK(p.sources[8].first == "pvfs.disk_seek_full_s_source");
  CHECK(p.sources[9].first == "pvfs.disk_seek_track_s_source");
  CHECK(p.sources[10].first == "pvfs.metadata_overhead_s_source");
  CHECK(p.sources[10].second.find("pvfs.request_overhead_s") != std::string::npos);
  CHECK(p.sources[11].first == "pvfs.page_cache_bytes_source");
  CHECK(p.sources[11].second.find("no page cache") != std::string::npos);
  CHECK(p.sources[12].first == "pvfs.page_cache_copy_Bps_source");
  CHECK(p.sources[12].second.find("nodes.memcpy_Bps") != std::string::npos);
  CHECK(p.sources[13].first == "pvfs.page_cache_dirty_background_ratio_source");
  CHECK(p.sources[15].first == "pvfs.page_cache_dirty_ratio_source");
  CHECK(p.sources[15].second.find("vm.dirty_ratio") != std::string::npos);
  CHECK(p.sources[17].first == "pvfs.server_placement_source");
  CHECK(p.sources[17].second.find("dedicated") != std::string::npos);
  std::string unnamed = kPlatform;
  unnamed.erase(0, unnamed.find('\n') + 1);
  CHECK(parse_platform(unnamed, "dir/stem.toml").spec.name == "stem");
}

TEST_CASE("platform file: a disk geometry is complete and consistent, or refused naming its keys") {
  PlatformFile f = parse_platform(kPlatform, "tiny.toml");
  PlatformSpec p = f.spec;
  p.pvfs.disk.rpm = 7200;  // a head, but no span for its seeks
  CHECK_THROWS_WITH(check_platform(p, "x"), Catch::Contains("pvfs.disk_capacity_bytes must be > 0"));
  p.pvfs.disk.capacity_bytes = 8e10;
  p.pvfs.disk.seek_track_s = 2e-3;
  p.pvfs.disk.seek_full_s = 1e-3;
  CHECK_THROWS_WITH(check_platform(p, "x"),
                    Catch::Contains("pvfs.disk_seek_full_s (0.001 s) must be at least"));
  p.pvfs.disk.seek_full_s = 15e-3;
  CHECK_NOTHROW(check_platform(p, "x"));
  // In the file itself: the same check when it is read.
  std::string text = kPlatform;
  const auto at = text.find("[pvfs]\n");
  REQUIRE(at != std::string::npos);
  text.insert(at + 7, "disk_rpm = 7200\n");
  CHECK_THROWS_WITH(parse_platform(text, "tiny.toml"),
                    Catch::Contains("pvfs.disk_capacity_bytes must be > 0"));
}

TEST_CASE("platform file: written TOML parses back to the same platform") {
  const PlatformFile p = parse_platform(kPlatform, "tiny.toml");
  const std::string text = platform_toml(p, "");
  const PlatformFile q = parse_platform(text, "again.toml");
  CHECK(platform_toml(q, "") == text);
  CHECK(q.sources == p.sources);
  CHECK(platform_json(p)["pvfs"]["disk_read_Bps_source"] == "a datasheet");
}

TEST_CASE("platform file: every bad input is a one-line error naming the problem") {
  const auto with = [](const std::string& find, const std::string& replace) {
    std::string t = kPlatform;
    const auto pos = t.find(find);
    REQUIRE(pos != std::string::npos);
    return t.replace(pos, find.size(), replace);
  };
  std::string e = error_of([&] { parse_platform(with("flow_buffer", "flow_bufer"), "x.toml"); });
  CHECK(contains(e, "pvfs.flow_bufer"));
  CHECK(contains(e, "flow_buffer"));  // the valid keys
  CHECK(contains(error_of([&] { parse_platform(std::string(kPlatform) + "[gpu]\nn = 1\n", "x.toml"); }),
                 "[pvfs]"));
  CHECK(contains(error_of([&] { parse_platform(with("count = 4", "count = \"4\""), "x.toml"); }),
                 "nodes.count"));
  CHECK(contains(error_of([&] { parse_platform(with("count = 4", "count = 4.5"), "x.toml"); }), "integer"));
  CHECK(contains(
      error_of([&] { parse_platform(with("disk_write_Bps = 4e7", "disk_write_Bps = -4e7"), "x.toml"); }),
      "disk_write_Bps must be > 0"));
  CHECK(contains(error_of([&] { parse_platform(with("io_servers = 2", "io_servers = 0"), "x.toml"); }),
                 "io_servers"));
  CHECK(contains(error_of([&] { parse_platform(with("stripe_size = 65536\n", ""), "x.toml"); }),
                 "missing required key pvfs.stripe_size"));
  e = error_of([&] { parse_platform(with("mpi = \"myrinet\"", "mpi = \"token-ring\""), "x.toml"); });
  CHECK(contains(e, "token-ring"));
  CHECK(contains(e, "myrinet"));
  CHECK(contains(
      error_of([&] { parse_platform(with("count_source = \"test\"", "count_source = 3"), "x.toml"); }),
      "count_source"));
  e = error_of([&] { parse_platform("[nodes\ncount = 1", "x.toml"); });
  CHECK(contains(e, "x.toml:1"));
  CHECK(contains(e, "malformed TOML"));
  CHECK(e.find('\n') == std::string::npos);
  CHECK(contains(error_of([] { load_platform_file("/nonexistent/p.toml"); }), "not found"));
}

TEST_CASE("platform lookup by name in the data directories, and by path") {
  DataDir d;
  CHECK(platform_names({d.root}) == std::vector<std::string>{"other", "tiny"});
  CHECK(resolve_platform("tiny", {d.root}) == d.root / "platforms/tiny.toml");
  const std::string e = error_of([&] { resolve_platform("huge", {d.root}); });
  CHECK(contains(e, "huge"));
  CHECK(contains(e, "other, tiny"));
  CHECK(resolve_platform((d.root / "platforms/tiny.toml").string(), {}) == d.root / "platforms/tiny.toml");
}

TEST_CASE("a platform path in a scenario file is relative to that file") {
  DataDir d;
  fs::create_directories(d.root / "sub");
  std::string text = kScenario;
  text.replace(text.find("\"tiny\""), 6, "\"../platforms/tiny.toml\"");
  d.write("sub/s.toml", text);
  const Scenario s = load_scenario(d.root / "sub/s.toml", LoadOptions{});
  CHECK(s.runs[0].platform.name == "tiny");
  const std::string e =
      error_of([&] { load_scenario(d.root / "sub/s.toml", d.opt({"run.platform=../x.toml"})); });
  CHECK(contains(e, "../x.toml not found"));
  const Scenario again = parse_scenario(effective_config_toml(s), "/elsewhere/e.toml", LoadOptions{});
  CHECK(again.runs[0].platform.name == "tiny");  // the inline copy
}

TEST_CASE("sweep expansion: cartesian product in declaration order, last key fastest") {
  DataDir d;
  const Scenario s = parse_scenario(kScenario, "t.toml", d.opt());
  REQUIRE(s.runs.size() == 6);
  const char* algos[] = {"iec", "iec", "iec", "block", "block", "block"};
  const std::int64_t bxs[] = {1, 4, 16, 1, 4, 16};
  for (int i = 0; i < 6; ++i) {
    CHECK(s.runs[i].algorithm == algos[i]);
    CHECK(s.runs[i].workload.bx == bxs[i]);
    CHECK(s.runs[i].params.size() == 2);  // only the swept keys
    CHECK(s.runs[i].params[0].first == "run.algorithm");
    CHECK(s.runs[i].params[1] == std::pair<std::string, std::string>{"workload.bx", std::to_string(bxs[i])});
  }
  const RunSpec& r = s.runs[0];
  CHECK(r.ranks == 4);
  CHECK(r.iterations == 1);
  CHECK(r.workload.nx == 1024);
  CHECK(r.workload.element_size == 4);
  CHECK(r.workload.kind == "block-cyclic");
  CHECK(r.platform.name == "tiny");
  CHECK(r.network_mpi == "myrinet");  // the platform's defaults
  CHECK(r.network_io == "fast-ethernet");
  CHECK(s.name == "t");
}

TEST_CASE("set overrides (--set): TOML values, bare words, lists, last one wins") {
  DataDir d;
  Scenario s = parse_scenario(kScenario, "t.toml",
                              d.opt({"workload.bx=4", "network.mpi=gigabit-ethernet", "run.algorithm=[iec]",
                                     "workload.bx=[1, 2]", "pvfs.io_servers=3", "name=renamed"}));
  REQUIRE(s.runs.size() == 2);
  CHECK(s.name == "renamed");
  CHECK(s.runs[1].workload.bx == 2);
  CHECK(s.runs[1].network_mpi == "gigabit-ethernet");
  CHECK(s.runs[1].platform.network_mpi == "gigabit-ethernet");
  CHECK(s.runs[1].platform.pvfs.io_servers == 3);
  // params: swept or set keys, declaration order
  CHECK(s.runs[1].params ==
        std::vector<std::pair<std::string, std::string>>{{"run.algorithm", "iec"},
                                                         {"network.mpi", "gigabit-ethernet"},
                                                         {"workload.bx", "2"},
                                                         {"pvfs.io_servers", "3"}});
  s = parse_scenario(kScenario, "t.toml",
                     d.opt({"network.io=[myrinet, \"infiniband-sdr\"]", "workload.bx=16"}));
  REQUIRE(s.runs.size() == 4);
  CHECK(s.runs[0].network_io == "myrinet");
  CHECK(s.runs[1].network_io == "infiniband-sdr");
  CHECK(s.runs[2].algorithm == "block");
}

TEST_CASE("hints, run.access and block3d sizes reach the RunSpec, bad hints are one-line errors") {
  DataDir d;
  Scenario s =
      parse_scenario(kScenario, "t.toml",
                     d.opt({"run.algorithm=two-phase", "workload.bx=4", "hints.cb_buffer_size=4096",
                            "hints.cb_nodes=2", "hints.cb_config_list=*:2", "hints.romio_cb_write=disable",
                            "hints.romio_cb_read=enable", "hints.striping_unit=512",
                            "hints.romio_version=2007", "hints.listio_batch=8", "run.access=read"}));
  REQUIRE(s.runs.size() == 1);
  const RunSpec& r = s.runs[0];
  CHECK(r.access == Access::Read);
  CHECK(r.hints.cb_buffer_size == 4096);
  CHECK(r.hints.cb_nodes == 2);
  CHECK(r.hints.cb_config_list == "*:2");
  CHECK(r.hints.cb_write == CbMode::Disable);
  CHECK(r.hints.cb_read == CbMode::Enable);
  CHECK(r.hints.striping_unit == 512);
  CHECK(r.hints.version == RomioVersion::Y2007);
  CHECK(r.hints.listio_batch == 8);
  const RunSpec def = parse_scenario(kScenario, "t.toml", d.opt({"workload.bx=4"})).runs[0];
  CHECK(def.access == Access::Write);
  CHECK(def.hints.cb_buffer_size == 16777216);  // ROMIO's defaults
  CHECK(def.hints.cb_config_list == "*:1");
  CHECK(def.hints.listio_batch == 64);
  s = parse_scenario(R"(name = "b"
[run]
algorithm = "two-phase"
ranks = 4
platform = "tiny"
[workload]
kind = "block3d"
nx = 5
ny = 7
nz = 3
)",
                     "b.toml", d.opt());
  CHECK(s.runs[0].workload.ny == 7);
  CHECK(s.runs[0].workload.nz == 3);
  CHECK(contains(error_of([&] {
                   parse_scenario(kScenario, "t.toml", d.opt({"workload.bx=4", "hints.cb_config_list=a::b"}));
                 }),
                 "hints.cb_config_list"));
  CHECK(contains(error_of([&] {
                   parse_scenario(kScenario, "t.toml", d.opt({"workload.bx=4", "run.access=read"}));
                 }),
                 "no read path"));
  CHECK(
      contains(error_of([&] { parse_scenario(kScenario, "t.toml", d.opt({"workload.nz=2"})); }), "block3d"));
}

TEST_CASE("mesh workload and hints.lap reach the RunSpec, bad partitions and hints are one-line errors") {
  DataDir d;
  d.write("part4", "1\n0\n0\n2\n3\n3\n");  // 6 mesh nodes over 4 ranks
  const std::string text = R"(name = "m"
[run]
algorithm = "two-phase"
ranks = 4
platform = "tiny"
[workload]
kind = "mesh"
nx = 6
partition = "part4"
load = 5
[hints]
lap = ["acn", "avn"]
)";
  d.write("m.toml", text);
  const Scenario s = load_scenario(d.root / "m.toml", d.opt());
  REQUIRE(s.runs.size() == 2);
  CHECK(s.runs[0].hints.lap == LapCriterion::Acn);
  CHECK(s.runs[1].hints.lap == LapCriterion::Avn);
  CHECK(s.runs[0].workload.load == 5);
  CHECK(s.runs[0].workload.partition == (d.root / "part4").string());  // relative to the scenario file
  const auto err = [&](std::vector<std::string> sets) {
    const std::string e = error_of([&] { load_scenario(d.root / "m.toml", d.opt(sets)); });
    CHECK(e.find('\n') == std::string::npos);
    return e;
  };
  CHECK(err({}).empty());
  CHECK(contains(err({"run.ranks=8", "platform.cores_per_node=2"}),
                 "partition into 4 parts (ranks 0..3) but run.ranks = 8"));
  CHECK(contains(err({"run.ranks=3"}), "assigns rank 3 but run.ranks = 3"));
  CHECK(contains(err({"workload.nx=7"}), "has 6 lines (mesh nodes) but workload.nx = 7"));
  CHECK(contains(err({"hints.lap=best"}), "valid choices: none, acn, avn"));
  CHECK(contains(err({"run.access=read"}), "applies to two-phase writes only"));
  CHECK(contains(err({"workload.partition=nothere"}), "nothere not found"));
  CHECK(contains(error_of([&] { parse_scenario(kScenario, "t.toml", d.opt({"workload.load=3"})); }),
                 "workload.load is given but workload.kind is not mesh"));
}

TEST_CASE("platform overrides and the capacity check") {
  DataDir d;
  Scenario s = parse_scenario(kScenario, "t.toml", d.opt({"platform.cores_per_node=2", "run.ranks=8"}));
  CHECK(s.runs[0].platform.cores_per_node == 2);
  CHECK(s.runs[0].ranks == 8);
  const std::string e = error_of([&] { parse_scenario(kScenario, "t.toml", d.opt({"run.ranks=8"})); });
  CHECK(contains(e, "run.ranks = 8"));
  CHECK(contains(e, "4 cores"));
  CHECK(contains(e, "platform.nodes = 4"));
  CHECK(contains(e, "point 1 of 6"));
  s = parse_scenario(kScenario, "t.toml", d.opt({"run.platform=other", "run.ranks=16", "workload.nx=4096"}));
  CHECK(s.runs[0].platform.nodes == 16);
}

TEST_CASE("scenario: every bad input is a one-line error naming the problem and the choices") {
  DataDir d;
  const auto err = [&](const std::string& text, std::vector<std::string> sets = {}) {
    const std::string e = error_of([&] { parse_scenario(text, "s.toml", d.opt(sets)); });
    CHECK(e.find('\n') == std::string::npos);
    return e;
  };
  std::string e = err(kScenario, {"run.algorithm=romio"});
  CHECK(contains(e, "romio"));
  CHECK(contains(e, "iec, iec-parametric, block"));
  e = err(kScenario, {"network.mpi=token-ring"});
  CHECK(contains(e, "token-ring"));
  CHECK(contains(e, "infiniband-ddr"));
  e = err(kScenario, {"run.platform=bluegene"});
  CHECK(contains(e, "bluegene"));
  CHECK(contains(e, "other, tiny"));
  e = err(std::string(kScenario) + "colour = 3\n");
  CHECK(contains(e, "workload.colour"));
  CHECK(contains(e, "workload.nx"));
  CHECK(contains(err(std::string(kScenario) + "[fs]\nx = 1\n"), "unknown key fs"));
  CHECK(contains(err(kScenario, {"workload.colour=3"}), "unknown key 'workload.colour'"));
  CHECK(contains(err(kScenario, {"oops"}), "expected key=value"));
  CHECK(contains(err(kScenario, {"workload.nx=1000"}), "iec cannot run"));  // 1000 is not divisible by 4*4
  CHECK(contains(err(kScenario, {"run.ranks=3"}), "divisible"));
  CHECK(contains(err(kScenario, {"workload.nx=\"1MiB\""}), "must be an integer"));
  CHECK(contains(err(kScenario, {"workload.bx=2.5"}), "got a float"));
  CHECK(contains(err(kScenario, {"workload.bx=[]"}), "empty list"));
  CHECK(contains(err(kScenario, {"workload.bx=[[1]]"}), "plain values"));
  CHECK(contains(err(kScenario, {"run.ranks=0"}), ">= 1"));
  CHECK(contains(err(kScenario, {"workload.seed=3"}), "workload.seed is given"));
  CHECK(contains(err(kScenario, {"workload.kind=irregular"}), "workload.bx is given"));
  CHECK(contains(err("[run]\nalgorithm = \"iec\"\n"), "missing required parameters run.ranks"));
  CHECK(contains(err("[run\n"), "s.toml:1"));
  CHECK(contains(err("name = \"a b\"\n"), "not valid"));
  CHECK(contains(err("name = 3\n"), "name must be a string"));
  CHECK(contains(err("run = 3\n"), "must be a table"));
  CHECK(contains(error_of([&] { load_scenario("/nonexistent/s.toml", d.opt()); }), "not found"));
}

TEST_CASE("inline platforms and irregular workloads") {
  DataDir d;
  // An inline platform: the platform file's content under [platforms.mine].
  std::string inl = std::string(R"(name = "inl"
[run]
algorithm = "iec"
ranks = 4
platform = "mine"
[workload]
kind = "irregular"
nx = 256
seed = 7
[platforms.mine]
)") + kPlatform;
  for (const char* t : {"nodes", "network", "pvfs"}) {
    const std::string from = std::string("\n[") + t + "]";
    inl.replace(inl.find(from), from.size(), std::string("\n[platforms.mine.") + t + "]");
  }
  const Scenario s = parse_scenario(inl, "inl.toml", d.opt());
  REQUIRE(s.runs.size() == 1);
  CHECK(s.runs[0].workload.kind == "irregular");
  CHECK(s.runs[0].workload.seed == 7);
  CHECK(s.runs[0].platform.pvfs.io_servers == 2);
  CHECK(s.platforms.size() == 1);
  const std::string e = error_of([&] { parse_scenario(inl, "inl.toml", d.opt({"run.platform=tiny"})); });
  CHECK(contains(e, "[platforms.mine] is defined but no point uses it"));
}

TEST_CASE(
    "a step cost per tuple: tuple_cost_s when not given, else in the run and the effective configuration") {
  DataDir d;
  const Scenario plain = parse_scenario(kScenario, "t.toml", d.opt({"workload.nx=2048"}));
  const PlatformSpec& p = plain.runs.front().platform;
  CHECK(p.tuple_cost(Step::Windows) == p.tuple_cost_s);
  CHECK(!contains(effective_config_toml(plain), "tuple_cost_windows_s"));
  const Scenario set =
      parse_scenario(kScenario, "t.toml", d.opt({"workload.nx=2048", "nodes.tuple_cost_windows_s=2e-9"}));
  CHECK(set.runs.front().platform.tuple_cost(Step::Windows) == 2e-9);
  CHECK(set.runs.front().platform.tuple_cost(Step::Views) == set.runs.front().platform.tuple_cost_s);
  CHECK(contains(effective_config_toml(set), "tuple_cost_windows_s = [2e-09]  # --set; platform"));
  CHECK(contains(effective_config_toml(set), "does not give it: nodes.tuple_cost_s"));
  // The node's memory, not given either, is stood in for by memcpy_Bps (each copy at its core's rate).
  const Scenario memory =
      parse_scenario(kScenario, "t.toml", d.opt({"workload.nx=2048", "nodes.memory_Bps=4e9"}));
  CHECK(memory.runs.front().platform.memory_Bps == 4e9);
  CHECK(contains(effective_config_toml(memory),
                 "memory_Bps = [4e+09]  # --set; platform \"tiny\" does "
                 "not give it: nodes.memcpy_Bps, 3e+08"));
  CHECK(contains(
      error_of([&] {
        parse_scenario(kScenario, "t.toml", d.opt({"workload.nx=2048", "nodes.tuple_cost_views_s=-1"}));
      }),
      "nodes.tuple_cost_views_s"));
}

TEST_CASE("effective configuration: complete, and reproduces the same runs") {
  DataDir d;
  const Scenario s =
      parse_scenario(kScenario, "t.toml", d.opt({"workload.nx=2048", "pvfs.stripe_size=4096"}));
  const std::string toml = effective_config_toml(s);
  for (const auto& p : parameters()) {
    // The test platform describes PVFS only: values of the other file systems have nothing to show.
    if (p.key.starts_with("nfs.") || p.key.starts_with("local.")) continue;
    // A step's own cost per tuple that the platform does not give is left out (it costs tuple_cost_s), and
    // so is the node's memory bandwidth (every copy at memcpy_Bps).
    if (p.key.starts_with("nodes.tuple_cost_") && p.key != "nodes.tuple_cost_s") continue;
    if (p.key == "nodes.memory_Bps") continue;
    CHECK(contains(toml, p.key.substr(p.key.find('.') + 1)));
  }
  CHECK(contains(toml, "[platforms.tiny.pvfs]"));
  CHECK(contains(toml, "disk_read_Bps_source = \"a datasheet\""));
  CHECK(contains(toml, "mpi = \"myrinet\"  # the platform's"));
  CHECK(contains(toml, "iterations = 1  # default"));
  LoadOptions none;  // no data directories: the platform must come from the file itself
  const Scenario again = parse_scenario(toml, "effective-config.toml", none);
  REQUIRE(again.runs.size() == s.runs.size());
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const RunSpec &a = s.runs[i], &b = again.runs[i];
    CHECK(a.algorithm == b.algorithm);
    CHECK(a.params == b.params);
    CHECK(a.workload.nx == b.workload.nx);
    CHECK(a.workload.bx == b.workload.bx);
    CHECK(a.network_mpi == b.network_mpi);
    CHECK(a.platform.pvfs.stripe_size == 4096);
    CHECK(b.platform.pvfs.stripe_size == 4096);
    CHECK(a.platform.pvfs.disk_read_Bps == b.platform.pvfs.disk_read_Bps);
  }
  CHECK(effective_config_toml(again) ==
        effective_config_toml(parse_scenario(toml, "effective-config.toml", none)));
  const auto j = nlohmann::json::parse(effective_config_json(s));
  CHECK(j["parameters"]["workload.nx"]["value"] == 2048);
  CHECK(j["parameters"]["workload.nx"]["from"] == "--set");
  CHECK(j["parameters"]["workload.bx"]["sweep"] == true);
  CHECK(j["platforms"]["tiny"]["pvfs"]["io_servers"] == 2);
}

namespace {

RunResult sample(const std::string& algo, const std::string& bx, double t) {
  RunResult r;
  r.algorithm = algo;
  r.params = {{"run.algorithm", algo}, {"workload.bx", bx}, {"network.mpi", "my,net"}};
  r.ranks = 4;
  r.network_mpi = "myrinet";
  r.network_io = "myrinet";
  r.sim_time_s = t;
  r.phases = algo == "iec" ? std::vector<PhaseTime>{{"inspector", 0.1}, {"write", t / 3}}
                           : std::vector<PhaseTime>{{"write", t}, {"sync", 1e-7}};
  r.calls = {{"isend", 12}, {"file_write", 4}};
  r.bytes_network = 1 << 20;
  r.bytes_file = 4 << 20;
  r.file_verified = algo == "iec";
  return r;
}

}  // namespace

TEST_CASE("results.json follows schema v1") {
  const std::vector<RunResult> runs{sample("iec", "4", 0.1 + 0.2), sample("block", "16", 1e-300)};
  const std::string text = results_json("quick", runs);
  CHECK(text == results_json("quick", runs));  // deterministic
  const auto j = nlohmann::json::parse(text);
  CHECK(j["ciosim_version"].is_string());
  CHECK(j["scenario"] == "quick");
  REQUIRE(j["runs"].size() == 2);
  for (const char* k : {"algorithm", "params", "ranks", "network_mpi", "network_io", "sim_time_s", "phases",
                        "calls", "bytes", "file_verified"})
    CHECK(j["runs"][0].contains(k));
  const auto& r = j["runs"][0];
  CHECK(r["params"]["workload.bx"] == 4);  // integer parameters are numbers
  CHECK(r["params"]["run.algorithm"] == "iec");
  CHECK(r["sim_time_s"].get<double>() == 0.1 + 0.2);
  CHECK(r["phases"][0]["name"] == "inspector");
  CHECK(r["phases"][0]["time_s"] == 0.1);
  CHECK(r["calls"]["isend"] == 12);
  CHECK(r["bytes"]["network"] == 1 << 20);
  CHECK(r["bytes"]["file"] == 4 << 20);
  CHECK(r["file_verified"] == true);
  CHECK(j["runs"][1]["sim_time_s"].get<double>() == 1e-300);
}

TEST_CASE("results.csv: one row per run, union of phase columns") {
  const std::vector<RunResult> runs{sample("iec", "4", 2.5), sample("block", "16", 3)};
  const std::string csv = results_csv(runs);
  std::istringstream in(csv);
  std::string header, row1, row2, extra;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  CHECK_FALSE(std::getline(in, extra));
  // No column twice (run.algorithm and network.mpi have their own), units in the names, phases in time
  // order, a run number to join phases.csv on.
  CHECK(header ==
        "run,algorithm,workload.bx,ranks,network_mpi,network_io,sim_time_s,phase_inspector_s,phase_write_s,"
        "phase_sync_s,bytes_network,bytes_file,file_verified,bottleneck");
  CHECK(row1 == "1,iec,4,4,myrinet,myrinet,2.5,0.1,0.8333333333333334,,1048576,4194304,true,");
  CHECK(row2 == "2,block,16,4,myrinet,myrinet,3,,3,1e-07,1048576,4194304,false,");
  const std::string table = results_table(runs);
  CHECK(contains(table, "sim_time_s"));
  CHECK(contains(table, "2.500000"));
  CHECK(contains(table, "inspector"));
}

TEST_CASE("results.csv orders the phases of all runs in time order; measured times are not sim_time_s") {
  RunResult a = sample("block", "1", 1);
  a.phases = {{"open", 0.1}, {"write", 0.5}, {"close", 0.1}};
  RunResult b = sample("iec", "1", 1);
  b.phases = {{"open", 0.1}, {"inspector", 0.2}, {"exchange", 0.3}, {"write", 0.5}, {"close", 0.1}};
  const std::string csv = results_csv({a, b});
  CHECK(csv.substr(0, csv.find('\n'))
            .find("phase_open_s,phase_inspector_s,phase_exchange_s,phase_write_s,phase_close_s,") !=
        std::string::npos);
  const std::string measured = results_csv({a}, Clock::Measured);
  CHECK(measured.find("sim_time_s") == std::string::npos);
  CHECK(measured.find(",measured_time_s,") != std::string::npos);
  const std::string json = results_json("m", {a}, Clock::Measured);
  CHECK(json.find("sim_time_s") == std::string::npos);
  CHECK(parse_results_json(json, "m").front().sim_time_s == 1);
}

TEST_CASE("RunResult JSON round trip is exact") {
  RunResult r = sample("iec", "1024", 0.1 + 0.2);
  r.phases.push_back({"exchange0", 1.0 / 3.0});
  r.phases.push_back({"pack", 5e-324});
  r.phases[0].start_s = 0.25;
  r.phases[0].end_s = 1.0 / 7.0;
  r.phases[0].rank_time_s = {0.1, 0.2};
  r.phases[0].rank_cpu_s = {0.01, 1e-300};
  r.phases[0].rank_network_s = {0.02, 0.03};
  r.phases[0].rank_filesystem_s = {0.04, 0.05};
  r.phases[0].resources = {{"disk", 2, 0.5, 0.75, "iod1 disk", 1.0 / 3.0}};
  r.phases[0].calls = {{"alltoall", 2}, {"isend", 6}};
  r.phases[0].bytes_sent = {{"alltoall", 32}, {"isend", 3 << 20}};
  r.bottleneck = "write: disks";
  const RunResult back = run_result_from_json(nlohmann::json::parse(run_result_to_json(r).dump()));
  CHECK(back.algorithm == r.algorithm);
  CHECK(back.params == r.params);
  CHECK(back.ranks == r.ranks);
  CHECK(back.network_mpi == r.network_mpi);
  CHECK(back.network_io == r.network_io);
  CHECK(back.sim_time_s == r.sim_time_s);
  REQUIRE(back.phases.size() == r.phases.size());
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    CHECK(back.phases[i].name == r.phases[i].name);
    CHECK(back.phases[i].time_s == r.phases[i].time_s);
    CHECK(back.phases[i].start_s == r.phases[i].start_s);
    CHECK(back.phases[i].end_s == r.phases[i].end_s);
    CHECK(back.phases[i].rank_time_s == r.phases[i].rank_time_s);
    CHECK(back.phases[i].rank_cpu_s == r.phases[i].rank_cpu_s);
    CHECK(back.phases[i].rank_network_s == r.phases[i].rank_network_s);
    CHECK(back.phases[i].rank_filesystem_s == r.phases[i].rank_filesystem_s);
    CHECK(back.phases[i].calls == r.phases[i].calls);
    CHECK(back.phases[i].bytes_sent == r.phases[i].bytes_sent);
    REQUIRE(back.phases[i].resources.size() == r.phases[i].resources.size());
    for (std::size_t k = 0; k < r.phases[i].resources.size(); ++k) {
      CHECK(back.phases[i].resources[k].busiest == r.phases[i].resources[k].busiest);
      CHECK(back.phases[i].resources[k].bytes_per_s == r.phases[i].resources[k].bytes_per_s);
      CHECK(back.phases[i].resources[k].busy_max == r.phases[i].resources[k].busy_max);
    }
  }
  CHECK(back.bottleneck == r.bottleneck);
  CHECK(back.calls == r.calls);
  CHECK(back.bytes_network == r.bytes_network);
  CHECK(back.bytes_file == r.bytes_file);
  CHECK(back.file_verified == r.file_verified);
  CHECK_THROWS_AS(run_result_from_json(nlohmann::json::parse(R"({"algorithm": 3})")), std::runtime_error);
}

TEST_CASE("the shipped scenarios load against the shipped platforms") {
  LoadOptions opt;
  opt.data_dirs = {CIOSIM_SOURCE_DIR};
  const fs::path dir = fs::path(CIOSIM_SOURCE_DIR) / "scenarios";
  const Scenario q = load_scenario(dir / "quickstart.toml", opt);
  CHECK(q.name == "quickstart");
  REQUIRE(q.runs.size() == 4);
  CHECK(q.runs[0].ranks == 4);
  CHECK(q.runs[3].algorithm == "block");
  CHECK(q.runs[3].workload.bx == 64);
  const Scenario e = load_scenario(dir / "iec-executor.toml", opt);
  REQUIRE(e.runs.size() == 22);
  CHECK(e.runs[0].network_mpi == "myrinet");
  CHECK(e.runs[11].network_mpi == "fast-ethernet");
  CHECK(e.runs[21].workload.bx == 1024);
  CHECK(e.runs[21].workload.nx == 78643200);
  CHECK(e.runs[21].network_io == "myrinet");
}

TEST_CASE("placement: one rule for both backends") {
  CHECK(host_indices({"b", "a", "b", "c", "a"}) == std::vector<int>{0, 1, 0, 2, 1});
  CHECK(host_indices({}).empty());
  RunSpec s;
  s.ranks = 4;
  s.platform.cores_per_node = 2;
  CHECK(node_of(s, 0) == 0);
  CHECK(node_of(s, 3) == 1);
  s.rank_nodes = {3, 0, 0, 1};
  CHECK(node_of(s, 0) == 3);
  CHECK(node_of(s, 3) == 1);
  CHECK_NOTHROW(check_memory_mode("--memory", "cold"));
  CHECK_THROWS_WITH(check_memory_mode("--memory", "hot"),
                    Catch::Contains("--memory must be 'warm'") && Catch::Contains("got \"hot\""));
}
