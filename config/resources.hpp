// What a point will cost before it is simulated: an estimate of its memory, compared with the machine's
// memory or a --max-memory limit in the validation pass, so that a point that cannot fit is refused with one
// line instead of dying in the middle of a sweep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/technique.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

struct MemoryEstimate {
  std::int64_t bytes = 0;  ///< the estimate, saturated at INT64_MAX
  std::string detail;      ///< "2.1 GiB: 3 x 512 MiB of payload + ..." (what dominates, for the message)
};

/// The size of a point's workload that the estimate needs: its entries and its offset-length tuples (every
/// replica counted).
struct WorkloadSize {
  double entries = 0;
  double tuples = 0;
  /// The elided pieces of the ranks' data (payload::append's joins: equal runs of x at a constant stride
  /// are one piece, so a rank's block-cyclic data is one): what an elided point's buffers hold at least.
  /// The closed forms count one per rank for block-cyclic and `tuples` for the other kinds.
  double pieces = 0;
  /// True when `tuples` is the workload's own count; false for the kinds whose tuples are known only once
  /// their distribution is built (irregular, lists, mesh): then `tuples` is 0, a lower bound.
  bool exact = false;
  /// True when some rank stores its entries out of file order (a non-contiguous user buffer for ROMIO's
  /// two-phase, which then keeps every piece's memory offset too). The closed forms' kinds store in file
  /// order (tests/test_resources.cpp checks them).
  bool out_of_order = false;
};

/// The workload's size in closed form, without building its distribution (no per-entry or per-tuple
/// work): exact for block-cyclic, block3d, stem2, btio and tile; for irregular, lists and mesh the entries
/// only. Invalid extents give what they give (make_distribution refuses them later).
WorkloadSize workload_size(const WorkloadSpec& w, int ranks);

/// A built distribution's size: its entries and its tuples, every replica counted (exact).
WorkloadSize distribution_size(const Distribution& d);

/// Whether run.payload = auto makes a point of this size elided (docs/results.md, "Elided payloads"): its
/// technique runs elided, it has no run.sequence and exports no file, its tuples are known (size.exact),
/// and its data, pieces and copies of the array pass auto_elided (algorithms/technique.hpp). False for bytes
/// and elided.
bool auto_chooses_elided(const RunSpec& spec, const WorkloadSize& size);

/// The memory a point may use (--max-memory or the machine's memory, shared by the -j points at once).
/// bytes = 0: no limit known.
struct MemoryLimit {
  std::int64_t bytes = 0;
  std::string what;       ///< "this machine's 23.4 GiB", "--max-memory 1.0 GiB / -j 2 = 512.0 MiB"
  std::string advice;     ///< what else to change besides the workload: "lower -j, or raise --max-memory"
  std::int64_t maps = 0;  ///< the memory maps a process may have (vm.max_map_count; 0: unknown, unchecked)
};
/// The limit for `--max-memory TEXT` ("" = the machine's memory) and -j `jobs`. Throws ConfigError on a
/// malformed size.
MemoryLimit memory_limit(const std::string& max_memory, int jobs);

/// "" when `e` fits `limit`, else the one-line reason naming the estimate, the limit and what to change.
std::string memory_refusal(const MemoryEstimate& e, const MemoryLimit& limit);

/// The peak resident memory of simulating `spec` on distribution `d`, from the parts measured to grow
/// (docs/benchmarks.md, "Memory of a point"): a fixed base, per rank, per node, per byte of the file (the
/// file store, the verification copy, the ranks' data and the technique's buffers: a factor per
/// technique), per offset-length tuple of the distribution. A lower bound rather than a bound: it
/// refuses points that surely cannot fit, and a std::bad_alloc catches the rest.
MemoryEstimate estimate_memory(const RunSpec& spec, const Distribution& d);
/// The same from the workload's size (workload_size, or counted from a distribution).
MemoryEstimate estimate_memory(const RunSpec& spec, const WorkloadSize& size);

/// The machine's physical memory in bytes (0 when unknown).
std::int64_t physical_memory();
/// The process's address-space limit (RLIMIT_AS, `ulimit -v`, as clusters' batch systems set it) in bytes;
/// 0 when unlimited. A child process inherits it: it bounds each point's simulation, whatever -j.
std::int64_t address_space_limit();
/// The memory limit of the process's control group (cgroup v2 memory.max, v1 memory.limit_in_bytes; the
/// smallest along its path up to the root), which containers and Slurm's task/cgroup set, in bytes; 0 when
/// none. Shared by every process of the group: the -j points at once divide it. `proc_cgroup` and
/// `cgroup_root` are /proc/self/cgroup and /sys/fs/cgroup except in tests.
/// `file`, when given, receives the name of the limit file that binds ("memory.max" or
/// "memory.limit_in_bytes").
std::int64_t cgroup_memory_limit(const std::string& proc_cgroup = "/proc/self/cgroup",
                                 const std::string& cgroup_root = "/sys/fs/cgroup",
                                 std::string* file = nullptr);
/// The most memory maps a process may have, /proc/sys/vm/max_map_count (0 when unknown).
std::int64_t max_memory_maps();
/// The SimGrid settings every run passes to its engine: the environment's CIOSIM_SIMGRID_CFG ("" when
/// unset), "key:value;key:value" (e.g. "contexts/factory:thread" for sanitizer builds).
std::string simgrid_cfg();
/// Its non-empty "key:value" items, in order.
std::vector<std::string> simgrid_cfg_items(const std::string& cfg);
/// Whether `cfg` turns SimGrid's stack guard pages off (contexts/guard-size:0): stacks then come from the
/// heap and are no memory maps of their own.
bool guard_pages_off(const std::string& cfg);

/// "1.5 GiB", "320 MiB", "12 KiB", "100 B".
std::string format_bytes(std::int64_t bytes);

/// Parses "8GiB", "512 MiB", "1e9", "4096" (bytes; KiB/MiB/GiB/TiB and kB/MB/GB/TB suffixes). Throws
/// ConfigError naming `what` and the value as written when it is not a positive size.
std::int64_t parse_size(const std::string& text, const std::string& what);

}  // namespace ciosim::config
