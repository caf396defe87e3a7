#include "config/platform_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <variant>

#include "config/input_files.hpp"
#include "config/network_file.hpp"
#include "config/params.hpp"
#include "models/filesystem/kinds.hpp"
#include "models/network/profiles.hpp"

namespace ciosim::config {
namespace {

namespace fs = std::filesystem;

// ---- the platform file's fields, declared once: parsing, checking and writing derive from this table.

enum class Kind { Int, Int64, Real, Network, Choice };
using Ref = std::variant<int*, std::int64_t*, double*, std::string*>;

struct Field {
  std::string_view table;
  std::string_view key;
  Kind kind;
  double min;      ///< smallest valid value (numbers)
  bool above_min;  ///< the value must be strictly greater than min
  Ref (*ref)(PlatformSpec&);
  std::vector<std::string> (*choices)() = nullptr;  ///< Kind::Choice: the valid values
  /// A Real the platform may leave out (NaN): the key whose value the model uses in its place.
  const char* stands_in = nullptr;
};

/// A value the platform does not give (not_given), left out of what is written and not range-checked.
bool unset(const Field& f, PlatformSpec& spec) {
  const Ref r = f.ref(spec);
  return std::holds_alternative<double*>(r) && not_given(*std::get<double*>(r));
}

std::vector<std::string> commit_modes() {
  return {"sync", "async"};
}

std::vector<std::string> close_modes() {
  return {"local", "barrier"};
}

std::vector<std::string> server_placements() {
  return {"dedicated", "compute-nodes"};
}

// A file system's page cache (models/filesystem/page_cache.hpp): the same six keys in each table that has
// one, declared here once.
// clang-format off
#define CIOSIM_PAGE_CACHE_FIELDS(T, K, M)                                                                   \
  {#T, K "bytes", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.T.M.bytes; }},              \
  {#T, K "dirty_ratio", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.T.M.dirty_ratio; }},  \
  {#T, K "dirty_background_ratio", Kind::Real, 0, false,                                                    \
   [](PlatformSpec& p) -> Ref { return &p.T.M.dirty_background_ratio; }},                                   \
  {#T, K "dirty_expire_s", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.T.M.dirty_expire_s; }}, \
  {#T, K "writeback_interval_s", Kind::Real, 0, true,                                                       \
   [](PlatformSpec& p) -> Ref { return &p.T.M.writeback_interval_s; }},                                     \
  {#T, K "copy_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.T.M.copy_Bps; }}
// clang-format on

// A step's own cost per tuple (Step, algorithms/common/process.hpp): nodes.tuple_cost_<name>_s; not given
// (NaN), the step costs nodes.tuple_cost_s.
// clang-format off
#define CIOSIM_STEP_FIELD(S, NAME)                                                                          \
  {"nodes", "tuple_cost_" NAME "_s", Kind::Real, 0, false,                                                  \
   [](PlatformSpec& p) -> Ref { return &p.step_tuple_cost_s[static_cast<std::size_t>(Step::S)]; },          \
   nullptr, "nodes.tuple_cost_s"}
// clang-format on

// clang-format off
const Field kFields[] = {
    {"nodes", "count", Kind::Int, 1, false, [](PlatformSpec& p) -> Ref { return &p.nodes; }},
    {"nodes", "cores_per_node", Kind::Int, 1, false, [](PlatformSpec& p) -> Ref { return &p.cores_per_node; }},
    {"nodes", "cpu_cores", Kind::Int, 1, false, [](PlatformSpec& p) -> Ref { return &p.cpu_cores; }},
    {"nodes", "memcpy_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.memcpy_Bps; }},
    {"nodes", "memory_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.memory_Bps; }, nullptr,
     "nodes.memcpy_Bps"},
    {"nodes", "tuple_cost_s", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.tuple_cost_s; }},
    {"nodes", "romio_piece_s", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.romio_piece_s; }},
    CIOSIM_STEP_FIELD(Offsets, "offsets"),
    CIOSIM_STEP_FIELD(Requests, "requests"),
    CIOSIM_STEP_FIELD(Windows, "windows"),
    CIOSIM_STEP_FIELD(Views, "views"),
    CIOSIM_STEP_FIELD(Scatter, "scatter"),
    CIOSIM_STEP_FIELD(Ranges, "ranges"),
    CIOSIM_STEP_FIELD(Regions, "regions"),
    CIOSIM_STEP_FIELD(Lists, "lists"),
    {"nodes", "loopback_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.loopback_Bps; }},
    {"network", "mpi", Kind::Network, 0, false, [](PlatformSpec& p) -> Ref { return &p.network_mpi; }},
    {"network", "io", Kind::Network, 0, false, [](PlatformSpec& p) -> Ref { return &p.network_io; }},
    {"pvfs", "io_servers", Kind::Int, 1, false, [](PlatformSpec& p) -> Ref { return &p.pvfs.io_servers; }},
    {"pvfs", "stripe_size", Kind::Int64, 1, false, [](PlatformSpec& p) -> Ref { return &p.pvfs.stripe_size; }},
    {"pvfs", "disk_write_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.pvfs.disk_write_Bps; }},
    {"pvfs", "disk_read_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.pvfs.disk_read_Bps; }},
    {"pvfs", "disk_rpm", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.pvfs.disk.rpm; }},
    {"pvfs", "disk_seek_track_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.disk.seek_track_s; }},
    {"pvfs", "disk_seek_full_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.disk.seek_full_s; }},
    {"pvfs", "disk_capacity_bytes", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.disk.capacity_bytes; }},
    {"pvfs", "request_overhead_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.request_overhead_s; }},
    {"pvfs", "metadata_overhead_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.metadata_overhead_s; }},
    {"pvfs", "region_overhead_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.region_overhead_s; }},
    {"pvfs", "client_region_overhead_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.client_region_overhead_s; }},
    {"pvfs", "flow_buffer", Kind::Int64, 1, false, [](PlatformSpec& p) -> Ref { return &p.pvfs.flow_buffer; }},
    {"pvfs", "max_outstanding", Kind::Int, 1, false, [](PlatformSpec& p) -> Ref { return &p.pvfs.max_outstanding; }},
    {"pvfs", "request_header", Kind::Int64, 0, false, [](PlatformSpec& p) -> Ref { return &p.pvfs.request_header; }},
    {"pvfs", "region_descriptor", Kind::Int64, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.region_descriptor; }},
    CIOSIM_PAGE_CACHE_FIELDS(pvfs, "page_cache_", cache),
    {"pvfs", "server_placement", Kind::Choice, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.pvfs.server_placement; }, server_placements},
    {"filesystem", "kind", Kind::Choice, 0, false, [](PlatformSpec& p) -> Ref { return &p.filesystem; },
     filesystem::kind_list},
    {"filesystem", "close", Kind::Choice, 0, false, [](PlatformSpec& p) -> Ref { return &p.close; }, close_modes},
    {"nfs", "commit", Kind::Choice, 0, false, [](PlatformSpec& p) -> Ref { return &p.nfs.commit; }, commit_modes},
    {"nfs", "wsize", Kind::Int64, 1, false, [](PlatformSpec& p) -> Ref { return &p.nfs.wsize; }},
    {"nfs", "rsize", Kind::Int64, 1, false, [](PlatformSpec& p) -> Ref { return &p.nfs.rsize; }},
    {"nfs", "max_outstanding", Kind::Int, 1, false, [](PlatformSpec& p) -> Ref { return &p.nfs.max_outstanding; }},
    {"nfs", "server_threads", Kind::Int, 1, false, [](PlatformSpec& p) -> Ref { return &p.nfs.server_threads; }},
    {"nfs", "rpc_overhead_s", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.nfs.rpc_overhead_s; }},
    {"nfs", "client_rpc_overhead_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.nfs.client_rpc_overhead_s; }},
    {"nfs", "rpc_header", Kind::Int64, 0, false, [](PlatformSpec& p) -> Ref { return &p.nfs.rpc_header; }},
    {"nfs", "disk_write_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.nfs.disk_write_Bps; }},
    {"nfs", "disk_read_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.nfs.disk_read_Bps; }},
    {"nfs", "disk_rpm", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.nfs.disk.rpm; }},
    {"nfs", "disk_seek_track_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.nfs.disk.seek_track_s; }},
    {"nfs", "disk_seek_full_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.nfs.disk.seek_full_s; }},
    {"nfs", "disk_capacity_bytes", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.nfs.disk.capacity_bytes; }},
    CIOSIM_PAGE_CACHE_FIELDS(nfs, "page_cache_", cache),
    CIOSIM_PAGE_CACHE_FIELDS(nfs, "client_page_cache_", client_cache),
    {"local", "node", Kind::Int, 0, false, [](PlatformSpec& p) -> Ref { return &p.local.node; }},
    {"local", "disk_write_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.local.disk_write_Bps; }},
    {"local", "disk_read_Bps", Kind::Real, 0, true, [](PlatformSpec& p) -> Ref { return &p.local.disk_read_Bps; }},
    {"local", "disk_rpm", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.local.disk.rpm; }},
    {"local", "disk_seek_track_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.local.disk.seek_track_s; }},
    {"local", "disk_seek_full_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.local.disk.seek_full_s; }},
    {"local", "disk_capacity_bytes", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.local.disk.capacity_bytes; }},
    {"local", "request_overhead_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.local.request_overhead_s; }},
    {"local", "region_overhead_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.local.region_overhead_s; }},
    {"local", "open_overhead_s", Kind::Real, 0, false, [](PlatformSpec& p) -> Ref { return &p.local.open_overhead_s; }},
    {"local", "close_overhead_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.local.close_overhead_s; }},
    {"local", "new_pages_call_s", Kind::Real, 0, false,
     [](PlatformSpec& p) -> Ref { return &p.local.new_pages_call_s; }},
    CIOSIM_PAGE_CACHE_FIELDS(local, "page_cache_", cache),
};
#undef CIOSIM_PAGE_CACHE_FIELDS
// clang-format on

constexpr std::string_view kTables[] = {"nodes", "network", "filesystem", "pvfs", "nfs", "local"};

/// Tables of file systems: each is optional, but complete when given, and the table of the platform's
/// [filesystem] kind must be given. Their names are the kinds' names (models/filesystem/kinds.hpp).
bool is_file_system_table(std::string_view table) {
  for (const auto& k : filesystem::kinds())
    if (k.name == table) return true;
  return false;
}

/// Keys added after platform files existed: a file that lacks one gets the value of the key named second
/// (the model before the key: one core per placed rank; open and close cost one request each; a page
/// cache copies at the node's memcpy speed), or, where none is named, the key's default with the reason
/// given third (a disk without position; no page cache, with Linux's defaults for the tunables that then
/// do not apply). A file system's keys are added only when the file describes that file system.
struct LaterKey {
  std::string_view key, from, why;
};
// clang-format off
#define CIOSIM_WITHOUT_POSITION "0, a disk without position (a bandwidth only), as before the key existed"
#define CIOSIM_LATER_DISK(T)                                  \
  {#T ".disk_rpm", "", CIOSIM_WITHOUT_POSITION},              \
  {#T ".disk_seek_track_s", "", CIOSIM_WITHOUT_POSITION},     \
  {#T ".disk_seek_full_s", "", CIOSIM_WITHOUT_POSITION},      \
  {#T ".disk_capacity_bytes", "", CIOSIM_WITHOUT_POSITION}
#define CIOSIM_LATER_PAGE_CACHE(K)                                                                           \
  {K "bytes", "", "0, no page cache: a write goes on to the disk (the server, for an NFS client) at once, as before the key existed"},               \
  {K "dirty_ratio", "",                                                                                      \
   "0.2, Linux's default vm.dirty_ratio since 2.6.30 (Documentation/admin-guide/sysctl/vm.rst); unused "     \
   "without a cache"},                                                                                       \
  {K "dirty_background_ratio", "",                                                                           \
   "0.1, Linux's default vm.dirty_background_ratio since 2.6.30; unused without a cache"},                   \
  {K "dirty_expire_s", "", "30, Linux's default vm.dirty_expire_centisecs (3000); unused without a cache"},  \
  {K "writeback_interval_s", "",                                                                             \
   "5, Linux's default vm.dirty_writeback_centisecs (500); unused without a cache"},                         \
  {K "copy_Bps", "nodes.memcpy_Bps",                                                                         \
   "not in the platform file: nodes.memcpy_Bps, the memory copy of the platform's nodes"}
constexpr LaterKey kLaterKeys[] = {
    {"nodes.cpu_cores", "nodes.cores_per_node", ""},
    {"nodes.romio_piece_s", "",
     "0, not measured: run.cpu_charge = \"library\" refuses the platform, as before the key existed"},
    {"pvfs.metadata_overhead_s", "pvfs.request_overhead_s", ""},
    {"local.region_overhead_s", "local.request_overhead_s", ""},
    {"local.open_overhead_s", "local.request_overhead_s", ""},
    {"local.close_overhead_s", "local.request_overhead_s", ""},
    {"local.new_pages_call_s", "",
     "0, a write call costs request_overhead_s whether it adds pages to the page cache or not, as before the "
     "key existed"},
    {"filesystem.close", "", "local, each rank closes on its own, as before the key existed"},
    {"pvfs.server_placement", "", "dedicated, servers on hosts of their own, as before the key existed"},
    CIOSIM_LATER_DISK(pvfs),
    CIOSIM_LATER_DISK(nfs),
    CIOSIM_LATER_DISK(local),
    CIOSIM_LATER_PAGE_CACHE("pvfs.page_cache_"),
    CIOSIM_LATER_PAGE_CACHE("nfs.page_cache_"),
    CIOSIM_LATER_PAGE_CACHE("nfs.client_page_cache_"),
    CIOSIM_LATER_PAGE_CACHE("local.page_cache_"),
};
#undef CIOSIM_LATER_DISK
#undef CIOSIM_LATER_PAGE_CACHE
#undef CIOSIM_WITHOUT_POSITION
// clang-format on

std::string unit_of(const Field& f) {
  if (f.kind == Kind::Network) return "a network profile name";
  if (f.kind == Kind::Choice) return "one of: " + join(f.choices());
  if (f.key.ends_with("_Bps")) return "bytes/s";
  if (f.key.ends_with("_s")) return "seconds";
  if (f.key.ends_with("_rpm")) return "revolutions per minute";
  if (f.key.ends_with("_ratio")) return "a fraction (0 to 1)";
  if (f.key.ends_with("_bytes")) return "bytes";
  return f.kind == Kind::Real ? "a number" : "an integer";
}

std::vector<std::string> keys_of(std::string_view table) {
  std::vector<std::string> out;
  for (const auto& f : kFields)
    if (f.table == table) out.emplace_back(f.key);
  return out;
}

const Field* find_field(std::string_view table, std::string_view key) {
  for (const auto& f : kFields)
    if (f.table == table && f.key == key) return &f;
  return nullptr;
}

bool is_source_key(std::string_view key) {
  return key.size() > 7 && key.ends_with("_source");
}

}  // namespace

std::optional<PhysicalRange> physical_range_of(std::string_view key, double min, bool real) {
  if (key.ends_with("_rpm"))
    return PhysicalRange{0, 30000, "0 (no rotation) up to twice the fastest disks made (15,000 rpm)"};
  if (key.ends_with("_bytes") && real) return PhysicalRange{0, 1e17, "up to 100 PB"};
  if (key.ends_with("_ratio")) return PhysicalRange{0, 1, "a fraction"};
  if (key.ends_with("_Bps"))
    return PhysicalRange{1e3, 1e13,
                         "from 1 kB/s, slower than any disk or link, to 10 TB/s, faster than any memory bus"};
  if (key.ends_with("_s")) return PhysicalRange{min, 60, "a per-operation cost of at most a minute"};
  return std::nullopt;
}

namespace {

/// The values a field can physically take, beyond its sign: a value outside is a typing mistake or an
/// absurd what-if that would only make the simulation meaningless (a memcpy of 1e-300 B/s, an overhead of
/// 1e308 s), so it is refused when the platform is read or the scenario sets it.
PhysicalRange physical_range(const Field& f) {
  if (const auto r = physical_range_of(f.key, f.min, f.kind == Kind::Real)) return *r;
  if (f.kind == Kind::Int64) return {f.min, 1099511627776.0, "at most 1 TiB"};
  if (f.table == "nodes" || f.key == "node") return {f.min, 1048576, "at most 2^20 nodes or cores"};
  return {f.min, 65536, "at most 65,536 servers, threads or requests in flight"};
}

void check_field(const Field& f, PlatformSpec& p, const std::string& where) {
  const std::string dotted = std::string(f.table) + "." + std::string(f.key);
  std::visit(
      [&](auto* v) {
        using T = std::remove_pointer_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          if (f.kind == Kind::Choice) {
            const auto valid = f.choices();
            if (std::find(valid.begin(), valid.end(), *v) == valid.end())
              throw ConfigError(where + dotted + " must be one of: " + join(valid) + "; got " + quote(*v));
            return;
          }
          try {
            (void)network_profile(*v, p.networks);
          } catch (const std::invalid_argument& e) {
            throw ConfigError(where + dotted + ": " + one_line(e.what()));
          }
        } else {
          const double x = static_cast<double>(*v);
          const bool ok = std::isfinite(x) && (f.above_min ? x > f.min : x >= f.min);
          std::string val = std::is_same_v<T, double> ? format_double(x) : std::to_string(*v);
          if (!ok)
            throw ConfigError(where + dotted + " must be " + (f.above_min ? "> " : ">= ") +
                              format_double(f.min) + " (" + unit_of(f) + "), got " + val);
          const PhysicalRange r = physical_range(f);
          if (x < r.lo || x > r.hi)
            throw ConfigError(where + dotted + " = " + val + " is outside the physically meaningful range [" +
                              format_double(r.lo) + ", " + format_double(r.hi) + "] (" + unit_of(f) + ": " +
                              r.why + ")");
        }
      },
      f.ref(p));
}

void set_field(const Field& f, PlatformSpec& p, const toml::node& n, const std::string& where) {
  const std::string dotted = std::string(f.table) + "." + std::string(f.key);
  const auto wrong = [&] {
    return ConfigError(where + dotted + " must be " + unit_of(f) + ", got " + toml_type(n));
  };
  std::visit(
      [&](auto* v) {
        using T = std::remove_pointer_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          if (!n.is_string()) throw wrong();
          *v = *n.value<std::string>();
        } else if constexpr (std::is_same_v<T, double>) {
          if (!n.is_number()) throw wrong();
          *v = n.is_integer() ? static_cast<double>(*n.value<std::int64_t>()) : *n.value<double>();
        } else {
          if (!n.is_integer()) throw wrong();
          const std::int64_t i = *n.value<std::int64_t>();
          if (std::is_same_v<T, int> && (i > INT_MAX || i < INT_MIN))
            throw ConfigError(where + dotted + " is too large: " + std::to_string(i));
          *v = static_cast<T>(i);
        }
      },
      f.ref(p));
  check_field(f, p, where);
}

std::string source_text(const toml::node& n, const std::string& dotted, const std::string& where) {
  if (!n.is_string())
    throw ConfigError(where + dotted + " (documentation of a value's source) must be a string, got " +
                      toml_type(n));
  return *n.value<std::string>();
}

/// What is wrong with file system `name`'s disk or page cache ("" if nothing), naming their keys.
std::string storage_problem(const PlatformSpec& p, const std::string& name) {
  const auto check = [&](const filesystem::DiskGeometry& disk, const filesystem::PageCacheConfig& cache) {
    const std::string why = disk.problem(name + ".disk_");
    return why.empty() ? cache.problem(name + ".page_cache_") : why;
  };
  switch (filesystem::kind_of(name)) {
    case filesystem::Kind::Nfs:
      if (const std::string why = p.nfs.client_cache.problem("nfs.client_page_cache_"); !why.empty())
        return why;
      return check(p.nfs.disk, p.nfs.cache);
    case filesystem::Kind::Local:
      return check(p.local.disk, p.local.cache);
    case filesystem::Kind::Pvfs:
      break;
  }
  return check(p.pvfs.disk, p.pvfs.cache);
}

/// Whether the platform's file holds `table` (file-system tables are optional).
bool describes(const PlatformSpec& p, std::string_view table) {
  return !is_file_system_table(table) ||
         std::find(p.filesystems.begin(), p.filesystems.end(), table) != p.filesystems.end();
}

std::string valid_top_level() {
  return "name, description, [nodes], [network], [filesystem], [pvfs], [nfs], [local], and any key ending in "
         "_source";
}

}  // namespace

std::string one_line(std::string_view s) {
  std::string out(s);
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out;
}

std::string at(const std::string& origin, const toml::node& n) {
  const auto& b = n.source().begin;
  return b.line ? origin + ":" + std::to_string(b.line) + ": " : origin + ": ";
}

std::string toml_type(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}

toml::table parse_toml(std::string_view toml_text, const std::string& origin) {
  // XML given by mistake, most likely a SimGrid platform description (<platform version="4.1">): say so
  // rather than report its first '<' as a TOML syntax error.
  const auto first = toml_text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && toml_text[first] == '<')
    throw ConfigError(origin + ": this is XML" +
                      (toml_text.find("<platform") != std::string_view::npos
                           ? std::string(", a SimGrid platform description")
                           : std::string()) +
                      "; ciosim reads TOML files: a platform is platforms/NAME.toml (nodes, networks, file "
                      "systems with their sources; docs/models.md), a scenario scenarios/NAME.toml");
  try {
    return toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw ConfigError(origin + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                      ": malformed TOML: " + one_line(e.description()));
  }
}

PlatformFile parse_platform(std::string_view toml_text, const std::string& origin) {
  return platform_from_table(parse_toml(toml_text, origin), origin);
}

PlatformFile platform_from_table(const toml::table& doc, const std::string& origin) {
  PlatformFile out;
  out.spec = PlatformSpec{};
  out.spec.name = fs::path(origin).stem().string();
  std::set<std::string> seen;
  // The platform's own network profiles first: [network] mpi/io may name them.
  if (const toml::node* prof = doc.at_path("network.profiles").node())
    out.spec.networks = parse_network_profiles(*prof, origin, out.sources);
  for (auto&& [k, node] : doc) {
    const std::string key(k.str());
    const std::string where = at(origin, node);
    if (key == "name" || key == "description") {
      if (!node.is_string()) throw ConfigError(where + key + " must be a string, got " + toml_type(node));
      (key == "name" ? out.spec.name : out.spec.description) = *node.value<std::string>();
    } else if (is_source_key(key)) {
      out.sources.emplace_back(key, source_text(node, key, where));
    } else if (std::find(std::begin(kTables), std::end(kTables), key) != std::end(kTables)) {
      if (!node.is_table())
        throw ConfigError(where + "[" + key + "] must be a table, got " + toml_type(node));
      for (auto&& [k2, value] : *node.as_table()) {
        const std::string key2(k2.str());
        const std::string where2 = at(origin, value);
        const std::string dotted = key + "." + key2;
        if (key == "network" && key2 == "profiles") {
          continue;  // parsed above
        } else if (is_source_key(key2)) {
          out.sources.emplace_back(dotted, source_text(value, dotted, where2));
        } else if (const Field* f = find_field(key, key2)) {
          set_field(*f, out.spec, value, where2);
          seen.insert(dotted);
        } else {
          throw ConfigError(
              where2 + "unknown key " + dotted + "; valid keys in [" + key + "]: " + join(keys_of(key)) +
              (key == "network" ? ", [network.profiles.NAME]" : "") + ", and any key ending in _source");
        }
      }
    } else {
      throw ConfigError(where + "unknown key " + key + "; valid: " + valid_top_level());
    }
  }
  // Keys that came later: a platform file without one keeps the model it was written for.
  for (const auto& [key, from, why] : kLaterKeys) {
    const std::string table(key.substr(0, key.find('.')));
    const bool described = !is_file_system_table(table) ||
                           std::any_of(seen.begin(), seen.end(),
                                       [&](const std::string& d) { return d.starts_with(table + "."); });
    if (seen.count(std::string(key)) || !described || (!from.empty() && !seen.count(std::string(from))))
      continue;
    if (!from.empty()) {
      const Field* to = find_field(table, key.substr(key.find('.') + 1));
      const Field* src = find_field(from.substr(0, from.find('.')), from.substr(from.find('.') + 1));
      std::visit(
          [&](auto* dst) {
            using T = std::remove_pointer_t<decltype(dst)>;
            *dst = *std::get<T*>(src->ref(out.spec));
          },
          to->ref(out.spec));
    }
    seen.insert(std::string(key));
    const std::string source_key = std::string(key) + "_source";
    if (std::none_of(out.sources.begin(), out.sources.end(),
                     [&](const auto& s) { return s.first == source_key; }))
      out.sources.emplace_back(source_key, !why.empty() && !from.empty() ? std::string(why)
                                           : !why.empty() ? "not in the platform file: " + std::string(why)
                                                          : "not in the platform file: " + std::string(from) +
                                                                ", as before the key existed");
  }
  // [filesystem] came later: without it a platform has the file system it was written for, PVFS.
  if (!seen.count("filesystem.kind")) {
    seen.insert("filesystem.kind");
    if (std::none_of(out.sources.begin(), out.sources.end(),
                     [](const auto& s) { return s.first == "filesystem.kind_source"; }))
      out.sources.emplace_back("filesystem.kind_source",
                               "not in the platform file: pvfs, the only file system before the key existed");
  }
  // The file systems the file describes: those whose table it gives.
  out.spec.filesystems.clear();
  for (const auto& k : filesystem::kinds()) {
    const std::string t(k.name);
    if (std::any_of(seen.begin(), seen.end(), [&](const std::string& d) { return d.starts_with(t + "."); }))
      out.spec.filesystems.push_back(t);
  }
  if (std::find(out.spec.filesystems.begin(), out.spec.filesystems.end(), out.spec.filesystem) ==
      out.spec.filesystems.end())
    throw ConfigError(origin + ": filesystem.kind = " + quote(out.spec.filesystem) + " needs a [" +
                      out.spec.filesystem + "] table with its keys: " + join(keys_of(out.spec.filesystem)));
  std::vector<std::string> missing;
  for (const auto& f : kFields) {
    const std::string dotted = std::string(f.table) + "." + std::string(f.key);
    const bool optional_table =
        is_file_system_table(f.table) && std::find(out.spec.filesystems.begin(), out.spec.filesystems.end(),
                                                   std::string(f.table)) == out.spec.filesystems.end();
    // A step's cost per tuple not given stays NaN: the step costs nodes.tuple_cost_s.
    if (!seen.count(dotted) && !optional_table && !unset(f, out.spec)) missing.push_back(dotted);
  }
  if (!missing.empty())
    throw ConfigError(origin + ": missing required key" + (missing.size() > 1 ? "s " : " ") + join(missing) +
                      " (every platform value must be given, in SI units)");
  if (out.spec.name.empty()) throw ConfigError(origin + ": name must not be empty");
  for (const std::string& t : out.spec.filesystems)
    if (const std::string why = storage_problem(out.spec, t); !why.empty())
      throw ConfigError(origin + ": " + why);
  std::sort(out.sources.begin(), out.sources.end());
  return out;
}

PlatformFile load_platform_file(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw ConfigError(not_a_file("platform file", file));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError("cannot read platform file " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parse_platform(text.str(), file.string());
}

void check_platform(const PlatformSpec& p, const std::string& where) {
  PlatformSpec copy = p;
  const std::string prefix = where.empty() ? "" : where + ": ";
  for (const auto& f : kFields)
    if (!unset(f, copy)) check_field(f, copy, prefix);
  check_file_system(p, prefix);
}

void check_file_system(const PlatformSpec& p, const std::string& prefix) {
  if (std::find(p.filesystems.begin(), p.filesystems.end(), p.filesystem) == p.filesystems.end())
    throw ConfigError(prefix + "platform " + quote(p.name) + " has no [" + p.filesystem +
                      "] table for platform.filesystem = " + quote(p.filesystem) +
                      "; it describes: " + join(p.filesystems));
  for (const std::string& t : p.filesystems)
    if (const std::string why = storage_problem(p, t); !why.empty())
      throw ConfigError(prefix + "platform " + quote(p.name) + ": " + why);
  if (p.filesystem == "local" && p.local.node >= p.nodes)
    throw ConfigError(prefix + "local.node = " + std::to_string(p.local.node) +
                      " is not a node of platform " + quote(p.name) + " (0.." + std::to_string(p.nodes - 1) +
                      ")");
}

std::vector<std::string> platform_names(const std::vector<fs::path>& data_dirs) {
  std::vector<std::string> out;
  for (const auto& dir : data_dirs) {
    std::error_code ec;
    std::vector<std::string> here;
    for (fs::directory_iterator it(dir / "platforms", ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".toml" && it->is_regular_file(ec))
        here.push_back(it->path().stem().string());
    }
    std::sort(here.begin(), here.end());
    for (auto& n : here)
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(std::move(n));
  }
  return out;
}

fs::path resolve_platform(const std::string& value, const std::vector<fs::path>& data_dirs) {
  if (is_platform_path(value)) {
    std::error_code ec;
    if (!fs::is_regular_file(value, ec)) throw ConfigError(not_a_file("platform file", value));
    return value;
  }
  for (const auto& dir : data_dirs) {
    const fs::path f = dir / "platforms" / (value + ".toml");
    std::error_code ec;
    if (fs::is_regular_file(f, ec)) return f;
  }
  const auto names = platform_names(data_dirs);
  throw ConfigError("unknown platform " + quote(value) +
                    "; available platforms: " + (names.empty() ? std::string("(none found)") : join(names)) +
                    "; or give a path to a .toml file");
}

std::string platform_toml(const PlatformFile& p, const std::string& table_prefix) {
  PlatformSpec spec = p.spec;
  std::ostringstream out;
  std::set<std::string> written;
  const auto source_of = [&](const std::string& dotted_key) {
    for (const auto& [k, v] : p.sources)
      if (k == dotted_key) {
        written.insert(k);
        return v;
      }
    return std::string();
  };
  const auto line = [&](std::string_view key, const std::string& value, const std::string& src) {
    out << toml_key(key) << " = " << value << "\n";
    if (!src.empty()) out << toml_key(std::string(key) + "_source") << " = " << quote(src) << "\n";
  };
  const auto rest = [&](const std::string& table) {  // "_source" keys not next to a known value
    for (const auto& [k, v] : p.sources) {
      const auto dot = k.rfind('.');
      const std::string t = dot == std::string::npos ? "" : k.substr(0, dot);
      if (t == table && !written.count(k)) out << toml_key(k.substr(dot + 1)) << " = " << quote(v) << "\n";
    }
  };
  if (!table_prefix.empty()) out << "[" << table_prefix << "]\n";
  line("name", quote(spec.name), source_of("name_source"));
  line("description", quote(spec.description), source_of("description_source"));
  rest("");
  for (std::string_view table : kTables) {
    const std::string t(table);
    if (!describes(spec, table)) continue;
    out << "\n[" << (table_prefix.empty() ? t : table_prefix + "." + t) << "]\n";
    for (const auto& f : kFields) {
      if (f.table != table || unset(f, spec)) continue;
      const std::string value = std::visit(
          [](auto* v) -> std::string {
            using T = std::remove_pointer_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::string>)
              return quote(*v);
            else if constexpr (std::is_same_v<T, double>)
              return toml_double(*v);
            else
              return std::to_string(*v);
          },
          f.ref(spec));
      line(f.key, value, source_of(t + "." + std::string(f.key) + "_source"));
    }
    rest(t);
    if (t == "network")
      out << network_profiles_toml(
          spec.networks, (table_prefix.empty() ? "" : table_prefix + ".") + "network.profiles", p.sources);
  }
  return out.str();
}

nlohmann::ordered_json platform_json(const PlatformFile& p) {
  PlatformSpec spec = p.spec;
  nlohmann::ordered_json j;
  const auto put_sources = [&](nlohmann::ordered_json& obj, const std::string& table,
                               const std::string& key) {
    const std::string want = (table.empty() ? "" : table + ".") + key + "_source";
    for (const auto& [k, v] : p.sources)
      if (k == want) obj[key + "_source"] = v;
  };
  j["name"] = spec.name;
  j["description"] = spec.description;
  for (const auto& [k, v] : p.sources)
    if (k.find('.') == std::string::npos) j[k] = v;
  for (std::string_view table : kTables) {
    const std::string t(table);
    if (!describes(spec, table)) continue;
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (const auto& f : kFields) {
      if (f.table != table || unset(f, spec)) continue;
      const std::string key(f.key);
      std::visit([&](auto* v) { obj[key] = *v; }, f.ref(spec));
      put_sources(obj, t, key);
    }
    for (const auto& [k, v] : p.sources)
      if (k.starts_with(t + ".") && !k.starts_with("network.profiles.") &&
          !obj.contains(k.substr(t.size() + 1)))
        obj[k.substr(t.size() + 1)] = v;
    if (t == "network" && !spec.networks.empty())
      obj["profiles"] = network_profiles_json(spec.networks, p.sources);
    j[t] = std::move(obj);
  }
  return j;
}

namespace {

/// The unit and one line of help of each settable key (shown by `ciosim list` and `ciosim run --help`).
struct KeyDoc {
  std::string_view key, unit, help;
};
// clang-format off
#define CIOSIM_PAGE_CACHE_DOCS(K, WHOSE)                                                                     \
  {K "bytes", "bytes", WHOSE " page cache: memory it may use (0: none, written through)"},                   \
  {K "dirty_ratio", "fraction", WHOSE " page cache: dirty share above which writers wait"},                  \
  {K "dirty_background_ratio", "fraction", WHOSE " page cache: dirty share above which the flusher writes"}, \
  {K "dirty_expire_s", "seconds", WHOSE " page cache: age at which dirty data is written"},                  \
  {K "writeback_interval_s", "seconds", WHOSE " page cache: the flusher's period"},                          \
  {K "copy_Bps", "bytes/s", WHOSE " page cache: memory copy into and out of it"}
// clang-format on
constexpr KeyDoc kKeyDocs[] = {
    CIOSIM_PAGE_CACHE_DOCS("pvfs.page_cache_", "an I/O server's"),
    CIOSIM_PAGE_CACHE_DOCS("nfs.page_cache_", "the NFS server's"),
    CIOSIM_PAGE_CACHE_DOCS("nfs.client_page_cache_", "an NFS client node's"),
    CIOSIM_PAGE_CACHE_DOCS("local.page_cache_", "a node's"),
    {"nodes.memcpy_Bps", "bytes/s", "CPU cost of copying (pack, unpack, staging) on a compute node"},
    {"nodes.memory_Bps", "bytes/s",
     "a compute node's memory bandwidth shared by its ranks' concurrent copies, each at most memcpy_Bps "
     "(not given: every copy at memcpy_Bps)"},
    {"nodes.tuple_cost_s", "seconds", "CPU cost per offset-length tuple an algorithm processes"},
    {"nodes.romio_piece_s", "seconds",
     "the MPI library's (ROMIO's) collective write per piece an aggregator receives: its receive datatype "
     "built, committed and freed, the hole test's merge (run.cpu_charge = library; ciosim calibrate)"},
    {"nodes.loopback_Bps", "bytes/s", "bandwidth of a message between two ranks of the same node"},
    {"nodes.tuple_cost_offsets_s", "seconds",
     "per tuple, flattening a rank's datatype into its offset list (not given: nodes.tuple_cost_s)"},
    {"nodes.tuple_cost_requests_s", "seconds",
     "per tuple, splitting offset lists into file domains' requests (not given: nodes.tuple_cost_s)"},
    {"nodes.tuple_cost_windows_s", "seconds",
     "per tuple, walking sorted lists against a two-phase window (not given: nodes.tuple_cost_s)"},
    {"nodes.tuple_cost_views_s", "seconds",
     "per tuple, walking file views to place pieces (view-based; not given: nodes.tuple_cost_s)"},
    {"nodes.tuple_cost_scatter_s", "seconds",
     "per run, building a piece's runs and copying them in or out of a view-based buffer, bytes apart "
     "(not given: nodes.tuple_cost_s)"},
    {"nodes.tuple_cost_ranges_s", "seconds",
     "per range, merging runs into a view-based buffer's valid and dirty ranges (not given: "
     "nodes.tuple_cost_s)"},
    {"nodes.tuple_cost_regions_s", "seconds",
     "per region, building one List I/O call's regions (not given: nodes.tuple_cost_s)"},
    {"nodes.tuple_cost_lists_s", "seconds",
     "per tuple, gathered I/O's root walking the gathered lists for sizes (not given: nodes.tuple_cost_s)"},
    {"pvfs.io_servers", "servers", "PVFS I/O servers"},
    {"pvfs.stripe_size", "bytes", "PVFS strip size"},
    {"pvfs.disk_write_Bps", "bytes/s", "an I/O server's disk, sequential write"},
    {"pvfs.disk_read_Bps", "bytes/s", "an I/O server's disk, sequential read"},
    {"pvfs.disk_rpm", "rpm", "an I/O server's disk: spindle speed (0: a disk without position)"},
    {"pvfs.disk_seek_track_s", "seconds", "an I/O server's disk: track-to-track seek, settle included"},
    {"pvfs.disk_seek_full_s", "seconds", "an I/O server's disk: full-stroke seek"},
    {"pvfs.disk_capacity_bytes", "bytes", "an I/O server's disk: the span a full-stroke seek crosses"},
    {"pvfs.request_overhead_s", "seconds", "an I/O server's CPU time per request"},
    {"pvfs.metadata_overhead_s", "seconds", "the metadata server's CPU time per open or close"},
    {"pvfs.region_overhead_s", "seconds", "an I/O server's CPU time per region of a list request"},
    {"pvfs.client_region_overhead_s", "seconds", "the client's CPU time per region of a list request"},
    {"pvfs.flow_buffer", "bytes", "bytes a PVFS flow moves per step"},
    {"pvfs.max_outstanding", "requests", "requests a client keeps in flight"},
    {"pvfs.request_header", "bytes", "bytes of a request message besides its regions"},
    {"pvfs.region_descriptor", "bytes", "bytes per region of a list request"},
    {"pvfs.server_placement", "",
     "dedicated: servers on hosts of their own; compute-nodes: I/O server k on node k mod nodes and the "
     "metadata server on node 0, sharing their NICs, cores and loopback"},
    {"filesystem.close", "",
     "MPI_File_close: local, each rank closes alone; barrier, it waits for every rank first (ROMIO on "
     "UFS/NFS, "
     "OMPIO)"},
    {"nfs.commit", "", "sync: every WRITE is stable; async: UNSTABLE WRITEs and a COMMIT at close"},
    {"nfs.wsize", "bytes", "bytes per WRITE RPC"},
    {"nfs.rsize", "bytes", "bytes per READ RPC"},
    {"nfs.max_outstanding", "RPCs", "RPCs a client keeps in flight"},
    {"nfs.server_threads", "threads", "nfsd threads of the server"},
    {"nfs.rpc_overhead_s", "seconds", "the server's CPU time per RPC"},
    {"nfs.client_rpc_overhead_s", "seconds", "the client's CPU time per RPC"},
    {"nfs.rpc_header", "bytes", "bytes of an RPC besides its data"},
    {"nfs.disk_write_Bps", "bytes/s", "the NFS server's disk, sequential write"},
    {"nfs.disk_read_Bps", "bytes/s", "the NFS server's disk, sequential read"},
    {"nfs.disk_rpm", "rpm", "the NFS server's disk: spindle speed (0: a disk without position)"},
    {"nfs.disk_seek_track_s", "seconds", "the NFS server's disk: track-to-track seek, settle included"},
    {"nfs.disk_seek_full_s", "seconds", "the NFS server's disk: full-stroke seek"},
    {"nfs.disk_capacity_bytes", "bytes", "the NFS server's disk: the span a full-stroke seek crosses"},
    {"local.node", "", "the node whose own disk holds the file"},
    {"local.disk_write_Bps", "bytes/s", "a node's own disk, sequential write"},
    {"local.disk_read_Bps", "bytes/s", "a node's own disk, sequential read"},
    {"local.disk_rpm", "rpm", "a node's own disk: spindle speed (0: a disk without position)"},
    {"local.disk_seek_track_s", "seconds", "a node's own disk: track-to-track seek, settle included"},
    {"local.disk_seek_full_s", "seconds", "a node's own disk: full-stroke seek"},
    {"local.disk_capacity_bytes", "bytes", "a node's own disk: the span a full-stroke seek crosses"},
    {"local.request_overhead_s", "seconds", "CPU time of one system call on the node's disk"},
    {"local.region_overhead_s", "seconds", "CPU time of each further region of one list call"},
    {"local.open_overhead_s", "seconds",
     "a rank's time in a collective MPI_File_open: the MPI-IO library's set-up and the system call"},
    {"local.close_overhead_s", "seconds", "a rank's time in a collective MPI_File_close reached together"},
    {"local.new_pages_call_s", "seconds",
     "with a page cache: the extra time of a write call that adds pages to it (block reservation, page "
     "allocation), inside the inode lock"},
};
#undef CIOSIM_PAGE_CACHE_DOCS

/// Keys scenarios know by other names, or that are not values (network names).
bool settable(const Field& f) {
  const std::string dotted = std::string(f.table) + "." + std::string(f.key);
  return f.kind != Kind::Network && dotted != "nodes.count" && dotted != "nodes.cores_per_node" &&
         dotted != "nodes.cpu_cores" && dotted != "filesystem.kind";
}

const Field& field_of(const PlatformKey& k) {
  const Field* f = find_field(k.table, std::string_view(k.key).substr(k.table.size() + 1));
  if (!f) throw std::logic_error("platform key " + k.key + " has no field");
  return *f;
}

}  // namespace

const std::vector<PlatformKey>& platform_keys() {
  static const std::vector<PlatformKey> keys = [] {
    std::vector<PlatformKey> out;
    for (const auto& f : kFields) {
      if (!settable(f)) continue;
      PlatformKey k;
      k.table = std::string(f.table);
      k.key = k.table + "." + std::string(f.key);
      k.type = f.kind == Kind::Real    ? ParamType::Real
               : f.kind == Kind::Int   ? ParamType::Int
               : f.kind == Kind::Int64 ? ParamType::Size
                                       : ParamType::Enum;
      const auto doc = std::find_if(std::begin(kKeyDocs), std::end(kKeyDocs),
                                    [&](const KeyDoc& d) { return d.key == k.key; });
      if (doc == std::end(kKeyDocs)) throw std::logic_error("platform key " + k.key + " has no help");
      k.unit = std::string(doc->unit);
      k.help = std::string(doc->help);
      k.min = f.min;
      k.above_min = f.above_min;
      if (f.kind != Kind::Choice) k.max = physical_range(f).hi;
      if (f.key.ends_with("_Bps")) k.min = physical_range(f).lo, k.above_min = false;
      if (f.choices) k.choices = f.choices();
      if (f.stands_in) k.stands_in = f.stands_in;
      out.push_back(std::move(k));
    }
    return out;
  }();
  return keys;
}

bool describes_key(const PlatformSpec& p, const PlatformKey& k) {
  return describes(p, k.table);
}

Value platform_value(const PlatformSpec& p, const PlatformKey& k) {
  PlatformSpec copy = p;
  return std::visit(
      [](auto* v) -> Value {
        using T = std::remove_pointer_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          return *v;
        else if constexpr (std::is_same_v<T, double>)
          return *v;
        else
          return static_cast<std::int64_t>(*v);
      },
      field_of(k).ref(copy));
}

const PlatformKey& platform_key(const std::string& key) {
  for (const PlatformKey& k : platform_keys())
    if (k.key == key) return k;
  throw std::logic_error("no platform key " + key);
}

bool not_given(const Value& v) {
  const double* d = std::get_if<double>(&v);
  return d != nullptr && std::isnan(*d);
}

void set_platform_value(PlatformSpec& p, const PlatformKey& k, const Value& value) {
  std::visit(
      [&](auto* v) {
        using T = std::remove_pointer_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          *v = std::get<std::string>(value);
        else if constexpr (std::is_same_v<T, double>)
          *v = std::get<double>(value);
        else
          *v = static_cast<T>(std::get<std::int64_t>(value));
      },
      field_of(k).ref(p));
}

}  // namespace ciosim::config
