// Platform files (platforms/NAME.toml): a cluster's compute nodes, CPU cost model, default networks and
// PVFS parameters. Every numeric value is a plain number in SI units (bytes, seconds, bytes/s). A key
// ending in "_source" (at the top level or in any table) is documentation of where a value comes from:
// it must be a string and is carried into the effective configuration. Any other unknown key is an error.
//
//   name = "uc3m-2007"            description = "..."
//   [nodes]   count, cores_per_node, cpu_cores, memcpy_Bps, tuple_cost_s, loopback_Bps, romio_piece_s
//   [network] mpi, io             (profile names, see `ciosim list`, or defined below)
//   [network.profiles.NAME]       optional: the platform's own network profiles (config/network_file.hpp)
//   [pvfs]    io_servers, stripe_size, disk_write_Bps, disk_read_Bps, request_overhead_s,
//             metadata_overhead_s, region_overhead_s, client_region_overhead_s, flow_buffer, max_outstanding,
//             request_header, region_descriptor
//
// Every key except name/description is required, so a platform file is a complete, self-describing
// record of the machine (name defaults to the file's stem). Exceptions, for files written before they
// existed: nodes.cpu_cores defaults to the file's cores_per_node and pvfs.metadata_overhead_s to its
// pvfs.request_overhead_s (the earlier model).
#pragma once

#include <toml++/toml.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/params.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

/// The values a model value can physically take, from the unit its key's name ends in: a bandwidth (_Bps)
/// from 1 kB/s to 10 TB/s, a cost (_s) up to a minute, a speed (_rpm), a fraction (_ratio), a real size
/// (_bytes) up to 100 PB; nothing when the name says no unit. Outside it a value is a typing mistake or an
/// absurd what-if: platform values and network profiles alike are refused there.
struct PhysicalRange {
  double lo, hi;
  const char* why;
};
std::optional<PhysicalRange> physical_range_of(std::string_view key, double min, bool real);

struct PlatformFile {
  PlatformSpec spec;
  /// The "_source" keys as dotted keys ("pvfs.disk_write_Bps_source") with their text, sorted by key.
  std::vector<std::pair<std::string, std::string>> sources;
};

/// Parses platform TOML text; `origin` (a path or name) prefixes error messages and gives the default
/// name. Throws ConfigError (one line) on malformed TOML, unknown keys, wrong types, missing keys, unknown
/// network profiles and physically impossible values.
PlatformFile parse_platform(std::string_view toml_text, const std::string& origin);
/// The same, from a parsed TOML table (e.g. a scenario's inline [platforms.NAME] table).
PlatformFile platform_from_table(const toml::table& doc, const std::string& origin);
/// Reads and parses a platform file; a missing or unreadable file is a ConfigError.
PlatformFile load_platform_file(const std::filesystem::path& file);

/// Throws ConfigError naming the first physically impossible value of `p` (non-positive bandwidth,
/// negative time, no I/O servers, ...). `where` prefixes the message.
void check_platform(const PlatformSpec& p, const std::string& where);
/// Throws ConfigError unless the platform describes its file system (`filesystem` is one of
/// `filesystems`) and, for "local", local.node is one of its nodes. `prefix` starts the message.
void check_file_system(const PlatformSpec& p, const std::string& prefix);

/// Names of the platforms found as DIR/platforms/NAME.toml in the data directories, in search order
/// (sorted within a directory; the first directory holding a name wins).
std::vector<std::string> platform_names(const std::vector<std::filesystem::path>& data_dirs);
/// The file of run.platform `value`: a path (see is_platform_path) as given, or the first
/// DIR/platforms/VALUE.toml. Throws ConfigError listing the available names.
std::filesystem::path resolve_platform(const std::string& value,
                                       const std::vector<std::filesystem::path>& data_dirs);

/// The platform as TOML tables under `table_prefix` (e.g. "platforms.quickstart"; "" for a stand-alone
/// platform file), every value with its "_source" next to it. The output parses back to the same file.
std::string platform_toml(const PlatformFile& p, const std::string& table_prefix);
/// The platform as JSON, mirroring the TOML layout: {name, description, nodes{...}, network{...},
/// pvfs{...}} with the "_source" keys next to their values.
nlohmann::ordered_json platform_json(const PlatformFile& p);

// ---- platform values as scenario keys (every one is a what-if: `--set pvfs.disk_write_Bps=1e8`)

/// A platform-file value a scenario may set: the file's [TABLE] KEY is the scenario key "TABLE.KEY"
/// (pvfs.disk_write_Bps, nodes.memcpy_Bps, nfs.wsize, ...). Not listed: the network names (network.mpi /
/// network.io) and the keys scenarios know by older names (nodes.count, nodes.cores_per_node,
/// nodes.cpu_cores, filesystem.kind: platform.nodes, platform.cores_per_node, platform.cpu_cores,
/// platform.filesystem).
struct PlatformKey {
  std::string key;    ///< "pvfs.disk_write_Bps"
  std::string table;  ///< "pvfs"
  ParamType type = ParamType::Real;
  std::string unit;                  ///< "bytes/s", "seconds", ...
  double min = 0;                    ///< smallest valid value (numbers)
  bool above_min = false;            ///< strictly greater than min
  double max = 0;                    ///< largest physically meaningful value (numbers)
  std::vector<std::string> choices;  ///< Enum: the valid values
  std::string help;                  ///< one line
  /// A key the platform may leave out (not_given): the key whose value the model uses in its place
  /// ("nodes.tuple_cost_s" for a step's cost per tuple, "nodes.memcpy_Bps" for nodes.memory_Bps).
  std::string stands_in;
};
/// Every settable platform key, in the platform file's order.
const std::vector<PlatformKey>& platform_keys();
/// The settable platform key named `key` ("nodes.memcpy_Bps"); std::logic_error when there is none.
const PlatformKey& platform_key(const std::string& key);
/// Whether the platform file describes the key's table (file-system tables are optional).
bool describes_key(const PlatformSpec& p, const PlatformKey& k);
/// The key's value in `p` (Int/Size as integers, Real as a double, Enum as text).
Value platform_value(const PlatformSpec& p, const PlatformKey& k);
/// A value the platform does not give (NaN: a step's cost per tuple, which then costs nodes.tuple_cost_s;
/// nodes.memory_Bps, every copy then at memcpy_Bps), left out of platform files and effective configurations.
bool not_given(const Value& v);
/// Sets the key's value in `p` (`v` checked by check_value against the key's parameter beforehand).
void set_platform_value(PlatformSpec& p, const PlatformKey& k, const Value& v);

// ---- TOML helpers shared by the config files

/// Parses TOML text; a syntax error becomes a one-line ConfigError "origin:line:col: malformed TOML: ...".
toml::table parse_toml(std::string_view toml_text, const std::string& origin);
/// "origin:line: " of a node (or "origin: " when it has no source position).
std::string at(const std::string& origin, const toml::node& n);
/// "an integer", "a string", ... (for wrong-type messages).
std::string toml_type(const toml::node& n);
/// `s` with newlines replaced by spaces.
std::string one_line(std::string_view s);

}  // namespace ciosim::config
