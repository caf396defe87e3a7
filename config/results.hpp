// Results of a scenario (schema v1, docs/results.md): results.json, results.csv, the table printed on
// stdout, and the RunResult <-> JSON codec used between the CLI's per-point child process and its parent.
//
// Everything here is deterministic: same runs, same bytes (no timestamps, host names or wall-clock times;
// floats are written as the shortest text that reads back as the same double).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "config/run_spec.hpp"

namespace ciosim::config {

/// Whose clock a run's times are on: the simulator's (results say "sim_time_s") or a real run's wall clock
/// (ciosim-mpi: "measured_time_s"), so a measured time never sits under a simulated time's name.
enum class Clock { Simulated, Measured };

/// results.json's schema version (docs/results.schema.json; docs/results.md, "Compatibility"): it changes
/// only when a key is removed, renamed or changes meaning. Keys added within a version are ignored by
/// readers that do not know them.
constexpr int kResultsSchemaVersion = 1;

/// results.json (schema v1): {"schema_version", "ciosim_version", "scenario", "runs": [{"algorithm",
/// "params", "ranks", "network_mpi", "network_io", "sim_time_s" (or "measured_time_s"), "phases":
/// [phase_json.hpp's object, in time order], "calls", "bytes": {"network", "file"}, "file_verified",
/// "bottleneck" (simulated runs)}]}. Integer parameters (params.hpp) appear as JSON numbers, the others as
/// strings. Two-space indented, ends with a newline.
std::string results_json(const std::string& scenario, const std::vector<RunResult>& runs,
                         Clock clock = Clock::Simulated);

/// Reads results.json text back (every run's fields; params values as text). Throws std::runtime_error
/// (one line, naming `origin`) on malformed input.
std::vector<RunResult> parse_results_json(const std::string& text, const std::string& origin);

/// results.csv: a header, then one row per run: run (1-based, as in phases.csv), algorithm, one column per
/// params key (union over runs, first-seen order; not the keys the fixed columns show: run.algorithm,
/// run.ranks, network.mpi, network.io), ranks, network_mpi, network_io, sim_time_s (or measured_time_s),
/// one "phase_NAME_s" column per phase (union, in time order; empty when a run has no such phase),
/// bytes_network, bytes_file, file_verified, bottleneck. RFC 4180 quoting, "\n" line ends.
/// `numbers`: each run's point number in its sweep (the `run` column; a shard's or a partial sweep's are
/// not 1..n); empty: 1, 2, ...
std::string results_csv(const std::vector<RunResult>& runs, Clock clock = Clock::Simulated,
                        const std::vector<std::size_t>& numbers = {});

/// `v` with 6 decimals, as the tables for humans print seconds.
std::string fixed(double v);

/// A fixed-width table for humans: algorithm, the params (other than run.algorithm), sim time and every
/// phase time, in seconds with 6 decimals.
std::string results_table(const std::vector<RunResult>& runs);

/// An operation's kind, as its totals group it: its name up to a ':' ("view:4096" -> "view").
std::string operation_kind(const std::string& name);
/// Per kind of operation, in order of first appearance, the sum of its operations' times (each the
/// slowest rank's): e.g. BT-IO's total write time. Empty without run.sequence.
std::vector<std::pair<std::string, double>> operation_totals(const RunResult& r);
/// The kinds of operation any run has, in order of first appearance (results.csv's op_KIND_s columns).
std::vector<std::string> operation_kinds(const std::vector<RunResult>& runs);

/// Lossless JSON form of a RunResult (doubles round-trip exactly; params keep their order).
nlohmann::json run_result_to_json(const RunResult& r);
/// Inverse of run_result_to_json; throws std::runtime_error (one line) on malformed input.
RunResult run_result_from_json(const nlohmann::json& j);

}  // namespace ciosim::config
