// The comparisons `ciosim validate` makes between a simulated and a real MPI run of the same point, and
// the report it prints and saves (validation.txt, validation.json).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/run_spec.hpp"

namespace ciosim::app {

/// Predicted (simulated) vs measured time of one phase; measured is the median over the repetitions.
struct PhaseTiming {
  std::string name;  ///< a phase, or "total" (first common start to last end)
  double predicted_s = 0;
  double measured_s = 0;
  double min_s = 0;  ///< spread of the measured repetitions
  double max_s = 0;
  /// (predicted - measured) / measured; NaN when nothing was measured.
  double relative_error() const;
  /// (max - min) / median of the repetitions; NaN when nothing was measured.
  double spread() const;
  /// The repetitions disagree by more than kNoisySpread of their median: the measurement cannot tell a
  /// model error of that size from the machine's noise, so the row is too noisy to judge.
  bool noisy() const;
};
/// The relative spread above which a measured time is flagged as too noisy to judge (20 %: a model
/// error smaller than that could not be told apart from run-to-run variation on a shared machine).
constexpr double kNoisySpread = 0.20;

/// The MPI library's own collective write of the point's workload (MPI_File_write_all with a view).
struct ReferenceRun {
  std::string label;       ///< "romio321", "ompio", "romio"
  bool available = false;  ///< false: the launch failed; `why` says how
  std::string why;
  PhaseTiming total;      ///< measured; predicted when `predicted`
  PhaseTiming write;      ///< the set_view + write_all phase, measured only
  bool verified = false;  ///< the file is x in its order
  /// total.predicted_s is the simulation of the library's own call: two-phase with run.cpu_charge =
  /// "library" (ROMIO's calls and its per-piece work); else `not_predicted` says why not.
  bool predicted = false;
  std::string not_predicted;
};

/// One CPU charge site as the step clock saw it in the real run (ciosim-mpi --steps), every rank added up:
/// the work the code charged there, what the model charges for that work on a core of its own, and the real
/// time the code took. Sites named "uncharged code, phase P" are code that ran between calls and charged
/// nothing.
struct StepRow {
  std::string site;
  std::int64_t charges = 0;
  std::int64_t tuples = 0;
  std::int64_t bytes_copied = 0;
  double charged_s = 0;   ///< PlatformSpec::cpu_seconds of the work charged there
  double measured_s = 0;  ///< the step clock's seconds
};

/// The rows of one timings.json point's "cpu_steps" (empty without them), charged at `platform`'s costs.
std::vector<StepRow> step_rows(const nlohmann::json& timings_point, const PlatformSpec& platform);

struct PointReport {
  std::size_t index = 0;  ///< 1-based
  std::string algorithm;
  std::string label;  ///< the point's params
  std::int64_t expected_bytes = 0;
  bool sim_file_ok = false;  ///< the simulated file is the expected layout
  bool mpi_file_ok = false;  ///< the real file is the expected layout
  bool files_identical = false;
  bool sim_verified = false;  ///< the simulated run's own check (write: its file; read: the data read back)
  bool mpi_verified = false;  ///< the real run's own check, in every repetition
  std::string trace_difference;  ///< "" = identical
  std::string calls_difference;  ///< "" = identical per-kind counts and bytes
  std::vector<PhaseTiming> timing;
  std::vector<ReferenceRun> references;
  std::vector<StepRow> steps;  ///< validate --cpu-steps
  bool passed() const { return file_ok() && trace_difference.empty() && calls_difference.empty(); }
  bool file_ok() const {
    return sim_file_ok && mpi_file_ok && files_identical && sim_verified && mpi_verified;
  }
};

struct ValidationReport {
  std::string scenario;
  std::string platform;  ///< the simulated platform (as run.platform names it)
  int ranks = 0;
  int repeat = 0;
  std::string launcher;            ///< the launcher's version line
  std::string command;             ///< how ciosim-mpi was started
  std::string placement;           ///< how the simulation placed the ranks, one line
  std::string memory;              ///< how the real runs treated memory (ciosim-mpi --memory), one line
  std::vector<std::string> notes;  ///< caveats printed under the heading
  std::vector<PointReport> points;
  bool passed() const;
};

/// "" when the per-kind call counts and bytes of the two runs agree, else one line naming the differences.
std::string calls_difference(const RunResult& sim, const RunResult& mpi);

/// "total" and every phase of the simulated run, against the repetitions in `timings_point` (one element of
/// ciosim-mpi's timings.json "points").
std::vector<PhaseTiming> timing_rows(const RunResult& sim, const nlohmann::json& timings_point);

/// Median and spread of `name` ("total" or a phase) over the repetitions of `timings_point`.
PhaseTiming measured(const std::string& name, const nlohmann::json& timings_point);

std::string report_text(const ValidationReport& r);
std::string report_json(const ValidationReport& r);

}  // namespace ciosim::app
