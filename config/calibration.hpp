// From the measurements of `ciosim-mpi calibrate` (validate/mpi_calibrate.hpp) to a platform file: the
// fits behind `ciosim calibrate`. Pure functions, so the fits are tested against known lines.
//
// How the machine maps onto the model (sim/platform.cpp, models/pvfs/pvfs_sim.cpp):
//  - [nodes] count = the distinct hosts of the measuring ranks; cores_per_node = max(ranks per host, cores)
//    so that runs with as many ranks as were measured fit;
//  - memcpy_Bps from memcpy; tuple_cost_s = time of pack() per 1-entry tuple minus its copy;
//    romio_piece_s (when measured) = the MPI library's MPI_File_write_all under ROMIO through one
//    aggregator, the time in 4-byte pieces minus that in 64 KiB pieces of the same bytes, per extra piece;
//  - MPI: one custom network profile NAME-mpi. The bandwidth is the ping-pong's through buffers that are
//    not in the cache when measured (as a run's large messages go), the latency the one-buffer ping-pong's.
//    With ranks 0 and 1 on one host the ping-pong measures
//    shared memory: loopback_Bps = the fitted bandwidth and the one-way latency is charged as host
//    overheads (o_s = o_r = L/2, link latency 0), so a lone message costs L + S/B on a loopback and on a
//    link alike. Across hosts the latency goes to the links (L/2 per NIC link), overheads 0;
//  - PVFS becomes the local file system: one I/O server on its own host whose disk is the page cache
//    (disk_write_Bps from all ranks writing at once, disk_read_Bps from rank 0 reading back), per-request
//    overhead = the intercept of the write-time fit, per-region overhead from list writes, stripe and flow
//    buffer = the smallest call size reaching 90% of the fitted write bandwidth (on one host also [local]:
//    the node's disk behind its page cache, with the collective open and close timed apart); the I/O network
//    is a custom profile NAME-io at memcpy speed with no latency (moving data into the kernel is a copy).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/platform_file.hpp"

namespace ciosim::config {

/// y = intercept + slope * x.
struct LineFit {
  double intercept = 0;
  double slope = 0;
};

/// Least squares minimising the relative residuals ((y_i - a - b x_i) / y_i)^2: small and large sizes
/// weigh alike. Needs two distinct x and positive y; throws std::invalid_argument otherwise. A negative
/// intercept is clamped to 0 (and the slope refitted through the origin).
LineFit fit_relative(const std::vector<double>& x, const std::vector<double>& y);

/// What calibrate knows besides the measurements.
struct CalibrationContext {
  std::string name;                   ///< the platform's name
  std::string machine;                ///< e.g. "2 x Intel Xeon, 23 GiB" (goes into the description)
  std::string date;                   ///< YYYY-MM-DD
  std::string command;                ///< how it was measured, e.g. "ciosim calibrate -n 2"
  int cores = 1;                      ///< hardware threads of one host
  std::int64_t eager_threshold = -1;  ///< the MPI's eager limit if known (e.g. from ompi_info), else -1
  std::string eager_source;           ///< where it comes from
};

/// The platform (with its two network profiles and a "_source" for every value). Throws
/// std::invalid_argument (one line) when a measurement is missing or unusable.
PlatformFile platform_from_measurements(const nlohmann::json& m, const CalibrationContext& ctx);

/// nodes.romio_piece_s from "library_write_all": the library's collective write in small pieces minus the
/// same bytes in large ones, over the difference of the pieces its one aggregator receives; 0 when not
/// measured, or when the small pieces were not slower (noise, not a cost).
double romio_piece_from_measurements(const nlohmann::json& m);

/// The measurements of several independent calibration runs as one: every timing (an object with
/// "median", "min", "max") becomes the median of the runs' medians, with the smallest min and the largest
/// max; everything else is the first run's. Between-run differences on a shared machine (the ping-pong's
/// bandwidth measured 3.3 and 9.3 GB/s in two runs 30 minutes apart) are far wider than within one run.
nlohmann::json merge_measurements(const std::vector<nlohmann::json>& runs);

/// A calibrated term and its value in each run.
struct TermSpread {
  std::string term;            ///< e.g. "MPI bandwidth"
  std::string unit;            ///< e.g. "MB/s"
  double scale = 1;            ///< multiply the values by it for the unit
  std::vector<double> values;  ///< one per run
  /// max / min of the values (1 for one run).
  [[nodiscard]] double spread() const;
};
/// The terms a prediction depends on most, fitted from each run's measurements on its own, then each loop's
/// own cost per tuple ("windows loop, per tuple") that every run fitted.
std::vector<TermSpread> term_spreads(const std::vector<PlatformFile>& per_run);

/// Appends to the "_source" of every numeric value of `merged` that the runs fitted on their own
/// (`per_run`, at least two) do not all agree on the runs' range and what it means: the smallest and
/// largest of N independent runs enclose the median of the runs' distribution with probability
/// 1 - 2^(1 - N) (75 % for 3 runs, 94 % for 5), whatever that distribution is. The platform keys and the
/// calibrated MPI profile's values.
void add_run_intervals(PlatformFile& merged, const std::vector<PlatformFile>& per_run);

}  // namespace ciosim::config
