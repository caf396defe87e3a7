#include "config/resources.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "algorithms/common/bench_distributions.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/iec/iec.hpp"
#include "algorithms/sequence.hpp"
#include "algorithms/technique.hpp"
#include "config/params.hpp"

namespace ciosim::config {
namespace {

// Measured on the 2-core VM of docs/benchmarks.md (RelWithDebInfo, 2026-11-23, GNU time's maximum
// resident size of the point's process; "Memory of a point"):
constexpr double kBaseBytes = 32.0 * 1024 * 1024;  ///< quickstart point of 4 MiB: 30-35 MiB
constexpr double kPerRank = 6.6 * 1024;            ///< 256 -> 1024 ranks of block: +4.9 MiB
constexpr double kPerNode = 3.3 * 1024;            ///< 4096 -> 65,536 nodes: +196 MiB
constexpr double kPerTuple = 48;  ///< bytes per expanded offset-length tuple: the distribution's and a copy
/// Two-phase with every rank's entries stored in file order (a contiguous user buffer): ROMIO's lists hold
/// each piece once (docs/two-phase.md, "Host memory"). (Peak - the other terms) / pieces at the compare
/// study's Bx = 1 points, 2026-11-27: 18.5 B elided and 22.2 B with bytes at 100 MiB (26,214,400 pieces),
/// 17.2 B and 19.4 B at 500 MiB; the largest, rounded up.
constexpr double kTwoPhasePerPiece = 23;
/// Resident bytes per rank and butterfly phase of IEC's exchanges (its messages' SimGrid state, mailboxes
/// and the plan's datatypes), what an elided run keeps beyond the terms above: measured with iec-parametric
/// elided at Nx = Np^2 (docs/history/benchmarks-log.md, 2026-11-27 third session), (peak - base - per rank -
/// per node) / (Np Nph) = 2.06 KiB on 4096 ranks (171 MiB) and 2.00 KiB on 16,384 (641 MiB); the larger,
/// rounded up.
constexpr double kPerRankPhase = 2.1 * 1024;
/// Resident bytes per byte of the file: 64 -> 256 MiB files on 4 ranks (Bx = 64): block +465 MiB (2.4x),
/// two-phase +468 MiB (2.4x), IEC +1299 MiB (6.8x: the inspector's buffers and the executor's exchanges).
/// IEC's grows with its phases: every rank's executor buffer holds Nx/Np + Nph Nx/(2 Np) entries (eq. 2), so
/// all of them (1 + Nph/2) x the file, beside the file store, the verification copy, the ranks' data, the
/// packed chunks (1x each) and a phase's send staging (0.5x): 5.5 + Nph/2, at least the 7 measured on 4
/// ranks. Measured on a 256 MiB file (Bx = 1, 2026-11-27): 1804, 2341 and 2633 MiB on 16, 256 and 1024
/// ranks (Nph 4, 8, 10), i.e. 6.9, 9.0 and 10.0 x over the base.
/// Multiple-phase keeps the whole array on every rank (docs/multiple-phase.md), so its bytes grow as
/// Np + 4 files (the Np copies, then one each for the file store, the verification copy, the ranks' data,
/// and a phase's staging and receive buffers together). Measured with Bx = 1 (2026-11-27): 7.2 x a 64 MiB
/// file on 4 ranks, 19.6 x on 16, and 61.7, 256 and 1041 x a 4 MiB file on 64, 256 and 1024 ranks, over the
/// base.
double payload_factor(const std::string& technique, int ranks) {
  if (technique == "iec" || technique == "iec-parametric")
    return std::max(7.0, 5.5 + 0.5 * std::ceil(std::log2(std::max(ranks, 1))));
  if (technique == "multiple-phase") return std::max(ranks, 1) + 4.0;
  return 2.5;
}

/// The elided pieces a point holds: `factor` copies of the ranks' data's pieces. Multiple-phase's copies of
/// the array gather every rank's entries, which at fine distributions no longer join: about one piece per
/// entry of the array across the ranks (measured at 16 ranks, Bx = 1, 64 MiB elided: 1275 MiB over the base
/// for 16.8 M entries, 80 B an entry), besides its four other copies.
double elided_payload(const RunSpec& spec, const WorkloadSize& size, double factor) {
  if (spec.algorithm == "multiple-phase") return kBytesPerPiece * (size.entries + 4 * size.pieces);
  return factor * kBytesPerPiece * size.pieces;
}

/// The bytes a sequence's file spans (its last step's end) when one step is `step` bytes; `step` without a
/// sequence, or for a sequence the point's own checks refuse.
double sequence_extent(const std::string& sequence, double step) {
  if (sequence.empty() || step <= 0 || step > 1e15) return step;
  try {
    double last = 0;
    for (const StepAccess& a : sequence_accesses(parse_sequence(sequence), static_cast<Offset>(step)))
      last = std::max(last, static_cast<double>(a.position));
    return last + step;
  } catch (const std::invalid_argument&) {
    return step;
  }
}

/// SimGrid's stack size in bytes when `cfg` (CIOSIM_SIMGRID_CFG) turns guard pages off, else 0. Without
/// guard pages SimGrid takes each actor's stack from the heap, where it stays resident whole once used;
/// with them a stack is a map of its own whose untouched pages cost nothing (the per-rank terms above,
/// measured with SimGrid's defaults, hold what ranks touch).
double heap_stack_bytes(const std::string& cfg) {
  if (!guard_pages_off(cfg)) return 0;
  double kib = 8192;  // SimGrid 3.32's default contexts/stack-size (KiB)
  for (const std::string& item : simgrid_cfg_items(cfg))
    if (item.rfind("contexts/stack-size:", 0) == 0) {
      try {
        kib = std::stod(item.substr(20));
      } catch (const std::exception&) {  // SimGrid itself refuses it when the run starts
      }
    }
  return kib * 1024;
}

/// The actors a point may hold at once without guard pages: its ranks and, at the file system's servers,
/// one request actor for each request that waits there at once. A rank has at most one request per server
/// in flight (each call returns when all its parts have), and a rank writing its share of the file in one
/// call touches min(servers, strips of its share) of them: an upper bound when every rank writes at once
/// (IEC's executor at scale). Measured with 16 KiB stacks (docs/history/benchmarks-log.md, 2026-11-27 fourth
/// and fifth sessions): iec-parametric on 16,384 ranks 864 MiB (about 27,000 actors at the peak, 55,035 maps
/// with guard pages; this bound: 32,768), on 65,536 ranks 6.6 GiB (bound: 327,680 actors, 5 GiB).
double heap_stack_actors(const RunSpec& spec, double file) {
  const double ranks = std::max(spec.ranks, 1);
  double per_rank = 1;  // NFS: one server; local disks: a helper per rank at most
  if (spec.platform.filesystem == "pvfs" && spec.platform.pvfs.stripe_size > 0) {
    const double strips = std::ceil(file / ranks / static_cast<double>(spec.platform.pvfs.stripe_size));
    per_rank = std::clamp(strips, 1.0, static_cast<double>(std::max(spec.platform.pvfs.io_servers, 1)));
  }
  return ranks * (1 + per_rank);
}

/// The offset-length tuples the technique keeps in lists, of the `tuples` its distribution has. IEC's
/// inspector holds a block-cyclic list as one period's runs while its replica count halves at every phase
/// (iec::block_cyclic_stays_periodic), and its plans and bundles hold their datatypes as strided segments
/// (StridedDatatype, O(log Np) per rank). What is left is the list of the last phases (about Np/2 runs per
/// rank when Nx = Np^2, freed before the executor's buffers fill): measured (peak - the other terms) / 48 B
/// = 0.17, 0.07, 0.06 and 0.04 Np^2 tuples at Np = 1024, 4096, 8192 and 16,384 with Nx = Np^2
/// (docs/history/benchmarks-log.md, 2026-11-27), counted as Np/4 per rank. Otherwise the list is unrolled:
/// one per block again. iec-parametric keeps no list: its plans are strided segments, and while a rank
/// computes its packing datatype it holds the chunk's Nx/Np positions (8 B each, one rank at a time), counted
/// here as tuples of kPerTuple bytes.
double listed_tuples(const RunSpec& spec, double tuples) {
  const WorkloadSpec& w = spec.workload;
  if (spec.algorithm == "iec-parametric")
    return std::min(tuples, static_cast<double>(w.nx) / std::max(spec.ranks, 1) * 8 / kPerTuple);
  if (spec.algorithm != "iec" || w.kind != "block-cyclic" ||
      !iec::block_cyclic_stays_periodic(w.nx, spec.ranks, w.bx))
    return tuples;
  const auto np = static_cast<double>(spec.ranks);
  return std::min(tuples, 0.25 * np * np);
}

/// True when the datatype's entries, taken in storage order, ascend in the file without overlapping (a
/// contiguous user buffer: ROMIO's flattening needs no memory offsets). One replica is enough when the
/// replicas step forward by at least their span.
bool file_ordered(const Datatype& dt) {
  std::int64_t first = 0;
  std::int64_t end = std::numeric_limits<std::int64_t>::min();
  bool any = false;
  for (const Tuple& t : dt.tuples) {
    if (t.length <= 0) continue;
    if (t.offset < end) return false;
    if (!any) first = t.offset;
    any = true;
    end = t.offset + t.length;
  }
  return !any || dt.count <= 1 || end - first <= dt.stride;
}

/// The pieces payload::append makes of a rank's entries: one replica's tuples joined, times the replicas;
/// a replica that is one run joins with the others into one strided piece.
double elided_pieces(const Datatype& dt) {
  std::vector<payload::Piece> one;
  for (const Tuple& t : dt.tuples) payload::append(one, payload::Piece{t.length, t.offset});
  const auto replicas = static_cast<double>(std::max<std::int64_t>(dt.count, 1));
  if (one.size() == 1 && !one.front().strided()) return 1;
  return static_cast<double>(one.size()) * replicas;
}

}  // namespace

WorkloadSize distribution_size(const Distribution& d) {
  WorkloadSize size{static_cast<double>(d.nx), 0, 0, true};
  for (const Datatype& dt : d.per_rank) {
    size.tuples +=
        static_cast<double>(dt.tuples.size()) * static_cast<double>(std::max<std::int64_t>(dt.count, 1));
    size.pieces += elided_pieces(dt);
    if (!file_ordered(dt)) size.out_of_order = true;
  }
  return size;
}

bool auto_chooses_elided(const RunSpec& spec, const WorkloadSize& size) {
  if (spec.payload != PayloadChoice::Auto || !spec.export_file.empty() || !size.exact) return false;
  try {
    const TechniqueInfo& t = technique(spec.algorithm);
    return why_not_elided(t, !spec.sequence.empty()).empty() &&
           auto_elided(size.entries * static_cast<double>(spec.workload.element_size), size.tuples,
                       t.array_per_rank ? spec.ranks : 1, t.whole_streams && size.pieces <= spec.ranks);
  } catch (const std::invalid_argument&) {  // an unknown technique: refused with its own message
    return false;
  }
}

MemoryEstimate estimate_memory(const RunSpec& spec, const Distribution& d) {
  return estimate_memory(spec, distribution_size(d));
}

MemoryEstimate estimate_memory(const RunSpec& spec, const WorkloadSize& size) {
  const double file = size.entries * static_cast<double>(spec.workload.element_size);
  const double tuples = size.tuples;
  // Elided payloads (run.payload): the same copies of the data, each its pieces instead of its bytes. A
  // kind whose tuples come with its distribution is estimated as bytes until they are known.
  const bool elided = spec.payload == PayloadChoice::Elided || auto_chooses_elided(spec, size);
  const double factor = payload_factor(spec.algorithm, spec.ranks);
  const double payload =
      elided ? elided_payload(spec, size, factor) : factor * file;  // doubles: no wrap-around
  const double per_tuple =
      spec.algorithm == "two-phase" && size.exact && !size.out_of_order ? kTwoPhasePerPiece : kPerTuple;
  const double lists = per_tuple * listed_tuples(spec, tuples);
  // An operation sequence keeps every step it writes in the file store (one step is counted above), and
  // view-based I/O's pools hold real bytes: up to hints.vb_pool_size per aggregator, at most the file.
  const double extent = sequence_extent(spec.sequence, file);
  const double steps = extent - file;
  double pools = 0;
  if (spec.algorithm == "view-based") {
    const int aggs =
        spec.hints.vb_aggregators > 0 ? std::min(spec.hints.vb_aggregators, spec.ranks) : spec.ranks;
    pools = std::min(static_cast<double>(spec.hints.vb_pool_size) * aggs, extent);
  }
  // iec's own term is in its lists (listed_tuples, fitted to peaks that include its exchanges).
  const double exchanges = spec.algorithm == "iec-parametric"
                               ? kPerRankPhase * spec.ranks * std::ceil(std::log2(std::max(spec.ranks, 1)))
                               : 0;
  const double stack = heap_stack_bytes(simgrid_cfg());
  const double stack_actors = stack > 0 ? heap_stack_actors(spec, file) : 0;
  const double stacks = stack * stack_actors;
  const double total = kBaseBytes + kPerRank * spec.ranks + kPerNode * spec.platform.nodes + payload + lists +
                       steps + pools + exchanges + stacks;
  MemoryEstimate e;
  e.bytes = total >= 9.2e18 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(total);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", factor);
  e.detail = format_bytes(e.bytes) + ": " + buf + " x the " +
             format_bytes(static_cast<std::int64_t>(std::min(file, 9.2e18))) +
             " file (file store, verification copy, ranks' data, " + spec.algorithm + "'s buffers)";
  if (elided && spec.algorithm == "multiple-phase")
    e.detail = format_bytes(e.bytes) + ": " +
               format_bytes(static_cast<std::int64_t>(std::min(payload, 9.2e18))) +
               " of elided pieces (about one per entry in the ranks' copies of the array)";
  else if (elided)
    e.detail = format_bytes(e.bytes) + ": " + buf + " x " +
               format_bytes(static_cast<std::int64_t>(std::min(kBytesPerPiece * size.pieces, 9.2e18))) +
               " of elided pieces (file store, ranks' data, " + spec.algorithm + "'s buffers)";
  if (steps > 0)
    e.detail += " + " + format_bytes(static_cast<std::int64_t>(std::min(steps, 9.2e18))) +
                " of the sequence's other steps";
  if (pools > 0)
    e.detail += " + " + format_bytes(static_cast<std::int64_t>(std::min(pools, 9.2e18))) +
                " of view-based's cached buffers";
  if (lists >= 0.1 * total)
    e.detail +=
        " + " + format_bytes(static_cast<std::int64_t>(std::min(lists, 9.2e18))) + " of offset-length tuples";
  if (exchanges >= 0.1 * total)
    e.detail += " + " + format_bytes(static_cast<std::int64_t>(exchanges)) + " for the exchanges of " +
                std::to_string(spec.ranks) + " ranks";
  if (stacks >= 0.1 * total)
    e.detail += " + " + format_bytes(static_cast<std::int64_t>(std::min(stacks, 9.2e18))) +
                " of SimGrid stacks from the heap (contexts/guard-size:0: " +
                std::to_string(static_cast<long long>(stack_actors)) + " actors at most, " +
                format_bytes(static_cast<std::int64_t>(stack)) + " each)";
  if (kPerNode * spec.platform.nodes >= 0.1 * total)
    e.detail += " + " + format_bytes(static_cast<std::int64_t>(kPerNode * spec.platform.nodes)) + " for " +
                std::to_string(spec.platform.nodes) + " nodes";
  return e;
}

WorkloadSize workload_size(const WorkloadSpec& w, int ranks) {
  const auto d = [](std::int64_t x) { return static_cast<double>(std::max<std::int64_t>(x, 0)); };
  const double np = std::max(ranks, 1);
  WorkloadSize s;
  s.exact = true;
  if (w.kind == "block-cyclic") {
    s.entries = d(w.nx);
    s.tuples = s.entries / std::max(d(w.bx), 1.0);  // one tuple per block
    s.pieces = std::min(np, s.tuples);              // a rank's blocks: one strided piece
  } else if (w.kind == "block3d") {
    s.entries = d(w.nx) * d(w.ny) * d(w.nz);
    // Per rank one tuple per row of its block (rows along z split), or per plane, or one (block3d()).
    const std::vector<int> dims = dims_create(std::max(ranks, 1), 3);
    s.tuples = dims[2] > 1 ? d(w.nx) * d(w.ny) * dims[2] : dims[1] > 1 ? d(w.nx) * dims[1] : np;
  } else if (w.kind == "stem2") {
    s.entries = d(w.nx) * d(w.ny) * d(w.nz) * d(w.nl) * d(w.nchem);
    s.tuples = std::min(np, d(w.ny)) * d(w.nz) * d(w.nl) * d(w.nchem);  // a tuple per (z, l, ph) and rank
  } else if (w.kind == "btio") {
    double n = 0;
    try {
      n = d(btio_class(w.btio_class).n);
    } catch (const std::invalid_argument&) {  // an unknown class: refused with the distribution
    }
    s.entries = kBtioVariables * n * n * n;
    s.tuples = n * n * std::sqrt(np);  // a tuple per x-row of each of a rank's sqrt(Np) cells
  } else if (w.kind == "tile") {
    const double header = d(w.header_bytes) / d(std::max<std::int64_t>(w.element_size, 1));
    s.entries = header + np * d(w.tile_x) * d(w.tile_y);  // run.ranks tiles
    s.tuples = np * d(w.tile_y) + 1;                      // a tuple per tile row, and the header
  } else {
    // irregular, lists, mesh: the tuples come with the distribution; the entries are known now.
    s.exact = false;
    s.entries = w.kind == "mesh" ? d(w.nx) * d(w.load) : d(w.nx);
  }
  if (w.kind != "block-cyclic") s.pieces = s.tuples;  // rows or tiles, not counted as joined: at most this
  return s;
}

MemoryLimit memory_limit(const std::string& max_memory, int jobs) {
  MemoryLimit m;
  m.maps = max_memory_maps();  // per process: each point runs in its own
  const bool given = !max_memory.empty();
  // What the -j points at once share: --max-memory, else the machine's memory; the control group's limit
  // when smaller (it kills the group past it). Then each point alone: the address-space limit.
  std::int64_t total = given ? parse_size(max_memory, "--max-memory") : physical_memory();
  std::string what = given ? "--max-memory " + format_bytes(total) : "this machine's " + format_bytes(total);
  std::string group_file;
  const std::int64_t group = cgroup_memory_limit("/proc/self/cgroup", "/sys/fs/cgroup", &group_file);
  const bool group_binds = group > 0 && (total <= 0 || group < total);
  if (group_binds) {
    total = group;
    what = "this control group's memory limit (" + group_file + ") " + format_bytes(group);
  }
  jobs = std::max(jobs, 1);
  if (total > 0) {
    m.bytes = total / jobs;
    m.what = what + (jobs > 1 ? " / -j " + std::to_string(jobs) + " = " + format_bytes(m.bytes) : "");
  }
  const std::int64_t as = address_space_limit();
  if (as > 0 && (m.bytes <= 0 || as < m.bytes)) {
    m.bytes = as;
    m.what = "this process's address-space limit (ulimit -v) " + format_bytes(as);
    m.advice = ", or raise the limit (ulimit -v; a batch job's memory request)";
    return m;
  }
  if (m.bytes <= 0) return m;  // nothing known and no limit given
  // --max-memory cannot raise a control group's limit: past it the group's processes are killed.
  m.advice = std::string(jobs > 1 ? ", lower -j" : "") +
             (group_binds ? ", or run it in a control group with more memory (a batch job's memory request)"
              : given     ? ", or raise --max-memory"
                          : ", or give --max-memory if the estimate is too high");
  return m;
}

std::int64_t address_space_limit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 0;
  return r.rlim_cur > static_cast<rlim_t>(std::numeric_limits<std::int64_t>::max())
             ? 0
             : static_cast<std::int64_t>(r.rlim_cur);
}

std::int64_t cgroup_memory_limit(const std::string& proc_cgroup, const std::string& cgroup_root,
                                 std::string* which) {
  namespace fs = std::filesystem;
  // A limit file's number; "max" (v2) and v1's "no limit" (a page-rounded LONG_MAX) are none.
  const auto read_limit = [](const fs::path& file) -> std::int64_t {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return 0;
    std::ifstream in(file);
    std::string text;
    if (!(in >> text) || text == "max") return 0;
    char* end = nullptr;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || v <= 0 || v >= (1LL << 62)) return 0;
    return v;
  };
  std::ifstream in(proc_cgroup);
  std::string line;
  std::int64_t best = 0;
  const auto take = [&](std::int64_t v, const char* file) {
    if (v > 0 && (best == 0 || v < best)) {
      best = v;
      if (which) *which = file;
    }
  };
  while (std::getline(in, line)) {
    // "0::/path" (v2), "N:memory:/path" or "N:...,memory,...:/path" (v1).
    const auto a = line.find(':'), b = line.find(':', a == std::string::npos ? 0 : a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const fs::path path = fs::path(line.substr(b + 1)).relative_path();
    const bool v2 = controllers.empty();
    const bool v1 = ("," + controllers + ",").find(",memory,") != std::string::npos;
    if (!v2 && !v1) continue;
    const fs::path base = v2 ? fs::path(cgroup_root) : fs::path(cgroup_root) / "memory";
    const char* file = v2 ? "memory.max" : "memory.limit_in_bytes";
    // The group and every group above it: the smallest limit binds.
    for (fs::path p = path;; p = p.parent_path()) {
      take(read_limit(base / p / file), file);
      if (p.empty()) break;
    }
  }
  return best;
}

std::string memory_refusal(const MemoryEstimate& e, const MemoryLimit& limit) {
  if (limit.bytes <= 0 || e.bytes <= limit.bytes) return "";
  return "needs about " + e.detail + ", more than " + limit.what +
         "; make the workload smaller (workload.nx or its other extents, run.ranks, platform.nodes)" +
         limit.advice;
}

std::int64_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || size <= 0) return 0;
  return static_cast<std::int64_t>(pages) * size;
}

std::int64_t max_memory_maps() {
  std::FILE* f = std::fopen("/proc/sys/vm/max_map_count", "r");
  if (!f) return 0;
  long long n = 0;
  const bool read = std::fscanf(f, "%lld", &n) == 1;
  std::fclose(f);
  return read && n > 0 ? n : 0;
}

std::string simgrid_cfg() {
  const char* env = std::getenv("CIOSIM_SIMGRID_CFG");
  return env ? env : "";
}

std::vector<std::string> simgrid_cfg_items(const std::string& cfg) {
  std::vector<std::string> items;
  std::stringstream ss(cfg);
  for (std::string item; std::getline(ss, item, ';');)
    if (!item.empty()) items.push_back(item);
  return items;
}

bool guard_pages_off(const std::string& cfg) {
  for (const std::string& item : simgrid_cfg_items(cfg))
    if (item == "contexts/guard-size:0") return true;
  return false;
}

std::string format_bytes(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

std::int64_t parse_size(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    return ConfigError(what + " must be a positive size in bytes, e.g. 8GiB, 512MiB or 1e9; got \"" + text +
                       "\"");
  };
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw bad();
  }
  std::string unit = text.substr(used);
  unit.erase(0, unit.find_first_not_of(' '));
  const std::pair<const char*, double> units[] = {{"", 1},
                                                  {"B", 1},
                                                  {"KiB", 1024.0},
                                                  {"MiB", 1048576.0},
                                                  {"GiB", 1073741824.0},
                                                  {"TiB", 1099511627776.0},
                                                  {"kB", 1e3},
                                                  {"MB", 1e6},
                                                  {"GB", 1e9},
                                                  {"TB", 1e12}};
  for (const auto& [name, factor] : units)
    if (unit == name) {
      const double bytes = v * factor;
      if (!std::isfinite(bytes) || bytes < 1 || bytes > 9.2e18) throw bad();
      return static_cast<std::int64_t>(bytes);
    }
  throw bad();
}

}  // namespace ciosim::config
