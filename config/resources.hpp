// What a point will cost before it is simulated (issue 13, item 2): an estimate of its memory, compared
// with the machine's memory or a --max-memory limit in the validation pass, so that a point that cannot fit
// is refused with one line instead of dying in the middle of a sweep.
#pragma once

#include <cstdint>
#include <string>

#include "algorithms/technique.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

struct MemoryEstimate {
  std::int64_t bytes = 0;  ///< the estimate, saturated at INT64_MAX
  std::string detail;      ///< "2.1 GiB: 3 x 512 MiB of payload + ..." (what dominates, for the message)
};

/// The peak resident memory of simulating `spec` on distribution `d`, from the parts measured to grow
/// (docs/benchmarks.md, "Memory of a point"): a fixed base, per rank, per node, per byte of the file (the
/// file store, the verification copy, the ranks' data and the technique's buffers: a factor per
/// technique), per offset-length tuple of the distribution. A lower bound rather than a bound: it
/// refuses points that surely cannot fit, and a std::bad_alloc catches the rest.
MemoryEstimate estimate_memory(const RunSpec& spec, const Distribution& d);

/// The machine's physical memory in bytes (0 when unknown).
std::int64_t physical_memory();

/// "1.5 GiB", "320 MiB", "12 KiB", "100 B".
std::string format_bytes(std::int64_t bytes);

/// Parses "8GiB", "512 MiB", "1e9", "4096" (bytes; KiB/MiB/GiB/TiB and kB/MB/GB/TB suffixes). Throws
/// ConfigError naming `what` and the value as written when it is not a positive size.
std::int64_t parse_size(const std::string& text, const std::string& what);

}  // namespace ciosim::config
