#include "config/params.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>

#include "algorithms/common/bench_distributions.hpp"
#include "algorithms/technique.hpp"
#include "config/platform_file.hpp"
#include "config/profile_values.hpp"
#include "config/workload.hpp"
#include "models/filesystem/kinds.hpp"
#include "models/network/profiles.hpp"

namespace ciosim::config {

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::Int:
      return "int";
    case ParamType::Size:
      return "size";
    case ParamType::String:
      return "string";
    case ParamType::Enum:
      return "enum";
    case ParamType::Real:
      return "real";
  }
  return "?";
}

std::string value_text(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return format_double(*d);
  return std::get<std::string>(v);
}

std::string value_toml(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return toml_double(*d);
  return quote(std::get<std::string>(v));
}

std::string Param::default_text() const {
  if (default_value) return value_text(*default_value);
  if (platform_default) return "(platform's)";
  return "(required)";
}

namespace {

std::vector<std::string> technique_names() {
  std::vector<std::string> out;
  for (const auto& t : techniques()) out.push_back(t.name);
  return out;
}

std::vector<std::string> network_names() {
  std::vector<std::string> out;
  for (const auto& n : network_profiles()) out.push_back(n.name);
  return out;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> out;
  for (const auto& w : workloads()) out.push_back(w.name);
  return out;
}

std::vector<std::string> stem2_preset_names() {
  std::vector<std::string> out{"none"};
  for (const auto& p : stem2_presets()) out.push_back(p.name);
  return out;
}

std::vector<std::string> btio_class_names() {
  std::vector<std::string> out;
  for (const auto& c : btio_classes()) out.push_back(c.name);
  return out;
}

Param make(std::string key, ParamType type, std::string unit, std::optional<Value> def, std::string help) {
  Param p;
  p.key = std::move(key);
  p.type = type;
  p.unit = std::move(unit);
  p.default_value = std::move(def);
  p.help = std::move(help);
  return p;
}

Param ranged(Param p, std::int64_t min, std::int64_t max) {
  p.min = min;
  p.max = max;
  return p;
}

Param from_platform(Param p) {
  p.platform_default = true;
  return p;
}

Param with_choices(Param p, std::vector<std::string> choices) {
  p.choices = std::move(choices);
  return p;
}

}  // namespace

std::vector<Param> parameters(const std::vector<std::string>& platform_names) {
  using T = ParamType;
  const auto none = std::nullopt;
  std::vector<Param> out = {
      with_choices(make("run.algorithm", T::Enum, "", none, "collective I/O technique (`ciosim list`)"),
                   technique_names()),
      ranged(make("run.phases", T::Int, "phases", Value{std::int64_t{0}},
                  "multiple-phase: communication phases, 1..log2(run.ranks); 0 = all log2(run.ranks) (other "
                  "techniques ignore it)"),
             0, 30),
      ranged(make("run.ranks", T::Int, "ranks", none, "MPI processes, placed cores_per_node per node"), 1,
             INT_MAX),
      with_choices(make("run.platform", T::String, "", none,
                        "platform: the name of platforms/NAME.toml, or a path to a .toml file"),
                   platform_names),
      ranged(make("run.iterations", T::Int, "writes", Value{std::int64_t{1}},
                  "times the collective write is repeated (the inspector runs once); at most a million"),
             1, 1000000),
      make("run.sequence", T::String, "", Value{std::string("")},
           "operations on the open file, e.g. \"open (compute:workload write next)*40 close\": open, close, "
           "write, read, sync, next (one step further), view:BYTES, compute:SECONDS|workload, ( ... )*N; "
           "\"\" = open, run.iterations writes (or one read, run.access), close (docs/results.md)"),
      with_choices(
          make("run.access", T::Enum, "", Value{std::string("write")},
               "write: time the technique's write; read: the file is laid out beforehand (not timed) "
               "and the technique's read is timed and its bytes checked"),
          {"write", "read"}),
      with_choices(
          make("run.payload", T::Enum, "", Value{std::string("auto")},
               "bytes: buffers hold real bytes and the file is compared byte by byte; elided: buffers hold "
               "only which bytes of x they carry (SMPI's shared malloc, plus sources), copies cost nothing "
               "but their charged time, and the file is checked source by source; auto: elided from 1 GiB "
               "of data when the technique supports it and pieces average >= 4 KiB (docs/results.md)"),
          {"auto", "bytes", "elided"}),
      with_choices(
          make("run.cpu_charge", T::Enum, "", Value{std::string("implementation")},
               "CPU work where a paper's algorithm and this implementation differ: implementation charges "
               "the code that runs (IEC's inspector loops as they run, whose periodic lists follow streams "
               "not entries; the copy placing a rank's entries in IEC's and multiple-phase's buffers, "
               "phase place); paper charges the paper's algorithm (one tuple per list entry at each "
               "inspector step; the entries already in place), for reproducing its figures; library "
               "(two-phase only) charges the MPI library's own MPI_File_write_all/read_all: ROMIO's "
               "aggregators build a datatype over each piece of a round, at nodes.romio_piece_s each"),
          {"implementation", "paper", "library"}),
      with_choices(from_platform(make("network.mpi", T::Enum, "", none, "network profile of MPI traffic")),
                   network_names()),
      with_choices(
          from_platform(make("network.io", T::Enum, "", none, "network profile of the traffic to PVFS")),
          network_names()),
      with_choices(make("workload.kind", T::Enum, "", Value{std::string("block-cyclic")},
                        "how the entries of x are distributed over the ranks"),
                   workload_names()),
      make("workload.nx", T::Size, "entries", none,
           "entries of the global vector x (block3d: the slowest dimension; stem2: Nx, the fastest "
           "dimension; mesh: mesh nodes; a plain integer, sizes with units such as \"100MiB\" are not "
           "accepted)"),
      make("workload.bx", T::Size, "entries", Value{std::int64_t{1}},
           "block size of the block-cyclic distribution"),
      make("workload.ny", T::Size, "entries", Value{std::int64_t{1}},
           "block3d: entries along the middle dimension (workload.nx is the slowest, workload.nz the "
           "fastest); stem2: Ny, the y rows block-distributed over the ranks"),
      make("workload.nz", T::Size, "entries", Value{std::int64_t{1}},
           "block3d: entries along the fastest dimension; stem2: Nz"),
      make("workload.nl", T::Size, "species", Value{std::int64_t{1}},
           "stem2: Nl, the chemical species (4th Fortran dimension)"),
      make("workload.nchem", T::Size, "chemical phases", Value{std::int64_t{1}},
           "stem2: Nph, the chemical phases (liquid, gaseous, ...; 5th Fortran dimension), not run.phases"),
      with_choices(make("workload.preset", T::Enum, "", Value{std::string("none")},
                        "stem2: the extents of an array of the paper's Table 1 (instead of workload.nx, ny, "
                        "nz, nl, nchem)"),
                   stem2_preset_names()),
      ranged(make("workload.element_size", T::Size, "bytes", Value{std::int64_t{4}}, "bytes per entry of x"),
             1, std::int64_t{1} << 30),
      ranged(make("workload.seed", T::Size, "", Value{std::int64_t{1}},
                  "random seed of the irregular distribution"),
             0, INT64_MAX),
      make("workload.file", T::String, "", Value{std::string("")},
           "lists workload: a TOML file whose array `ranks` holds each rank's [offset, length] tuples of x; "
           "trace workload: a capture folder of ciosim capture (a path relative to the scenario file)"),
      with_choices(make("workload.replay", T::Enum, "", Value{std::string("calls")},
                        "trace workload: calls replays the application's calls one by one (collective calls "
                        "under the technique, independent calls as they were, the time between calls as "
                        "computation); union writes the file its writes make as one collective write"),
                   {"calls", "union"}),
      make("workload.partition", T::String, "", Value{std::string("")},
           "mesh workload: the partition file, one owner rank per mesh node and line (BIPS3D's asignacionP; "
           "a path relative to the scenario file); workload.nx is the number of mesh nodes"),
      make("workload.graph", T::String, "", Value{std::string("")},
           "mesh workload: a METIS graph file (`N M`, then each node's neighbours, 1-based) partitioned into "
           "run.ranks parts with METIS_PartGraphKway, instead of workload.partition"),
      ranged(make("workload.load", T::Size, "entries", Value{std::int64_t{1}},
                  "mesh workload: entries (floats with element_size 4) per mesh node, the kernel's load L"),
             1, std::int64_t{1} << 30),
      with_choices(make("workload.class", T::Enum, "", Value{std::string("B")},
                        "btio: the NAS problem class (grid 12^3, 24^3, 64^3, 102^3, 162^3; S is for tests)"),
                   btio_class_names()),
      ranged(make("workload.mflops", T::Int, "Mflop/s", Value{std::int64_t{640}},
                  "btio: sustained rate of one rank in BT's solver, which sets the compute time between "
                  "writes (estimate: 10% of a 3.2 GHz Xeon EM64T's 6.4 Gflop/s peak; "
                  "docs/workloads-benchmarks.md)"),
             1, INT_MAX),
      ranged(make("workload.tiles_x", T::Int, "tiles", Value{std::int64_t{0}},
                  "tile: tiles per row of the array (0 = from MPI_Dims_create(run.ranks, 2), or run.ranks / "
                  "tiles_y)"),
             0, INT_MAX),
      ranged(make("workload.tiles_y", T::Int, "tiles", Value{std::int64_t{0}},
                  "tile: rows of tiles (0 = run.ranks / tiles_x); run.ranks = tiles_x * tiles_y"),
             0, INT_MAX),
      ranged(make("workload.tile_x", T::Size, "elements", Value{std::int64_t{0}},
                  "tile: elements per row of a tile, the fastest dimension (required for tile)"),
             0, INT64_MAX),
      ranged(make("workload.tile_y", T::Size, "elements", Value{std::int64_t{0}},
                  "tile: rows of a tile (required for tile)"),
             0, INT64_MAX),
      ranged(make("workload.overlap_x", T::Size, "elements", Value{std::int64_t{0}},
                  "tile: elements neighbouring tiles share along x (only 0: shared entries would be written "
                  "twice)"),
             0, INT64_MAX),
      ranged(make("workload.overlap_y", T::Size, "elements", Value{std::int64_t{0}},
                  "tile: rows neighbouring tiles share along y (only 0)"),
             0, INT64_MAX),
      ranged(make("workload.header_bytes", T::Size, "bytes", Value{std::int64_t{0}},
                  "tile: bytes before the array in the file, written by rank 0 (a multiple of "
                  "workload.element_size)"),
             0, INT64_MAX),
      // The same bounds as the platform file's (config/platform_file.cpp): at most 2^20 nodes or cores.
      ranged(from_platform(make("platform.nodes", T::Int, "nodes", none, "compute nodes")), 1, 1 << 20),
      ranged(from_platform(make("platform.cores_per_node", T::Int, "cores", none,
                                "ranks placed per node (their CPU work shares platform.cpu_cores)")),
             1, 1 << 20),
      ranged(from_platform(make("platform.cpu_cores", T::Int, "cores", none,
                                "cores a node's ranks share for their CPU work")),
             1, 1 << 20),
      with_choices(from_platform(make("platform.filesystem", T::Enum, "", none,
                                      "file system model the ranks' file calls reach (the platform file must "
                                      "have its table: [pvfs], [nfs] or [local])")),
                   filesystem::kind_list()),
      // MPI-IO hints (ROMIO's defaults from its code: adio/common/ad_hints.c; docs/two-phase.md).
      ranged(
          make("hints.cb_buffer_size", T::Size, "bytes", Value{std::int64_t{16777216}},
               "collective buffer of a two-phase aggregator per round, and gathered's chunk (ROMIO default "
               "16 MiB, ad_hints.c)"),
          1, INT_MAX),
      ranged(make("hints.cb_nodes", T::Int, "aggregators", Value{std::int64_t{0}},
                  "two-phase aggregators wanted; 0 = unset (ROMIO: nprocs, then as many as cb_config_list "
                  "yields: one per host by default)"),
             0, INT_MAX),
      make("hints.cb_config_list", T::String, "", Value{std::string("*:1")},
           "which ranks aggregate, ROMIO's grammar host[:n],... (default \"*:1\": the lowest rank of each "
           "host)"),
      with_choices(
          make("hints.romio_cb_write", T::Enum, "", Value{std::string("automatic")},
               "two-phase write: automatic = only if the ranks' accesses interleave (ROMIO default); "
               "disable = independent (contiguous write or list I/O)"),
          {"automatic", "enable", "disable"}),
      with_choices(make("hints.romio_cb_read", T::Enum, "", Value{std::string("automatic")},
                        "two-phase read: as hints.romio_cb_write"),
                   {"automatic", "enable", "disable"}),
      ranged(
          make("hints.striping_unit", T::Size, "bytes", Value{std::int64_t{0}},
               "aligns two-phase file domains to multiples of it (0 = unset, ROMIO's default; not in 2007)"),
          0, INT64_MAX),
      with_choices(
          make("hints.romio_version", T::Enum, "", Value{std::string("modern")},
               "two-phase call structure: modern (MPICH >= 3.3: one offset/length message per peer) or "
               "2007 (MPICH2 1.0.x: two messages, no stripe alignment)"),
          {"modern", "2007"}),
      ranged(make("hints.listio_batch", T::Int, "regions", Value{std::int64_t{64}},
                  "regions per list-I/O request (ROMIO ad_pvfs2 MAX_ARRAY_SIZE = 64)"),
             1, INT_MAX),
      with_choices(
          make("hints.lap", T::Enum, "", Value{std::string("none")},
               "two-phase write: choose the aggregators by the LAP assignment of file intervals to hosts "
               "(Filgueira et al., VECPAR 2008) before each write: acn = most contiguous pieces, avn = most "
               "data; none = cb_config_list as given"),
          {"none", "acn", "avn"}),
      // View-based collective I/O (García Blas, Isaila, Singh, Carretero, CCGrid 2008, §IV-V).
      ranged(make("hints.vb_buffer_size", T::Size, "bytes", Value{std::int64_t{0}},
                  "view-based: file block = collective buffer, blocks owned round-robin by the aggregators "
                  "(0 = hints.cb_buffer_size, the paper's default; its runs use 4 MiB, BTIO 1 MiB)"),
             0, INT_MAX),
      ranged(make("hints.vb_pool_size", T::Size, "bytes", Value{std::int64_t{67108864}},
                  "view-based: an aggregator's pool of cached collective buffers, LRU (paper: 64 MiB)"),
             1, INT64_MAX),
      ranged(make("hints.vb_aggregators", T::Int, "aggregators", Value{std::int64_t{0}},
                  "view-based aggregators, spread evenly over the ranks; 0 = every rank (the paper's runs)"),
             0, INT_MAX),
      ranged(make("hints.vb_network_buffer", T::Size, "bytes", Value{std::int64_t{4194304}},
                  "view-based: a rank's network buffer; its pieces for one aggregator are coalesced into "
                  "messages of at most this many bytes (paper: 4 MiB)"),
             1, INT_MAX),
  };
  // Every network-profile value of the MPI and the I/O network, after network.io.
  auto at = std::find_if(out.begin(), out.end(), [](const Param& p) { return p.key == "network.io"; }) + 1;
  for (const char* role : {"mpi", "io"})
    for (const auto& f : profile_values()) {
      Param p = from_platform(make(std::string("network.") + role + "_" + f.field, f.type, f.unit, none,
                                   std::string("the ") + role + " network profile's " + f.help));
      p.real_min = 0;
      p.real_above_min = f.above_zero;
      p.min = 0;
      // The profile's physical range (config/profile_values.hpp: 1 kB/s to 10 TB/s, costs up to a minute).
      if (p.type == T::Real) {
        const PhysicalRange r = physical_range(f);
        p.real_max = r.hi;
        if (r.lo > 0) p.real_min = r.lo, p.real_above_min = false;
      }
      at = out.insert(at, std::move(p)) + 1;
    }
  // Every platform value, where pvfs.io_servers and pvfs.stripe_size have always been (the sweep order).
  at = std::find_if(out.begin(), out.end(), [](const Param& p) { return p.key == "platform.nodes"; });
  for (const auto& k : platform_keys()) {
    Param p = from_platform(
        make(k.key, k.type, k.unit, none,
             k.help + " (the platform file's [" + k.table + "] " + k.key.substr(k.table.size() + 1) + ")"));
    p.min = static_cast<std::int64_t>(k.min) + (k.above_min ? 1 : 0);
    p.max = static_cast<std::int64_t>(k.max);
    p.real_min = k.min;
    p.real_max = k.max;
    p.real_above_min = k.above_min;
    p.choices = k.choices;
    at = out.insert(at, std::move(p)) + 1;
  }
  return out;
}

const Param* find_param(const std::vector<Param>& params, std::string_view key) {
  for (const auto& p : params)
    if (p.key == key) return &p;
  return nullptr;
}

const Param& param(const std::vector<Param>& params, std::string_view key) {
  if (const Param* p = find_param(params, key)) return *p;
  std::vector<std::string> keys;
  for (const auto& p : params) keys.push_back(p.key);
  throw ConfigError("unknown parameter '" + std::string(key) + "'; valid parameters: " + join(keys));
}

bool is_platform_path(std::string_view value) {
  // A .xml name is a path too: loading it says it is XML (a SimGrid platform given by mistake).
  return value.find('/') != std::string_view::npos || value.ends_with(".toml") || value.ends_with(".xml");
}

void check_value(const Param& p, const Value& v) {
  const std::string unit = p.unit.empty() ? "" : " (" + p.unit + ")";
  if (p.type == ParamType::Real) {
    const auto* d = std::get_if<double>(&v);
    if (!d) throw ConfigError(p.key + " must be a number" + unit + ", got " + value_toml(v));
    if (!std::isfinite(*d) || *d < p.real_min || (p.real_above_min && *d == p.real_min))
      throw ConfigError(p.key + " must be a finite number " + (p.real_above_min ? "> " : ">= ") +
                        format_double(p.real_min) + unit + ", got " + value_toml(v));
    if (*d > p.real_max)
      throw ConfigError(p.key + " must be <= " + format_double(p.real_max) + unit + ", got " + value_toml(v));
    return;
  }
  if (p.numeric()) {
    const auto* i = std::get_if<std::int64_t>(&v);
    const auto* text = std::get_if<std::string>(&v);
    const std::size_t sign = text && !text->empty() && ((*text)[0] == '-' || (*text)[0] == '+') ? 1 : 0;
    const bool digits =
        text && text->size() > sign && text->find_first_not_of("0123456789", sign) == std::string::npos;
    if (digits)  // an integer TOML could not hold: name it as written
      throw ConfigError(p.key + " = " + *text + " is out of range: integers are 64-bit, at most " +
                        std::to_string(INT64_MAX));
    if (!i)
      throw ConfigError(p.key + " must be an integer" + unit + ", got " + value_toml(v) +
                        (p.type == ParamType::Size ? "; sizes with units are not accepted" : ""));
    if (*i < p.min || *i > p.max) {
      std::string range = p.max == INT64_MAX || (p.type == ParamType::Int && p.max == INT_MAX)
                              ? ">= " + std::to_string(p.min)
                              : "in [" + std::to_string(p.min) + ", " + std::to_string(p.max) + "]";
      throw ConfigError(p.key + " must be " + range + unit + ", got " + std::to_string(*i));
    }
    return;
  }
  const auto* s = std::get_if<std::string>(&v);
  if (!s) throw ConfigError(p.key + " must be a string, got " + value_toml(v));
  if (p.type == ParamType::Enum) {
    for (const auto& c : p.choices)
      if (c == *s) return;
    throw ConfigError("unknown " + p.key + " " + quote(*s) + "; valid choices: " + join(p.choices));
  }
  if (p.key == "run.platform" && !is_platform_path(*s)) {
    for (const auto& c : p.choices)
      if (c == *s) return;
    throw ConfigError("unknown platform " + quote(*s) + " for run.platform; available platforms: " +
                      (p.choices.empty() ? std::string("(none found)") : join(p.choices)) +
                      "; or give a path to a .toml file");
  }
  // Empty is refused, unless empty is the key's own default ("" meaning "not given", e.g. run.sequence).
  const auto* def = p.default_value ? std::get_if<std::string>(&*p.default_value) : nullptr;
  if (s->empty() && !(def && def->empty())) throw ConfigError(p.key + " must not be empty");
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string toml_key(std::string_view key) {
  bool bare = !key.empty();
  for (char c : key)
    bare = bare && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-');
  return bare ? std::string(key) : quote(key);
}

std::string toml_double(double v) {
  std::string s = format_double(v);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return std::string(buf, end);
}

}  // namespace ciosim::config
