// A captured application's calls as a call-by-call replay (algorithms/replay.hpp): `workload.kind = "trace"`
// with `workload.replay = "calls"` (the default). The capture's format: config/capture_trace.hpp.
#pragma once

#include <cstdint>
#include <string>

#include "algorithms/replay.hpp"

namespace ciosim::config {

/// The replay of capture folder `dir` on `ranks` ranks, in entries of `element_size` bytes: the calls of
/// every rank on the file its first open names (every later open of the same path included), each
/// collective data call a step, the time between two calls on that file the rank's computation. Throws
/// std::invalid_argument (one line naming the rank, the call and what to change) when the capture cannot
/// be replayed: another rank count, a call ciosim does not replay, ranks whose collective calls differ, a
/// collective call whose regions do not cover a contiguous range once, regions that are not whole
/// entries, nothing written or read.
Replay replay_from_capture(const std::string& dir, int ranks, std::int64_t element_size);

}  // namespace ciosim::config
