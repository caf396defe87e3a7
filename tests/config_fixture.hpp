// What the configuration tests share: a complete test platform file in a temporary data directory, and
// helpers to look at ConfigError messages.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/params.hpp"
#include "config/scenario.hpp"

namespace ciosim::test {

namespace fs = std::filesystem;
using config::ConfigError;
using config::LoadOptions;

// A complete platform file (the format of platforms/*.toml), 4 single-core nodes.
inline const char* kPlatform = R"(name = "tiny"
description = "test platform"
[nodes]
count = 4
count_source = "test"
cores_per_node = 1
memcpy_Bps = 3.0e8
tuple_cost_s = 5e-8
loopback_Bps = 1e9
[network]
mpi = "myrinet"
io = "fast-ethernet"
[pvfs]
io_servers = 2
stripe_size = 65536
disk_write_Bps = 4e7
disk_read_Bps = 4.5e7
disk_read_Bps_source = "a datasheet"
request_overhead_s = 1e-4
region_overhead_s = 5e-6
client_region_overhead_s = 1e-6
flow_buffer = 65536
max_outstanding = 8
request_header = 256
region_descriptor = 16
)";

/// A temporary data directory holding platforms/tiny.toml and platforms/other.toml.
struct DataDir {
  fs::path root;
  DataDir() {
    std::string templ = (fs::temp_directory_path() / "ciosim-cfg-XXXXXX").string();
    root = ::mkdtemp(templ.data());
    fs::create_directories(root / "platforms");
    write("platforms/tiny.toml", kPlatform);
    std::string other = kPlatform;
    other.replace(other.find("count = 4"), 9, "count = 16");
    write("platforms/other.toml", other);
  }
  ~DataDir() { fs::remove_all(root); }
  void write(const std::string& rel, const std::string& text) const { std::ofstream(root / rel) << text; }
  LoadOptions opt(std::vector<std::string> sets = {}) const {
    LoadOptions o;
    o.sets = std::move(sets);
    o.data_dirs = {root};
    return o;
  }
};

/// The ConfigError message of `f()` ("" if it does not throw one).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace ciosim::test
