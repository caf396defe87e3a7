// Everything checked in the validation pass, before any per-entry work and before any point is simulated: a
// point's memory estimate from its workload's size, the aggregators hints.cb_config_list selects, the
// effective configuration of a lists workload, and input files that say what they mean (sorted size factors,
// integers where integers are meant, no unknown keys).
#include <catch2/catch.hpp>
#include <chrono>

#include "config/platform_file.hpp"
#include "config/point_checks.hpp"
#include "config/resources.hpp"
#include "config/workload.hpp"
#include "config_fixture.hpp"

using namespace ciosim;
using namespace ciosim::config;
using namespace ciosim::test;

namespace {

LoadOptions limited(const DataDir& d, std::vector<std::string> sets, std::int64_t bytes) {
  LoadOptions o = d.opt(std::move(sets));
  o.memory.bytes = bytes;
  o.memory.what = "--max-memory " + format_bytes(bytes);
  return o;
}

const char* kRegular = R"(name = "big"
[run]
algorithm = "block"
ranks = 4
platform = "tiny"
)";

}  // namespace

TEST_CASE("a point over the memory limit is refused from its size, before its distribution is built",
          "[config][memory]") {
  DataDir d;
  // One workload of each regular kind, each far beyond 1 GiB, each of which would take minutes or all the
  // memory if its distribution (or the technique checks on it) were built first.
  const std::vector<std::vector<std::string>> huge = {
      {"workload.nx=100000000000", "workload.bx=1"},
      {"workload.kind=block3d", "workload.nx=100000", "workload.ny=100000", "workload.nz=100000"},
      {"workload.kind=stem2", "workload.nx=1000", "workload.ny=100000", "workload.nz=100000",
       "workload.nl=10"},
      {"workload.kind=tile", "workload.tile_x=1", "workload.tile_y=100000000000", "workload.header_bytes=4"},
      {"workload.kind=btio", "workload.class=C", "workload.element_size=8"},
  };
  for (std::vector<std::string> sets : huge) {
    INFO(sets[0]);
    sets.push_back("run.payload=bytes");  // elided, the coarse ones need only a piece per tuple (below)
    const auto start = std::chrono::steady_clock::now();
    const std::int64_t limit = sets[0] == "workload.kind=btio" ? 64LL << 20 : 1LL << 30;
    const std::string e = error_of([&] { parse_scenario(kRegular, "big.toml", limited(d, sets, limit)); });
    CHECK(contains(e, "needs about"));
    CHECK(contains(e, "more than --max-memory"));
    CHECK(contains(e, "make the workload smaller"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  }
  // Within the limit the same kind of point is accepted.
  CHECK_NOTHROW(parse_scenario(kRegular, "big.toml", limited(d, {"workload.nx=1024"}, 1LL << 30)));
  // With elided payloads (run.payload = auto chooses them here: 4 PB in rows of 200 KB) the 3-D point's
  // estimate counts its 200,000 pieces, not its bytes; block-cyclic Bx = 1 keeps a piece per entry and is
  // still refused.
  CHECK_NOTHROW(parse_scenario(
      kRegular, "big.toml",
      limited(d, {"workload.kind=block3d", "workload.nx=100000", "workload.ny=100000", "workload.nz=100000"},
              1LL << 30)));
  CHECK(contains(error_of([&] {
                   parse_scenario(
                       kRegular, "big.toml",
                       limited(d, {"workload.nx=100000000000", "workload.bx=1", "run.payload=elided"},
                               1LL << 30));
                 }),
                 "of elided pieces"));
}

TEST_CASE("a point over the memory limit is a bad point: named, and skipped with --keep-going",
          "[config][memory]") {
  DataDir d;
  LoadOptions o = limited(d, {"workload.nx=[1024, 100000000000]"}, 1LL << 30);
  const std::string e = error_of([&] { parse_scenario(kRegular, "big.toml", o); });
  CHECK(contains(e, "point 2 of 2 (workload.nx=100000000000): needs about"));
  o.keep_going = true;
  const Scenario s = parse_scenario(kRegular, "big.toml", o);
  CHECK(s.runs.size() == 1);
  REQUIRE(s.skipped.size() == 1);
  CHECK(contains(s.skipped[0].point, "point 2 of 2"));
  CHECK(contains(s.skipped[0].reason, "needs about"));
}

TEST_CASE("the kinds whose size needs their files are refused from their entries before reading them",
          "[config][memory]") {
  DataDir d;
  // A lists workload of 10^12 entries: refused from workload.nx alone, the (missing) file never opened.
  const std::string text = std::string(kRegular) + "[workload]\nkind = \"lists\"\nfile = \"none.toml\"\n";
  const std::string e = error_of(
      [&] { parse_scenario(text, "big.toml", limited(d, {"workload.nx=1000000000000"}, 1LL << 30)); });
  CHECK(contains(e, "needs about"));
  CHECK(!contains(e, "none.toml"));
}

TEST_CASE("a cb_config_list that selects no aggregator is refused in the validation pass",
          "[config][hints]") {
  DataDir d;
  const std::string text = std::string(kRegular) + "[workload]\nnx = 1024\n";
  for (const std::string list : {"*:0", "node9:1", "nosuchhost", "node0:0,node1:0"}) {
    INFO(list);
    const std::string e = error_of([&] {
      parse_scenario(text, "t.toml",
                     d.opt({"run.algorithm=two-phase", "hints.cb_config_list=\"" + list + "\""}));
    });
    CHECK(contains(e, "selects no aggregator"));
    CHECK(contains(e, "node0..node3"));
  }
  for (const std::string list : {"*:1", "node3:1", "*:*", "node1,node2"}) {
    INFO(list);
    CHECK_NOTHROW(parse_scenario(
        text, "t.toml", d.opt({"run.algorithm=two-phase", "hints.cb_config_list=\"" + list + "\""})));
  }
  // Techniques that do not open the file with it, and LAP writes (their own list), ignore it.
  CHECK_NOTHROW(parse_scenario(text, "t.toml", d.opt({"hints.cb_config_list=\"*:0\""})));
}

TEST_CASE("ranks whose stacks need more memory maps than the kernel allows are refused before simulating",
          "[config][memory]") {
  // SimGrid's stack and guard page per rank: two maps each, plus the process's own.
  const std::string e = check_memory_maps(65536, 65530, "");
  CHECK(contains(e, "run.ranks = 65536 needs at least 131584 memory maps"));
  CHECK(contains(e, "vm.max_map_count = 65530"));
  CHECK(contains(e, "sysctl -w vm.max_map_count="));
  CHECK(contains(e, "CIOSIM_SIMGRID_CFG='contexts/guard-size:0;contexts/stack-size:64'"));
  CHECK(e.find('\n') == std::string::npos);
  CHECK(check_memory_maps(16384, 65530, "").empty());   // 33,280 maps: runs (measured)
  CHECK(!check_memory_maps(32768, 65530, "").empty());  // 66,048
  CHECK(check_memory_maps(65536, 0, "").empty());       // the limit unknown: not checked
  CHECK(check_memory_maps(65536, 65530, "contexts/factory:thread;contexts/guard-size:0").empty());
  CHECK(!check_memory_maps(65536, 65530, "contexts/guard-size:4096").empty());
  // In the validation pass, as a bad point (the limit set here instead of the machine's).
  DataDir d;
  LoadOptions o = d.opt({"workload.nx=1048576", "run.ranks=1024", "platform.nodes=1024"});
  o.memory.maps = 1000;
  const std::string p = error_of([&] { parse_scenario(kRegular, "t.toml", o); });
  CHECK(contains(p, "run.ranks = 1024 needs at least 2560 memory maps"));
  o = d.opt({"workload.nx=1048576", "run.ranks=128", "platform.nodes=128"});
  o.memory.maps = 1000;
  CHECK_NOTHROW(parse_scenario(kRegular, "t.toml", o));
}

TEST_CASE("the effective configuration of a lists workload loads back from another folder",
          "[config][lists]") {
  DataDir d;
  fs::create_directories(d.root / "sub/data");
  d.write("sub/data/l.toml", "ranks = [ [[0, 4]], [[4, 4]], [[8, 4]], [[12, 4]] ]\n");
  d.write("sub/s.toml",
          std::string(kRegular) + "[workload]\nkind = \"lists\"\nnx = 16\nfile = \"data/l.toml\"\n");
  const Scenario s = load_scenario(d.root / "sub/s.toml", d.opt());
  const Scenario again =
      parse_scenario(effective_config_toml(s), "/elsewhere/effective-config.toml", d.opt());
  REQUIRE(again.runs.size() == 1);
  CHECK(again.runs[0].workload.file == s.runs[0].workload.file);
  CHECK(fs::path(again.runs[0].workload.file).is_absolute());
}

TEST_CASE("input files say what they mean: sorted size factors, integer tuples, no unknown keys",
          "[config][lists]") {
  DataDir d;
  std::string text = kPlatform;
  text +=
      "[network.profiles.mine]\ndescription = \"d\"\nsource = \"s\"\nlink_bandwidth_Bps = 1e8\n"
      "link_latency_s = 1e-5\nsend_overhead_s = 1e-6\nrecv_overhead_s = 1e-6\neager_threshold = 1024\n"
      "size_factors = [[65536, 0.9], [0, 0.5]]\n";
  const std::string e = error_of([&] { parse_platform(text, "p.toml"); });
  CHECK(contains(e, "increasing order of min_bytes"));

  const auto lists_error = [&](const std::string& body) {
    d.write("l.toml", body);
    WorkloadSpec w;
    w.kind = "lists";
    w.nx = 8;
    w.file = (d.root / "l.toml").string();
    try {
      make_distribution(w, 2);
    } catch (const std::invalid_argument& x) {
      return std::string(x.what());
    }
    return std::string();
  };
  CHECK(lists_error("ranks = [ [[0, 4]], [[4, 4]] ]\n").empty());
  CHECK(contains(lists_error("ranks = [ [[0, 4.0]], [[4, 4]] ]\n"), "pairs of integers"));
  CHECK(contains(lists_error("ranks = [ [[0.0, 4]], [[4, 4]] ]\n"), "pairs of integers"));
  CHECK(contains(lists_error("ranks = [ [[0, 4]], [[4, 4]] ]\nrank = 3\n"), "unknown key rank"));
  CHECK(contains(lists_error(""), "no array `ranks`"));
}

TEST_CASE("every shipped scenario's effective configuration loads back to the same points", "[config]") {
  // Found by fuzz/fuzz_config.cpp: a what-if set in a scenario file (stem2-figs6-8-sec's io_servers)
  // wrote its note without a '#', and the effective configuration was not TOML.
  LoadOptions opt;
  opt.data_dirs = {CIOSIM_SOURCE_DIR};
  int loaded = 0;
  for (const auto& e : fs::directory_iterator(CIOSIM_SOURCE_DIR "/scenarios")) {
    if (e.path().extension() != ".toml") continue;
    INFO(e.path().filename().string());
    // validate-local.toml runs on the platform `ciosim calibrate` writes on the user's own machine.
    if (e.path().filename() == "validate-local.toml") continue;
    Scenario s;
    REQUIRE_NOTHROW(s = load_scenario(e.path(), opt));
    ++loaded;
    const std::string effective = effective_config_toml(s);
    Scenario again;
    REQUIRE_NOTHROW(again = parse_scenario(effective, "/elsewhere/effective-config.toml", opt));
    REQUIRE(again.runs.size() == s.runs.size());
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
      CHECK(point_label(again.runs[i]) == point_label(s.runs[i]));
      CHECK(again.runs[i].algorithm == s.runs[i].algorithm);
      CHECK(again.runs[i].workload.nx == s.runs[i].workload.nx);
      CHECK(again.runs[i].workload.file == s.runs[i].workload.file);
      CHECK(again.runs[i].sequence == s.runs[i].sequence);
      CHECK(again.runs[i].platform.pvfs.io_servers == s.runs[i].platform.pvfs.io_servers);
    }
  }
  CHECK(loaded >= 17);  // every shipped scenario but validate-local
}
