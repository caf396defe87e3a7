// Numbers a user gives that no machine or 64-bit arithmetic can hold: refused before anything runs, named as
// the user wrote them, never wrapped around or clamped.
#include <catch2/catch.hpp>

#include "config/platform_file.hpp"
#include "config/scenario.hpp"
#include "config_fixture.hpp"

using namespace ciosim;
using namespace ciosim::config;
using namespace ciosim::test;

namespace {

const char* kBase = R"(name = "l"
[run]
algorithm = "block"
ranks = 4
platform = "tiny"
[workload]
nx = 1024
)";

std::string platform_with(const std::string& from, const std::string& to) {
  std::string p = kPlatform;
  const auto at = p.find(from);
  REQUIRE(at != std::string::npos);
  p.replace(at, from.size(), to);
  return p;
}

}  // namespace

TEST_CASE("limits: an integer past 2^63-1 is named as written, not clamped") {
  DataDir d;
  const std::string e =
      error_of([&] { parse_scenario(kBase, "l.toml", d.opt({"workload.nx=18446744073709551616"})); });
  CHECK(contains(e, "workload.nx = 18446744073709551616 is out of range"));
  CHECK(!contains(e, "9223372036854775807 x"));
}

TEST_CASE("limits: a block-cyclic Np*Bx past 64 bits is an error, not a division by zero") {
  DataDir d;
  // 4 ranks x 2^62 entries = 2^64: wrapped to 0 it divided by zero (SIGFPE), even in a dry run.
  const std::string e =
      error_of([&] { parse_scenario(kBase, "l.toml", d.opt({"workload.bx=4611686018427387904"})); });
  CHECK(contains(e, "Np*Bx <= Nx"));
  CHECK(contains(e, "Bx=4611686018427387904"));
}

TEST_CASE("limits: a lists tuple ending past 2^63 is refused naming the tuple") {
  DataDir d;
  d.write("lists.toml", "ranks = [[[0, 4]], [[4, 4]], [[8, 4]], [[9223372036854775800, 100]]]\n");
  const std::string scen =
      std::string(kBase) + "kind = \"lists\"\nfile = \"" + (d.root / "lists.toml").string() + "\"\n";
  const std::string e = error_of([&] { parse_scenario(scen, (d.root / "l.toml").string(), d.opt()); });
  CHECK(contains(e, "tuple [9223372036854775800, 100] ends past the largest 64-bit offset"));
}

TEST_CASE("limits: platform values outside physical ranges are refused when the platform is read") {
  // A memcpy of 1e-300 B/s and a request overhead of 1e308 s made SimGrid deadlock; now the file is refused.
  CHECK(contains(
      error_of([] { parse_platform(platform_with("memcpy_Bps = 3.0e8", "memcpy_Bps = 1e-300"), "p"); }),
      "nodes.memcpy_Bps = 1e-300 is outside the physically meaningful range [1000, 1e+13]"));
  CHECK(contains(error_of([] {
                   parse_platform(platform_with("request_overhead_s = 1e-4", "request_overhead_s = 1e308"),
                                  "p");
                 }),
                 "pvfs.request_overhead_s = 1e+308 is outside the physically meaningful range [0, 60]"));
  CHECK(
      contains(error_of([] { parse_platform(platform_with("io_servers = 2", "io_servers = 100000"), "p"); }),
               "pvfs.io_servers = 100000 is outside"));
  CHECK_NOTHROW(parse_platform(kPlatform, "p"));
  // The same ranges for a scenario's what-if, stated in the parameter table.
  DataDir d;
  CHECK(contains(error_of([&] { parse_scenario(kBase, "l.toml", d.opt({"pvfs.disk_write_Bps=1e20"})); }),
                 "pvfs.disk_write_Bps must be <= 1e+13"));
  CHECK(
      contains(error_of([&] { parse_scenario(kBase, "l.toml", d.opt({"network.mpi_link_latency_s=3600"})); }),
               "must be <= 60"));
  CHECK(contains(error_of([&] { parse_scenario(kBase, "l.toml", d.opt({"pvfs.io_servers=70000"})); }),
                 "pvfs.io_servers must be in [1, 65536]"));
}
