// Platform files' own network profiles ([network.profiles.NAME], config/network_file.hpp) and the fits of
// `ciosim calibrate` (config/calibration.hpp), checked against measurements generated from known numbers.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "config/calibration.hpp"
#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "config/scenario.hpp"
#include "sim/simulate.hpp"

using namespace ciosim;
using namespace ciosim::config;
using json = nlohmann::json;

namespace {

const char* kBase = R"(name = "own"
[nodes]
count = 2
cores_per_node = 1
memcpy_Bps = 1e9
tuple_cost_s = 1e-8
loopback_Bps = 1e9
[pvfs]
io_servers = 1
stripe_size = 65536
disk_write_Bps = 1e8
disk_read_Bps = 1e8
request_overhead_s = 1e-5
region_overhead_s = 1e-6
client_region_overhead_s = 0
flow_buffer = 65536
max_outstanding = 8
request_header = 256
region_descriptor = 16
)";

const char* kNetwork = R"(
[network]
mpi = "lan"
io = "myrinet"
[network.profiles.lan]
description = "a test LAN"
source = "made up"
link_bandwidth_Bps = 5e8
link_bandwidth_Bps_source = "a datasheet"
link_latency_s = 2e-6
send_overhead_s = 1e-6
recv_overhead_s = 1e-6
eager_threshold = 8192
size_factors = [[0, 0.9], [65536, 0.95]]
)";

std::string platform(const std::string& network = kNetwork) {
  return std::string(kBase) + network;
}

/// Measurements as ciosim-mpi calibrate writes them, generated from known parameters (times exact).
json synthetic(double L, double B, bool one_host) {
  const auto stats = [](double t) { return json{{"median", t}, {"min", t}, {"max", t}}; };
  json m;
  m["ranks"] = 2;
  m["hosts"] = one_host ? json{"a", "a"} : json{"a", "b"};
  m["mpi_library"] = "Test MPI 1.0";
  for (double s = 1; s <= 4194304; s *= 4)
    m["pingpong"].push_back({{"bytes", s}, {"iterations", 10}, {"one_way_s", stats(L + s / B)}});
  m["memcpy"] = {{"bytes", 1 << 26}, {"seconds", stats((1 << 26) / 4e9)}};  // 4 GB/s
  const double tuple = 3e-9;
  m["pack"] = {{"tuples", 1 << 20},
               {"element_size", 4},
               {"bytes", 4 << 20},
               {"seconds", stats((1 << 20) * (tuple + 4 / 4e9))}};
  for (double s = 4096; s <= 16777216; s *= 4) {
    m["file_write"].push_back({{"bytes", s}, {"calls", 8}, {"seconds_per_call", stats(5e-6 + s / 2e9)}});
    m["file_read"].push_back({{"bytes", s}, {"calls", 8}, {"seconds_per_call", stats(2e-6 + s / 8e9)}});
  }
  m["file_write_all_ranks"] = {{"ranks", 2},
                               {"bytes_per_rank", 1 << 24},
                               {"call_bytes", 1 << 20},
                               {"seconds", stats(2.0 * (1 << 24) / 1.5e9)}};
  m["list_write"] = {{"regions", 1000},
                     {"region_bytes", 64},
                     {"list_seconds", stats(1e-5 + 1000 * 7e-7)},
                     {"contiguous_seconds", stats(1e-5)}};
  m["open_close"] = {{"seconds", stats(1e-3)}};
  return m;
}

CalibrationContext context() {
  CalibrationContext c;
  c.name = "here";
  c.machine = "test machine";
  c.date = "2026-01-01";
  c.command = "ciosim calibrate -n 2";
  c.cores = 8;
  c.eager_threshold = 4096;
  c.eager_source = "the test";
  return c;
}

}  // namespace

TEST_CASE("a platform defines its own network profiles, usable by [network] mpi/io") {
  const PlatformFile pf = parse_platform(platform(), "own.toml");
  REQUIRE(pf.spec.networks.size() == 1);
  const NetworkProfile& lan = pf.spec.networks[0];
  CHECK(lan.name == "lan");
  CHECK(lan.description == "a test LAN");
  CHECK(lan.link_bandwidth_Bps == 5e8);
  CHECK(lan.link_latency_s == 2e-6);
  CHECK(lan.eager_threshold == 8192);
  REQUIRE(lan.size_factors.size() == 2);
  CHECK(lan.size_factors[1].min_bytes == 65536);
  CHECK(lan.size_factors[1].bandwidth_factor == 0.95);
  CHECK(pf.spec.network_mpi == "lan");
  CHECK(&network_profile("lan", pf.spec.networks) == &pf.spec.networks[0]);
  CHECK(network_profile("myrinet", pf.spec.networks).name == "myrinet");
  // The written file parses back to the same profiles, sources included.
  const std::string text = platform_toml(pf, "");
  CHECK(text.find("[network.profiles.lan]") != std::string::npos);
  CHECK(text.find("link_bandwidth_Bps_source = \"a datasheet\"") != std::string::npos);
  const PlatformFile back = parse_platform(text, "own.toml");
  REQUIRE(back.spec.networks.size() == 1);
  CHECK(back.spec.networks[0].size_factors.size() == 2);
  CHECK(back.spec.networks[0].link_latency_s == lan.link_latency_s);
  CHECK(back.sources == pf.sources);
  CHECK(platform_json(pf)["network"]["profiles"]["lan"]["eager_threshold"] == 8192);
}

TEST_CASE("a platform's own network profiles: bad input is a one-line error") {
  const auto err = [](const std::string& network) {
    try {
      parse_platform(platform(network), "own.toml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string base = "\n[network]\nmpi = \"lan\"\nio = \"myrinet\"\n[network.profiles.lan]\n";
  const std::string full =
      "link_bandwidth_Bps = 1e9\nlink_latency_s = 0\nsend_overhead_s = 0\nrecv_overhead_s = 0\n";
  CHECK(err(base + full + "eager_threshold = 0\n") == "(no error)");
  CHECK_THAT(err(base + full),
             Catch::Contains("missing required key(s) network.profiles.lan.eager_threshold"));
  CHECK_THAT(
      err(base + full + "eager_threshold = 0\nlatency = 1\n"),
      Catch::Contains("unknown key network.profiles.lan.latency") && Catch::Contains("link_latency_s"));
  CHECK_THAT(err(base + "link_bandwidth_Bps = 0\n"),
             Catch::Contains("link_bandwidth_Bps must be > 0, got 0"));
  // The same physical ranges as a scenario's network.mpi_* keys (config/profile_values.hpp): a bandwidth of
  // 1e-300 B/s used to run, and a minute-long latency too.
  CHECK_THAT(err(base + "link_bandwidth_Bps = 1e-300\nlink_latency_s = 0\nsend_overhead_s = 0\n"
                        "recv_overhead_s = 0\neager_threshold = 0\n"),
             Catch::Contains("network.profiles.lan.link_bandwidth_Bps = 1e-300 is outside the physically "
                             "meaningful range [1000, 1e+13]"));
  CHECK_THAT(err(base + "link_bandwidth_Bps = 1e9\nlink_latency_s = 3600\nsend_overhead_s = 0\n"
                        "recv_overhead_s = 0\neager_threshold = 0\n"),
             Catch::Contains("link_latency_s = 3600 is outside the physically meaningful range [0, 60]"));
  CHECK_THAT(err(base + full + "eager_threshold = 0\nsize_factors = [[0, 1.5]]\n"),
             Catch::Contains("factor in (0, 1]"));
  CHECK_THAT(err("\n[network]\nmpi = \"myrinet\"\nio = \"myrinet\"\n[network.profiles.myrinet]\n" + full +
                 "eager_threshold = 0\n"),
             Catch::Contains("has the name of a built-in profile"));
  CHECK_THAT(err("\n[network]\nmpi = \"wan\"\nio = \"myrinet\"\n[network.profiles.lan]\n" + full +
                 "eager_threshold = 0\n"),
             Catch::Contains("unknown network 'wan'") && Catch::Contains("valid: lan, myrinet"));
  CHECK_THAT(err("\n[network]\nmpi = \"lan\"\nio = \"myrinet\"\nprofiles = 3\n"),
             Catch::Contains("network.profiles must be a table"));
}

TEST_CASE("fit_relative recovers a line exactly and clamps a negative intercept") {
  std::vector<double> x, y;
  for (double s = 1; s <= 1 << 22; s *= 4) {
    x.push_back(s);
    y.push_back(2e-6 + s / 5e9);
  }
  const LineFit f = fit_relative(x, y);
  CHECK(f.intercept == Approx(2e-6).epsilon(1e-9));
  CHECK(1 / f.slope == Approx(5e9).epsilon(1e-9));
  const LineFit g = fit_relative({1, 2, 3}, {0.5, 1.5, 2.5});  // y = -0.5 + x: through the origin instead
  CHECK(g.intercept == 0);
  CHECK(g.slope > 0);
  CHECK_THROWS_WITH(fit_relative({1}, {1}), Catch::Contains("at least two points"));
  CHECK_THROWS_WITH(fit_relative({1, 1}, {1, 2}), Catch::Contains("two distinct sizes"));
  CHECK_THROWS_WITH(fit_relative({1, 2}, {1, 0}), Catch::Contains("positive times"));
}

TEST_CASE("calibrate's fits recover the numbers the measurements were generated from") {
  const PlatformFile pf = platform_from_measurements(synthetic(1e-6, 6e9, true), context());
  const PlatformSpec& p = pf.spec;
  CHECK(p.name == "here");
  CHECK(p.nodes == 1);
  CHECK(p.cores_per_node == 8);
  CHECK(p.cpu_cores == 8);  // the hardware threads of the context
  CHECK(p.memcpy_Bps == Approx(4e9));
  CHECK(p.tuple_cost_s == Approx(3e-9));
  CHECK(p.loopback_Bps == Approx(6e9).epsilon(1e-6));
  REQUIRE(p.networks.size() == 2);
  const NetworkProfile& mpi = network_profile(p.network_mpi, p.networks);
  CHECK(mpi.name == "here-mpi");
  CHECK(mpi.send_overhead_s + mpi.recv_overhead_s == Approx(1e-6).epsilon(1e-6));
  CHECK(mpi.link_latency_s == 0);
  CHECK(mpi.link_bandwidth_Bps == Approx(6e9).epsilon(1e-6));
  CHECK(mpi.eager_threshold == 4096);
  // With the ping-pong through fresh buffers measured (half the bandwidth), messages take its bandwidth;
  // the latency stays the one-buffer fit's, and that bandwidth is named in the description.
  json cold = synthetic(1e-6, 6e9, true);
  for (double s = 65536; s <= 4194304; s *= 4)
    cold["pingpong_fresh"].push_back({{"bytes", s},
                                      {"iterations", 8},
                                      {"one_way_s", {{"median", 1e-6 + s / 3e9}, {"min", 0}, {"max", 1}}}});
  cold["pingpong_fresh_region_bytes"] = 256 << 20;
  const PlatformFile pc = platform_from_measurements(cold, context());
  const NetworkProfile& cmpi = network_profile(pc.spec.network_mpi, pc.spec.networks);
  CHECK(cmpi.link_bandwidth_Bps == Approx(3e9).epsilon(1e-6));
  CHECK(pc.spec.loopback_Bps == Approx(3e9).epsilon(1e-6));
  CHECK(cmpi.send_overhead_s + cmpi.recv_overhead_s == Approx(1e-6).epsilon(1e-6));
  CHECK(cmpi.description.find("(buffers not in the cache; 6000 MB/s reusing one buffer)") !=
        std::string::npos);
  CHECK(p.pvfs.io_servers == 1);
  CHECK(p.pvfs.disk_write_Bps == Approx(1.5e9));
  CHECK(p.pvfs.disk_read_Bps == Approx(8e9).epsilon(1e-6));
  CHECK(p.pvfs.request_overhead_s == Approx(5e-6).epsilon(1e-6));
  CHECK(p.pvfs.region_overhead_s == Approx(7e-7));
  // 1 ms for the collective open + close of 2 ranks: 4 metadata operations served one at a time.
  CHECK(p.pvfs.metadata_overhead_s == Approx(2.5e-4));
  // 90% of 2 GB/s with 5 us per call: first reached at 256 KiB (4096*4^k sizes).
  CHECK(p.pvfs.stripe_size == 262144);
  // Every value carries its source, and the file loads.
  for (const char* key :
       {"nodes.memcpy_Bps_source", "nodes.tuple_cost_s_source", "nodes.loopback_Bps_source",
        "pvfs.disk_write_Bps_source", "pvfs.request_overhead_s_source", "pvfs.metadata_overhead_s_source",
        "network.profiles.here-mpi.link_bandwidth_Bps_source",
        "network.profiles.here-mpi.eager_threshold_source"}) {
    INFO(key);
    CHECK(std::any_of(pf.sources.begin(), pf.sources.end(), [&](const auto& s) { return s.first == key; }));
  }
  const PlatformFile back = parse_platform(platform_toml(pf, ""), "here.toml");
  CHECK(back.spec.networks.size() == 2);
  CHECK(back.spec.pvfs.disk_write_Bps == p.pvfs.disk_write_Bps);

  // Across hosts the latency goes to the links.
  const PlatformFile two = platform_from_measurements(synthetic(4e-6, 1e9, false), context());
  const NetworkProfile& lan = network_profile(two.spec.network_mpi, two.spec.networks);
  CHECK(two.spec.nodes == 2);
  CHECK(lan.link_latency_s == Approx(2e-6).epsilon(1e-6));
  CHECK(lan.send_overhead_s == 0);
  CHECK(lan.lone_message_time(64) == Approx(4e-6 + 64 / 1e9).epsilon(1e-3));
  CHECK(two.spec.filesystems == std::vector<std::string>{"pvfs"});

  // The close: ranks on time waited for the late rank 0 (a barrier), or closed at once; measurements from
  // before close_wait existed keep the model of before, each rank closing on its own.
  CHECK(pf.spec.close == "local");
  json waits = synthetic(1e-6, 6e9, true);
  waits["close_wait"] = {{"delay_seconds", 0.02},
                         {"seconds", {{"median", 0.0201}, {"min", 0.02}, {"max", 0.021}}}};
  const PlatformFile barrier = platform_from_measurements(waits, context());
  CHECK(barrier.spec.close == "barrier");
  CHECK(parse_platform(platform_toml(barrier, ""), "b.toml").spec.close == "barrier");
  // On one host the local file system is also the node's own disk behind the kernel's page cache, with
  // the kernel's own settings; measurements without them give no cache. On two hosts there is no [local].
  CHECK(pf.spec.filesystems == std::vector<std::string>{"pvfs", "local"});
  CHECK(pf.spec.filesystem == "pvfs");
  CHECK_FALSE(pf.spec.local.cache.enabled());
  CHECK(pf.spec.local.request_overhead_s == Approx(5e-6).epsilon(1e-3));
  CHECK(pf.spec.local.region_overhead_s == Approx(7e-7).epsilon(1e-3));
  // Measurements without the open and the close timed apart give each one call's cost (the model before
  // the keys); with them, each its own time.
  CHECK(pf.spec.local.open_overhead_s == pf.spec.local.request_overhead_s);
  CHECK(pf.spec.local.close_overhead_s == pf.spec.local.request_overhead_s);
  waits["open_close"]["open_seconds"] = {{"median", 4.8e-4}, {"min", 4.5e-4}, {"max", 6e-4}};
  waits["open_close"]["close_seconds"] = {{"median", 1.5e-4}, {"min", 1.4e-4}, {"max", 2e-4}};
  const PlatformFile timed = platform_from_measurements(waits, context());
  CHECK(timed.spec.local.open_overhead_s == Approx(4.8e-4));
  CHECK(timed.spec.local.close_overhead_s == Approx(1.5e-4));
  // Small writes measured: the call's own cost from 4-byte calls over cached pages, and what a call that
  // adds pages costs more; without them, the write intercept and nothing more.
  CHECK(timed.spec.local.new_pages_call_s == 0);
  waits["small_writes"] = {{"page_bytes", 4096},
                           {"calls", 4096},
                           {"new_pages_s", {{"median", 3.1e-6}, {"min", 3e-6}, {"max", 4e-6}}},
                           {"cached_pages_s", {{"median", 1.5e-6}, {"min", 1.4e-6}, {"max", 2e-6}}},
                           {"small_bytes", 4},
                           {"small_calls", 65536},
                           {"small_s", {{"median", 7.3e-7}, {"min", 7e-7}, {"max", 9e-7}}}};
  const PlatformFile split = platform_from_measurements(waits, context());
  CHECK(split.spec.local.request_overhead_s == Approx(7.3e-7));
  CHECK(split.spec.local.new_pages_call_s == Approx(1.6e-6));
  CHECK(split.spec.pvfs.request_overhead_s == Approx(5e-6).epsilon(1e-6));  // the PVFS model's as before
  CHECK(parse_platform(platform_toml(split, ""), "s.toml").spec.local.new_pages_call_s == Approx(1.6e-6));
  const PlatformFile timed_back = parse_platform(platform_toml(timed, ""), "t.toml");
  CHECK(timed_back.spec.local.open_overhead_s == Approx(4.8e-4));
  CHECK(timed_back.spec.local.close_overhead_s == Approx(1.5e-4));
  waits["page_cache"] = {{"mem_available_bytes", 8e9},
                         {"dirty_ratio", 0.2},
                         {"dirty_background_ratio", 0.1},
                         {"dirty_expire_s", 30},
                         {"writeback_interval_s", 5}};
  const PlatformFile cached = platform_from_measurements(waits, context());
  CHECK(cached.spec.local.cache.bytes == 8e9);
  CHECK(cached.spec.local.cache.copy_Bps == Approx(2e9).epsilon(1e-3));
  const PlatformFile cached_back = parse_platform(platform_toml(cached, ""), "c.toml");
  CHECK(cached_back.spec.local.cache.dirty_background_ratio == 0.1);
  CHECK(cached_back.spec.filesystems == std::vector<std::string>{"pvfs", "local"});
  waits["close_wait"]["seconds"] = {{"median", 1e-4}, {"min", 1e-4}, {"max", 2e-4}};
  CHECK(platform_from_measurements(waits, context()).spec.close == "local");

  json broken = synthetic(1e-6, 6e9, true);
  broken.erase("memcpy");
  CHECK_THROWS_WITH(platform_from_measurements(broken, context()), Catch::Contains("lack \"memcpy\""));
}

TEST_CASE("calibrate: each step's cost per tuple from the step clock's sites, beyond their bytes") {
  // Two runs' sites: the windows loops took 2e-9 s a tuple beyond their bytes (memcpy 4e9 B/s in the
  // synthetic measurements), the scatter loops 9e-9; the ranges loop saw too few tuples to fit; uncharged
  // code and pack are not steps of their own.
  json m = synthetic(1e-6, 6e9, true);
  const auto site = [](const char* step, std::int64_t tuples, double bytes, double seconds) {
    return json{{"site", "f, x.cpp:1"},
                {"step", step},
                {"charges", 1},
                {"tuples", tuples},
                {"bytes_copied", bytes},
                {"library_pieces", 0},
                {"seconds", {{"median", seconds}, {"min", seconds}, {"max", seconds}}}};
  };
  m["steps"] = json::array({{{"algorithm", "two-phase"},
                             {"bx", 1},
                             {"sites", json::array({site("windows", 1000000, 0, 2e-3),
                                                    site("pack", 1000000, 4e6, 1.0), site("", 0, 0, 0.5)})}},
                            {{"algorithm", "view-based"},
                             {"bx", 16},
                             {"sites", json::array({site("scatter", 500000, 4e6, 500000 * 9e-9 + 4e6 / 4e9),
                                                    site("windows", 1000000, 4e6, 2e-3 + 4e6 / 4e9),
                                                    site("ranges", 10, 0, 1.0)})}}});
  const PlatformFile pf = platform_from_measurements(m, context());
  const PlatformSpec& p = pf.spec;
  CHECK(p.tuple_cost(Step::Windows) == Approx(2e-9));
  CHECK(p.tuple_cost(Step::Scatter) == Approx(9e-9));
  CHECK(p.tuple_cost(Step::Ranges) == p.tuple_cost_s);  // 10 tuples: not fitted
  CHECK(p.tuple_cost(Step::Pack) == Approx(3e-9));      // the pack loop's own measurement
  const PlatformFile back = parse_platform(platform_toml(pf, ""), "c.toml");
  CHECK(back.spec.tuple_cost(Step::Windows) == Approx(2e-9));
  CHECK(std::isnan(back.spec.step_tuple_cost_s[static_cast<std::size_t>(Step::Ranges)]));
  const std::string toml = platform_toml(pf, "");
  CHECK(toml.find("tuple_cost_windows_s_source = \"the step clock over the code's own windows loops in "
                  "two-phase, view-based (block-cyclic 4-byte entries at Bx = 1 and 16, every rank)") !=
        std::string::npos);
  CHECK(toml.find("tuple_cost_ranges_s") == std::string::npos);
  // How far runs disagree on a step's cost is one of the spreads calibrate --runs checks: a second run whose
  // windows loops took twice as long; a step only one run fitted is left out.
  json twice = m;
  twice["steps"][1]["sites"][1]["seconds"] = {{"median", 4e-3 + 4e6 / 4e9}, {"min", 0}, {"max", 1}};
  twice["steps"][0]["sites"][0]["seconds"] = {{"median", 4e-3}, {"min", 0}, {"max", 1}};
  twice["steps"][1]["sites"].erase(0);  // no scatter
  const auto spreads = term_spreads({pf, platform_from_measurements(twice, context())});
  const auto windows = std::find_if(spreads.begin(), spreads.end(),
                                    [](const TermSpread& t) { return t.term == "windows loop, per tuple"; });
  REQUIRE(windows != spreads.end());
  CHECK(windows->unit == "ns");
  CHECK(windows->spread() == Approx(2));
  CHECK(std::none_of(spreads.begin(), spreads.end(),
                     [](const TermSpread& t) { return t.term == "scatter loop, per tuple"; }));
  // Without the steps' measurements, no step keys: every step costs nodes.tuple_cost_s.
  const PlatformFile plain = platform_from_measurements(synthetic(1e-6, 6e9, true), context());
  CHECK(platform_toml(plain, "").find("tuple_cost_windows_s") == std::string::npos);
  CHECK(plain.spec.tuple_cost(Step::Views) == plain.spec.tuple_cost_s);
}

TEST_CASE("calibrate: what the host's ranks copying at once get, reported beside memcpy alone") {
  // memcpy alone 4 GB/s (synthetic); the two ranks copying 64 MiB each at once took 64 MiB / 3 GB/s: the
  // host gave them 6 GB/s in all. Reported in the description with the key that would use it, not set.
  json m = synthetic(1e-6, 6e9, true);
  const auto stats = [](double s) { return json{{"median", s}, {"min", s}, {"max", s}}; };
  m["memcpy_all_ranks"] = {{"ranks", 2}, {"bytes_per_rank", 1 << 26}, {"seconds", stats((1 << 26) / 3e9)}};
  const PlatformFile pf = platform_from_measurements(m, context());
  CHECK(pf.spec.description.find(
            "; concurrent copies: the host's 2 ranks copying 64 MiB at once got 6000 MB/s "
            "in all, one alone 4000 MB/s (nodes.memory_Bps = 6e+09 would share it") != std::string::npos);
  CHECK(std::isnan(pf.spec.memory_Bps));
  CHECK(platform_toml(pf, "").find("\nmemory_Bps =") == std::string::npos);
  // Slower in all than one copy alone (a disturbed measurement): the key it names is never below memcpy_Bps.
  m["memcpy_all_ranks"]["seconds"] = stats((1 << 26) / 1e9);
  CHECK(platform_from_measurements(m, context()).spec.description.find("nodes.memory_Bps = 4e+09") !=
        std::string::npos);
  // Ranks on two hosts: not reported.
  json two = synthetic(1e-6, 6e9, false);
  two["memcpy_all_ranks"] = m["memcpy_all_ranks"];
  CHECK(platform_from_measurements(two, context()).spec.description.find("concurrent copies") ==
        std::string::npos);
}

TEST_CASE("a calibrated platform runs in the simulator, its own profile charging L + S/B per message") {
  // One host: the measured one-way time is charged as host overheads, the bytes at loopback_Bps.
  const PlatformFile pf = platform_from_measurements(synthetic(1e-6, 6e9, true), context());
  const std::string scenario =
      "name = \"cal\"\n[run]\nalgorithm = \"block\"\nranks = 2\nplatform = \"here\"\n"
      "[workload]\nnx = 1024\n\n" +
      platform_toml(pf, "platforms.here");
  LoadOptions opt;
  const Scenario s = parse_scenario(scenario, "cal.toml", opt);
  REQUIRE(s.runs.size() == 1);
  CHECK(s.runs[0].network_mpi == "here-mpi");
  CHECK(s.runs[0].platform.networks.size() == 2);
  // The effective configuration reproduces the platform with its profiles.
  CHECK(effective_config_toml(s).find("[platforms.here.network.profiles.here-mpi]") != std::string::npos);
  const Scenario again = parse_scenario(effective_config_toml(s), "cal.toml", opt);
  CHECK(again.runs[0].platform.networks.size() == 2);
  const RunResult r = sim::simulate(s.runs[0]);
  CHECK(r.file_verified);
  CHECK(r.network_mpi == "here-mpi");
  CHECK(r.sim_time_s > 0);
}

TEST_CASE("calibrate --runs: the runs' medians merged, and how far the runs disagree") {
  // Three runs whose MPI bandwidth differs 3x, as two calibrations 30 minutes apart did on a shared VM.
  const std::vector<json> runs = {synthetic(1e-6, 3e9, true), synthetic(1e-6, 9e9, true),
                                  synthetic(1e-6, 6e9, true)};
  const json merged = merge_measurements(runs);
  // Every timing is the median of the runs' medians, with the extreme min and max.
  const json& big = merged.at("pingpong").back().at("one_way_s");
  const double s = 4194304;
  CHECK(big.at("median").get<double>() == Approx(1e-6 + s / 6e9));
  CHECK(big.at("min").get<double>() == Approx(1e-6 + s / 9e9));
  CHECK(big.at("max").get<double>() == Approx(1e-6 + s / 3e9));
  CHECK(merged.at("ranks") == 2);
  const PlatformFile pf = platform_from_measurements(merged, context());
  CHECK(network_profile(pf.spec.network_mpi, pf.spec.networks).link_bandwidth_Bps ==
        Approx(6e9).epsilon(0.02));
  std::vector<PlatformFile> each;
  for (const json& r : runs) each.push_back(platform_from_measurements(r, context()));
  const auto spreads = term_spreads(each);
  REQUIRE(spreads.front().term == "MPI bandwidth");
  CHECK(spreads.front().spread() == Approx(3).epsilon(0.02));
  CHECK(spreads[1].spread() == Approx(1));  // memcpy: the same in every run
  CHECK_THROWS_AS(merge_measurements({}), std::invalid_argument);

  // Each value the runs disagree on carries their range and its confidence in its source; a value they
  // agree on is left as it was.
  PlatformFile noted = pf;
  add_run_intervals(noted, each);
  const auto source = [](const PlatformFile& p, const std::string& key) {
    for (const auto& [k, text] : p.sources)
      if (k == key + "_source") return text;
    return std::string("(none)");
  };
  const std::string bw = "network.profiles.here-mpi.link_bandwidth_Bps";
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  CHECK(has(source(noted, bw),
            "; 3 runs on their own: 3e+09 to 9e+09 (the range of 3 independent runs holds "
            "their median with probability 75 %)"));
  CHECK(has(source(noted, "nodes.loopback_Bps"), "probability 75 %"));
  CHECK(source(noted, "nodes.memcpy_Bps") == source(pf, "nodes.memcpy_Bps"));
  CHECK(parse_platform(platform_toml(noted, ""), "noted.toml").sources == noted.sources);
  PlatformFile one = pf;
  add_run_intervals(one, {each.front()});  // one run: no range
  CHECK(one.sources == pf.sources);
}
