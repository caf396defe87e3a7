// A simulated run's timeline, written from ciosim's own records (config::RankRecord's phase marks and the
// activity log, models/activity/activity_log.hpp): every rank's phases and calls, every MPI message
// (source, destination, bytes, transfer start and end), every request a file-system server served and
// every disk operation. Two formats:
//  - Chrome trace-event JSON (Perfetto, chrome://tracing): one process per host (compute node or server),
//    one thread per rank (its phases, with its calls nested inside), per rank "sends" threads holding its
//    messages as slices with a flow arrow to the receiving rank, and per server and disk one thread per
//    lane of overlapping requests or operations. Complete ("X") events; times in microseconds.
//  - Paje (SimGrid's trace format; pj_dump from pajeng, ViTE): containers HOST > RANK, SERVER and DISK
//    (one per lane), states PHASE and CALL on ranks, REQUEST on servers, DISK_OP on disks, links MESSAGE
//    between ranks (their Size field holds the bytes). Times in seconds.
// Both are deterministic: the same run gives the same bytes.
#pragma once

#include <string>
#include <vector>

#include "config/run_summary.hpp"
#include "models/activity/activity_log.hpp"

namespace ciosim::config {

/// The formats `ciosim run --timeline` accepts and their file extensions.
struct TimelineFormat {
  const char* name;
  const char* extension;
};
const std::vector<TimelineFormat>& timeline_formats();
/// Splits a --timeline value ("chrome", "paje", "chrome,paje"; repeated flags are joined first) into
/// format names, each once, in the order given; throws ConfigError naming the valid ones.
std::vector<std::string> parse_timeline_formats(const std::vector<std::string>& values);

/// `point` names the run (algorithm and parameters, point_identity): Chrome's otherData.point, a comment
/// at the head of the Paje file.
std::string chrome_trace_json(const std::vector<RankRecord>& records, const activity::Log& log,
                              const std::string& point = "");
std::string paje_trace(const std::vector<RankRecord>& records, const activity::Log& log,
                       const std::string& point = "");

/// "algorithm=A, KEY=VALUE, ...": the technique and every swept or set key of the point.
std::string point_identity(const std::string& algorithm,
                           const std::vector<std::pair<std::string, std::string>>& params);

/// Writes every format in `formats` to path + its extension. Throws std::runtime_error on I/O failure.
void write_timelines(const std::vector<std::string>& formats, const std::string& path,
                     const std::vector<RankRecord>& records, const activity::Log& log,
                     const std::string& point = "");

}  // namespace ciosim::config
