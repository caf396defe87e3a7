// Checks of one sweep point that need no simulation and no per-entry work, made in the validation pass
// before the techniques' own checks (issue 13, items 1 and 2): its memory estimate against the limit, and
// whether its hints select any aggregator on the platform's hosts.
#pragma once

#include <string>

#include "algorithms/technique.hpp"
#include "config/resources.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

/// "" when the point may run, else a one-line reason: its memory estimate (the workload's closed-form size,
/// a lower bound for the kinds whose tuples come with their distribution) exceeds `limit`, or
/// hints.cb_config_list selects no aggregator among the hosts its ranks are placed on (two-phase, the
/// technique that opens the file with it).
std::string check_point(const RunSpec& r, const MemoryLimit& limit);

/// For the kinds whose size needs their distribution (irregular, lists, mesh): "" when `d`'s estimate fits
/// `limit`, else the reason. "" for the other kinds (check_point has checked them exactly).
std::string check_point_memory(const RunSpec& r, const Distribution& d, const MemoryLimit& limit);

/// The reason given for a std::bad_alloc while building or checking a point's distribution.
std::string out_of_memory_reason(const RunSpec& r);

}  // namespace ciosim::config
