// Every model value is a what-if: each platform-file value is a scenario key ("TABLE.KEY"), each value of the
// point's MPI and I/O network profiles is network.mpi_* / network.io_*, both sweep like any key, reach the
// RunSpec, and the effective configuration says which documented value a scenario changed.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "config/profile_values.hpp"
#include "config/scenario.hpp"
#include "config_fixture.hpp"
#include "models/network/profiles.hpp"

using namespace ciosim;
using namespace ciosim::config;
using namespace ciosim::test;

namespace {

const char* kBase = R"(name = "w"
[run]
algorithm = "block"
ranks = 4
platform = "tiny"
[workload]
nx = 1024
)";

}  // namespace

TEST_CASE("what-if: every platform value is a parameter, listed with its unit") {
  const auto params = parameters({"tiny"});
  for (const PlatformKey& k : platform_keys()) {
    const Param* p = find_param(params, k.key);
    REQUIRE(p != nullptr);
    CHECK(p->platform_default);
    CHECK(!p->help.empty());
  }
  CHECK(param(params, "pvfs.disk_write_Bps").type == ParamType::Real);
  CHECK(param(params, "pvfs.disk_write_Bps").unit == "bytes/s");
  CHECK(param(params, "nfs.wsize").unit == "bytes");
  CHECK(param(params, "nfs.commit").choices == std::vector<std::string>{"sync", "async"});
  CHECK(param(params, "network.mpi_link_bandwidth_Bps").type == ParamType::Real);
  CHECK(param(params, "network.io_eager_threshold").type == ParamType::Size);
  // The keys known by older names are not duplicated.
  CHECK(find_param(params, "nodes.count") == nullptr);
  CHECK(find_param(params, "filesystem.kind") == nullptr);
}

TEST_CASE("what-if: a platform value set and swept reaches each point, typed in results params") {
  DataDir d;
  const Scenario s = parse_scenario(kBase, "w.toml",
                                    d.opt({"pvfs.disk_write_Bps=[1e8, 2.5e8]", "nodes.memcpy_Bps=6e8",
                                           "pvfs.request_overhead_s=0", "pvfs.io_servers=3"}));
  REQUIRE(s.runs.size() == 2);
  CHECK(s.runs[0].platform.pvfs.disk_write_Bps == 1e8);
  CHECK(s.runs[1].platform.pvfs.disk_write_Bps == 2.5e8);
  CHECK(s.runs[0].platform.memcpy_Bps == 6e8);
  CHECK(s.runs[0].platform.pvfs.request_overhead_s == 0);
  CHECK(s.runs[0].platform.pvfs.io_servers == 3);
  CHECK(s.runs[0].platform.pvfs.disk_read_Bps == 4.5e7);  // untouched: the platform's
  // An integer given for a real value is that number.
  const Scenario i = parse_scenario(kBase, "w.toml", d.opt({"pvfs.disk_write_Bps=50000000"}));
  CHECK(i.runs[0].platform.pvfs.disk_write_Bps == 5e7);
}

TEST_CASE("what-if: impossible platform values are refused with the key and the range") {
  DataDir d;
  CHECK(contains(error_of([&] { parse_scenario(kBase, "w.toml", d.opt({"pvfs.disk_write_Bps=0"})); }),
                 "pvfs.disk_write_Bps must be a finite number >= 1000"));
  CHECK(contains(error_of([&] { parse_scenario(kBase, "w.toml", d.opt({"pvfs.request_overhead_s=-1e-3"})); }),
                 ">= 0"));
  CHECK(contains(error_of([&] { parse_scenario(kBase, "w.toml", d.opt({"pvfs.io_servers=1.5"})); }),
                 "pvfs.io_servers must be an integer"));
  CHECK(contains(error_of([&] { parse_scenario(kBase, "w.toml", d.opt({"nodes.memcpy_Bps=\"fast\""})); }),
                 "nodes.memcpy_Bps must be a number"));
  // The test platform has no [nfs] table: a value for it is refused, not ignored.
  CHECK(contains(error_of([&] { parse_scenario(kBase, "w.toml", d.opt({"nfs.wsize=8192"})); }),
                 "has no [nfs] table"));
}

TEST_CASE("what-if: a network profile's values per network") {
  DataDir d;  // tiny: MPI on myrinet, I/O on fast-ethernet
  const Scenario s =
      parse_scenario(kBase, "w.toml",
                     d.opt({"network.mpi_link_bandwidth_Bps=[1e8, 4e8]", "network.io_link_latency_s=1e-3"}));
  REQUIRE(s.runs.size() == 2);
  const auto& r = s.runs[1];
  CHECK(network_profile(r.network_mpi, r.platform.networks).link_bandwidth_Bps == 4e8);
  CHECK(network_profile(r.network_io, r.platform.networks).link_latency_s == 1e-3);
  // Only the values set change; the I/O network's bandwidth is fast-ethernet's own.
  CHECK(network_profile(r.network_io, r.platform.networks).link_bandwidth_Bps ==
        network_profile("fast-ethernet").link_bandwidth_Bps);
  CHECK(network_profile(r.network_mpi, r.platform.networks).link_latency_s ==
        network_profile("myrinet").link_latency_s);
  // One physical network for both: both roles see a change, and two different values are an error.
  const Scenario one =
      parse_scenario(kBase, "w.toml", d.opt({"network.io=myrinet", "network.mpi_send_overhead_s=1e-5"}));
  CHECK(network_profile(one.runs[0].network_io, one.runs[0].platform.networks).send_overhead_s == 1e-5);
  CHECK(contains(error_of([&] {
                   parse_scenario(kBase, "w.toml",
                                  d.opt({"network.io=myrinet", "network.mpi_eager_threshold=1024",
                                         "network.io_eager_threshold=2048"}));
                 }),
                 "share one network"));
}

TEST_CASE("what-if: the effective configuration flags each documented value a scenario changed") {
  DataDir d;
  const Scenario s = parse_scenario(
      kBase, "w.toml",
      d.opt({"pvfs.disk_read_Bps=9e7", "pvfs.disk_write_Bps=4e7", "network.io_send_overhead_s=0"}));
  const std::string toml = effective_config_toml(s);
  // Changed: the platform's value and its source are named.
  CHECK(contains(
      toml, "disk_read_Bps = [9e+07]  # --set; changes platform \"tiny\"'s 4.5e+07 (source: a datasheet)"));
  // Set to the platform's own value: nothing changed, nothing flagged.
  CHECK(contains(toml, "disk_write_Bps = [4e+07]  # --set\n"));
  CHECK(contains(toml, "io_send_overhead_s = [0.0]  # --set; changes network profile \"fast-ethernet\"'s"));
  // Values not set are written as the platform's, and the file reloads to the same points.
  CHECK(contains(toml, "memcpy_Bps = 3e+08  # the platform's\n"));
  const Scenario again = parse_scenario(toml, "again.toml", d.opt());
  REQUIRE(again.runs.size() == 1);
  CHECK(again.runs[0].platform.pvfs.disk_read_Bps == 9e7);
  CHECK(again.runs[0].platform.memcpy_Bps == 3e8);
  const auto j = nlohmann::json::parse(effective_config_json(s));
  CHECK(j["parameters"]["pvfs.disk_read_Bps"]["value"] == 9e7);
  CHECK(j["parameters"]["pvfs.disk_read_Bps"]["changes"].get<std::string>().find("4.5e+07") !=
        std::string::npos);
  CHECK(!j["parameters"]["pvfs.disk_write_Bps"].contains("changes"));
}
