// A phase of a run as JSON: the same object in results.json and between a point's process and its parent.
// {"name", "time_s", then, for simulated runs, "start_s", "end_s", "ranks": {"time_s": [...], "cpu_s",
// "network_s", "filesystem_s"}, "resources": [{"kind", "count", "busy_mean", "busy_max", "busiest",
// "bytes_per_s"}]} (docs/results.md explains each field).
#pragma once

#include <nlohmann/json.hpp>

#include "config/run_spec.hpp"

namespace ciosim::config {

nlohmann::ordered_json phase_to_json(const PhaseTime& p);
/// Accepts both results.json's object and the older [name, time_s] pair; throws nlohmann's exceptions.
PhaseTime phase_from_json(const nlohmann::ordered_json& j);

}  // namespace ciosim::config
