#include "config/workload.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <stdexcept>

#include "algorithms/common/bench_distributions.hpp"
#include "algorithms/common/distribution.hpp"
#include "config/capture_trace.hpp"
#include "config/input_files.hpp"
#include "config/metis_partition.hpp"

namespace ciosim {

namespace {

/// Reads a lists file: `ranks = [ [[off, len], ...], ... ]`, one array of [offset, length] tuples (in
/// entries of x, in the order the rank stores them) per rank.
std::vector<std::vector<Tuple>> read_lists(const std::string& path, int ranks) {
  if (path.empty()) throw std::invalid_argument("workload lists needs workload.file (a TOML file of tuples)");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw std::invalid_argument(config::not_a_file("workload.file", path));
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw std::invalid_argument("workload.file '" + path + "': " + std::string(e.description()));
  }
  for (auto&& [key, node] : t)
    if (key != "ranks")
      throw std::invalid_argument("workload.file '" + path + "': unknown key " + std::string(key.str()) +
                                  "; a lists file holds only `ranks` (one [[offset, length], ...] per rank)");
  const toml::array* arr = t["ranks"].as_array();
  if (!arr) throw std::invalid_argument("workload.file '" + path + "' has no array `ranks`");
  if (static_cast<int>(arr->size()) != ranks)
    throw std::invalid_argument("workload.file '" + path + "' lists " + std::to_string(arr->size()) +
                                " ranks but run.ranks = " + std::to_string(ranks));
  std::vector<std::vector<Tuple>> lists;
  for (std::size_t r = 0; r < arr->size(); ++r) {
    const toml::array* tuples = (*arr)[r].as_array();
    if (!tuples)
      throw std::invalid_argument("workload.file '" + path + "': ranks[" + std::to_string(r) +
                                  "] is not an array");
    auto& out = lists.emplace_back();
    for (const auto& node : *tuples) {
      const toml::array* pair = node.as_array();
      // Integers only: toml++ would also read 4.0 as 4.
      const bool ints = pair && pair->size() == 2 && (*pair)[0].is_integer() && (*pair)[1].is_integer();
      const auto off = ints ? (*pair)[0].value<std::int64_t>() : std::nullopt;
      const auto len = ints ? (*pair)[1].value<std::int64_t>() : std::nullopt;
      if (!off || !len || *off < 0 || *len <= 0)
        throw std::invalid_argument(
            "workload.file '" + path + "': ranks[" + std::to_string(r) +
            "] must hold [offset, length] pairs of integers (offset >= 0, length > 0)");
      if (*len > INT64_MAX - *off)
        throw std::invalid_argument("workload.file '" + path + "': ranks[" + std::to_string(r) + "] tuple [" +
                                    std::to_string(*off) + ", " + std::to_string(*len) +
                                    "] ends past the largest 64-bit offset, 9223372036854775807");
      out.push_back(Tuple{*off, *len});
    }
  }
  return lists;
}

/// A capture's file as a workload: every write call of each rank on the first file it opened (fh=1), its
/// regions in call order, in entries of `es` bytes; x is the file up to its last written byte.
Distribution from_capture(const std::string& dir, int ranks, std::int64_t es) {
  if (dir.empty())
    throw std::invalid_argument("workload trace needs workload.file (a capture folder of ciosim capture)");
  const config::CapturedTrace t = config::read_capture(dir);
  if (t.ranks != ranks)
    throw std::invalid_argument("the capture " + dir + " has " + std::to_string(t.ranks) +
                                " ranks but run.ranks = " + std::to_string(ranks) +
                                " (set run.ranks = " + std::to_string(t.ranks) + ")");
  // Each rank's written bytes on its first file, in call order; then in entries once their size fits.
  std::vector<std::vector<config::ByteRun>> written(static_cast<std::size_t>(ranks));
  std::int64_t end = 0, unit = 0;
  for (int r = 0; r < ranks; ++r)
    for (const config::CapturedCall& c : t.calls[static_cast<std::size_t>(r)]) {
      if (c.kind == "unsupported" && c.call.find("write") != std::string::npos)
        throw std::invalid_argument("rank " + std::to_string(r) + " made a write ciosim cannot replay (" +
                                    c.call + "); see docs/replay.md");
      if (c.fh != 1 || c.kind.rfind("write", 0) != 0) continue;
      for (const config::ByteRun& b : c.regions) {
        unit = std::gcd(unit, std::gcd(b.offset, b.length));
        end = std::max(end, b.offset + b.length);
        written[static_cast<std::size_t>(r)].push_back(b);
      }
    }
  if (end == 0)
    throw std::invalid_argument("the capture " + dir + " writes nothing to the first file its ranks open");
  if (unit % es != 0)
    throw std::invalid_argument(
        "the capture's write regions are not whole entries of workload.element_size = " + std::to_string(es) +
        " bytes; use an element size dividing " + std::to_string(unit));
  std::vector<std::vector<Tuple>> lists(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    auto& out = lists[static_cast<std::size_t>(r)];
    for (const config::ByteRun& b : written[static_cast<std::size_t>(r)]) {
      const Tuple tu{b.offset / es, b.length / es};
      if (!out.empty() && out.back().offset + out.back().length == tu.offset)
        out.back().length += tu.length;
      else
        out.push_back(tu);
    }
  }
  try {
    return from_lists(end / es, std::move(lists));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("the capture's writes cannot be replayed as one collective write: " +
                                std::string(e.what()));
  }
}

}  // namespace

const std::vector<Stem2Preset>& stem2_presets() {
  // Table 1 of Multiple-Phase Collective I/O (Singh et al., PDP 2007): Nx, Ny, Nz, Nl, Nph and the size in
  // MB of 4-byte reals (35.7, 71.4, 53.9: MiB).
  static const std::vector<Stem2Preset> list = {
      {"sl1", 61, 61, 15, 56, 3},  // "a real matrix extracted from simulation environments"
      {"sl2", 61, 61, 15, 56, 6},  // synthetic: twice SL1 along Nph
      {"sl3", 92, 61, 15, 56, 3},  // synthetic: 1.5 times SL1 along Nx
  };
  return list;
}

const Stem2Preset& stem2_preset(const std::string& name) {
  std::string valid;
  for (const auto& p : stem2_presets()) {
    if (p.name == name) return p;
    valid += (valid.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument("unknown workload.preset '" + name + "' (valid: " + valid + ")");
}

std::vector<std::string> kinds_using(const std::string& key) {
  if (key == "workload.bx") return {"block-cyclic"};
  if (key == "workload.seed") return {"irregular"};
  if (key == "workload.file") return {"lists", "trace"};
  if (key == "workload.replay") return {"trace"};
  if (key == "workload.ny" || key == "workload.nz") return {"block3d", "stem2"};
  if (key == "workload.nl" || key == "workload.nchem" || key == "workload.preset") return {"stem2"};
  if (key == "workload.partition" || key == "workload.graph" || key == "workload.load") return {"mesh"};
  if (key == "workload.class" || key == "workload.mflops") return {"btio"};
  if (key == "workload.tiles_x" || key == "workload.tiles_y" || key == "workload.tile_x" ||
      key == "workload.tile_y" || key == "workload.overlap_x" || key == "workload.overlap_y" ||
      key == "workload.header_bytes")
    return {"tile"};
  if (key == "workload.nx") {  // btio and tile derive the size of x from their own keys
    std::vector<std::string> out;
    for (const auto& w : workloads())
      if (!kind_sets_nx(w.name)) out.push_back(w.name);
    return out;
  }
  return {};
}

bool kind_sets_nx(const std::string& kind) {
  return kind == "btio" || kind == "tile" || kind == "trace";
}

double btio_compute_s(const WorkloadSpec& w, int ranks) {
  const BtioClass& c = btio_class(w.btio_class);
  if (ranks < 1 || w.mflops < 1)
    throw std::invalid_argument("btio_compute_s needs run.ranks >= 1 and workload.mflops >= 1");
  return kBtioWriteInterval * btio_step_flops(c.n) /
         (static_cast<double>(ranks) * 1e6 * static_cast<double>(w.mflops));
}

TileSpec tile_spec(const WorkloadSpec& w, int ranks) {
  if (w.tile_x < 1 || w.tile_y < 1)
    throw std::invalid_argument(
        "workload tile needs workload.tile_x and workload.tile_y >= 1 (elements per tile row, rows per "
        "tile; the view-based I/O paper runs 2048 x 1536)");
  if (w.header_bytes % w.element_size != 0)
    throw std::invalid_argument(
        "tile: workload.header_bytes = " + std::to_string(w.header_bytes) +
        " must be a multiple of workload.element_size = " + std::to_string(w.element_size));
  TileSpec t{
      w.tiles_x, w.tiles_y, w.tile_x, w.tile_y, w.overlap_x, w.overlap_y, w.header_bytes / w.element_size};
  if (t.tiles_x == 0 && t.tiles_y == 0) {
    const std::vector<int> dims = dims_create(ranks, 2);
    t.tiles_x = dims[0];
    t.tiles_y = dims[1];
  } else if (t.tiles_y == 0 || t.tiles_x == 0) {
    const std::int64_t given = t.tiles_x ? t.tiles_x : t.tiles_y;
    if (ranks % given != 0)
      throw std::invalid_argument("tile: run.ranks = " + std::to_string(ranks) + " is not a multiple of " +
                                  (t.tiles_x ? "workload.tiles_x = " : "workload.tiles_y = ") +
                                  std::to_string(given) + " (run.ranks = tiles_x * tiles_y)");
    (t.tiles_x ? t.tiles_y : t.tiles_x) = ranks / given;
  }
  return t;
}

std::vector<int> read_partition(const std::string& path, std::int64_t nodes, int ranks) {
  if (path.empty())
    throw std::invalid_argument("workload mesh needs workload.partition (a file of one owner rank per line)");
  // One owner rank per line for each of the `nodes` mesh nodes: a rank of at most 10 digits with its line
  // end and some blanks fits in 32 bytes a line.
  const std::uintmax_t bound = 32 * static_cast<std::uintmax_t>(std::max<std::int64_t>(nodes, 0)) + 4096;
  std::ifstream in = config::open_input(
      "workload.partition", path, bound, "a file of one owner rank per line",
      "bytes that " + std::to_string(nodes) +
          " lines of one rank each can take (workload.nx = " + std::to_string(nodes) + ")");
  std::vector<int> owner;
  std::string line;
  int top = -1;
  for (std::int64_t no = 1; std::getline(in, line); ++no) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    std::size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) {
      if (in.peek() == std::char_traits<char>::eof()) break;  // a trailing empty line
      throw std::invalid_argument("workload.partition '" + path + "' line " + std::to_string(no) +
                                  " is empty (expected one rank per mesh node)");
    }
    int r = -1;
    const char* first = line.data() + b;
    const char* last = line.data() + line.size();
    const auto [end, ec] = std::from_chars(first, last, r);
    if (ec != std::errc() || end != last || r < 0)
      throw std::invalid_argument("workload.partition '" + path + "' line " + std::to_string(no) + ": '" +
                                  line + "' is not a rank (a non-negative integer)");
    if (r >= ranks)
      throw std::invalid_argument("workload.partition '" + path + "' line " + std::to_string(no) +
                                  " assigns rank " + std::to_string(r) + " but run.ranks = " +
                                  std::to_string(ranks) + " (ranks 0.." + std::to_string(ranks - 1) + ")");
    top = std::max(top, r);
    owner.push_back(r);
  }
  if (static_cast<std::int64_t>(owner.size()) != nodes)
    throw std::invalid_argument("workload.partition '" + path + "' has " + std::to_string(owner.size()) +
                                " lines (mesh nodes) but workload.nx = " + std::to_string(nodes));
  if (top + 1 != ranks)
    throw std::invalid_argument("workload.partition '" + path + "' is a partition into " +
                                std::to_string(top + 1) + " parts (ranks 0.." + std::to_string(top) +
                                ") but run.ranks = " + std::to_string(ranks));
  return owner;
}

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> list = {
      {"block-cyclic",
       "1-D vector of Nx entries dealt to the ranks in blocks of Bx entries, round-robin (block b on rank "
       "b mod Np): the generic block-cyclic distribution of the IEC paper (Singh et al., J. Supercomputing "
       "2009, §3, Fig. 1)."},
      {"irregular",
       "1-D vector of Nx entries dealt to the ranks at random (seeded), each rank holding Nx/Np^2 entries of "
       "each of the Np file chunks: an arbitrary offset-length distribution as in the IEC paper's Fig. 11."},
      {"lists",
       "1-D vector of Nx entries distributed by explicit per-rank (offset, length) tuples read from "
       "workload.file (the IEC paper's Fig. 11); the tuples must partition [0, Nx)."},
      {"block3d",
       "3-D array of nx x ny x nz entries (C order, nx slowest) block-distributed over a process grid from "
       "MPI_Dims_create, as ROMIO's coll_perf does with MPI_Type_create_darray (block = ceil(n/p) per "
       "dimension; trailing ranks may hold less or nothing)."},
      {"stem2",
       "5-D Fortran (column-major) array SL(x, y, z, l, ph) of 4-byte reals of STEM-II (Singh et al., PDP "
       "2007, §4, Fig. 3): "
       "workload.nx, ny, nz, nl, nchem or workload.preset = sl1 | sl2 | sl3 (Table 1); the y rows are "
       "block-distributed over the ranks (the first Ny mod Np ranks hold one row more), the other "
       "dimensions are whole."},
      {"mesh",
       "The BIPS3D I/O kernel (Filgueira et al., VECPAR 2008): workload.nx mesh nodes, the owner rank of "
       "each "
       "read from workload.partition (one rank per line, METIS's asignacionP format) or computed with METIS "
       "from "
       "workload.graph, workload.load entries "
       "per node; the file is node-major and each rank writes its owned nodes, in order, through an indexed "
       "view of its maximal runs of consecutive nodes."},
      {"btio",
       "NAS BT-IO, full MPI-IO mode: one time step's solution (5 doubles per point of an n^3 grid, Fortran "
       "order) of workload.class over a square number of ranks in BT's multi-partition decomposition (each "
       "rank owns sqrt(Np) cells, one per z-slab, diagonally placed); workload.element_size = 8."},
      {"tile",
       "MPI-Tile-IO: a row-major 2-D array of workload.tiles_x x tiles_y tiles of tile_x x tile_y elements "
       "of workload.element_size bytes, rank r owning tile (r mod tiles_x, r div tiles_x), after "
       "workload.header_bytes of header (written by rank 0)."},
      {"trace",
       "A captured application's file (ciosim capture, docs/replay.md; workload.file = the capture folder): "
       "its ranks' calls on the first file they open, replayed one by one (workload.replay = calls: each "
       "collective call under the technique, independent calls as they were, the time between calls as "
       "computation) or its writes as one collective write (union); workload.element_size must divide "
       "every region."},
  };
  return list;
}

bool replays_calls(const WorkloadSpec& w) {
  return w.kind == "trace" && w.replay == "calls";
}

Distribution make_distribution(const WorkloadSpec& w, int ranks) {
  if (w.element_size <= 0) throw std::invalid_argument("workload.element_size must be positive");
  if (w.kind == "block-cyclic") return block_cyclic(w.nx, ranks, w.bx);
  if (w.kind == "irregular") return irregular(w.nx, ranks, w.seed);
  if (w.kind == "lists") return from_lists(w.nx, read_lists(w.file, ranks));
  if (w.kind == "block3d") return block3d(w.nx, w.ny, w.nz, ranks);
  if (w.kind == "stem2") {
    Distribution d = stem2(w.nx, w.ny, w.nz, w.nl, w.nchem, ranks);
    if (d.nx > INT64_MAX / w.element_size)
      throw std::invalid_argument(
          "stem2: nx*ny*nz*nl*nchem x workload.element_size = " + std::to_string(d.nx) + " x " +
          std::to_string(w.element_size) + " bytes overflows 64 bits");
    return d;
  }
  if (w.kind == "mesh") {
    if (w.partition.empty() == w.graph.empty())
      throw std::invalid_argument(
          "workload mesh needs exactly one of workload.partition (a partition file) and "
          "workload.graph (a METIS graph file to partition)");
    if (!w.graph.empty()) return mesh(metis_partition(read_metis_graph(w.graph, w.nx), ranks), ranks, w.load);
    return mesh(read_partition(w.partition, w.nx, ranks), ranks, w.load);
  }
  if (w.kind == "btio") {
    if (w.element_size != 8)
      throw std::invalid_argument("workload btio writes 8-byte doubles: set workload.element_size = 8 (got " +
                                  std::to_string(w.element_size) + ")");
    return btio(btio_class(w.btio_class).n, ranks);
  }
  if (w.kind == "tile") return tile(tile_spec(w, ranks), ranks);
  if (w.kind == "trace") {
    if (replays_calls(w))
      throw std::invalid_argument(
          "a trace replayed call by call (workload.replay = \"calls\") has a distribution per collective "
          "call, not one; set workload.replay = \"union\" for its file as one collective write");
    return from_capture(w.file, ranks, w.element_size);
  }
  std::string valid;
  for (const auto& k : workloads()) valid += (valid.empty() ? "" : ", ") + k.name;
  throw std::invalid_argument("unknown workload '" + w.kind + "' (valid: " + valid + ")");
}

}  // namespace ciosim
