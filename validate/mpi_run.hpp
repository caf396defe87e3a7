// One point of a scenario on real MPI, bookkept like the simulator (sim/simulate.cpp): every rank passes a
// common start (MPI_Barrier, not counted), then phase "open" + file_open, the technique, phase "close" +
// file_close. Phase marks are MPI_Wtime on each rank, relative to the rank's own start; rank 0 gathers
// every rank's record and summarises them with config::summarize (max over ranks per phase), then checks
// the file against the layout the technique promises. For run.access = read, as in the simulator, the file
// as the technique lays it out is written first (untimed) and the technique's read path is run and timed;
// file_verified then says that every rank read back exactly its entries.
#pragma once

#include <mpi.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "algorithms/common/trace.hpp"
#include "config/run_spec.hpp"
#include "config/run_summary.hpp"

namespace ciosim::mpi {

struct PointOptions {
  std::filesystem::path work_dir;     ///< where the file (x.dat) is written
  bool trace = false;                 ///< record every rank's call trace
  bool steps = false;                 ///< run the step clock (Process::record_steps) on every rank
  std::filesystem::path export_file;  ///< if not empty, rank 0 copies the written file here
};

/// Meaningful on rank 0 only.
struct PointRun {
  RunResult result;             ///< result.file_verified: the file equals the technique's expected layout
  Trace trace;                  ///< empty unless PointOptions::trace
  std::vector<StepTime> steps;  ///< every rank's step-clock sites added up; empty unless PointOptions::steps
};

/// Runs spec's technique on every rank of `comm` (collective). Bad input (unknown technique, a workload
/// the technique cannot run, ranks != size of comm) throws std::invalid_argument on every rank alike; an
/// exception inside the technique is printed with its rank and aborts the job (MPI_Abort), since the other
/// ranks cannot continue.
PointRun run_technique(MPI_Comm comm, const RunSpec& spec, const PointOptions& opt);

/// The MPI library's own collective write of the same workload (the reference of `ciosim validate`):
/// each rank sets a file view of where its entries go in x's order (MPI_Type_vector for a block-cyclic
/// distribution, else MPI_Type_create_hindexed over its runs sorted by offset, with a matching hindexed
/// memory type) and writes its local data with one MPI_File_write_all. Phases: "open", "write" (set_view
/// and write_all), "close". result.algorithm = `label`; the file is checked against x's order.
PointRun run_reference(MPI_Comm comm, const RunSpec& spec, const PointOptions& opt, const std::string& label);

/// One step-clock site as timings.json's "cpu_steps" and calibrate's "steps" write it: site, step, charges,
/// tuples, bytes_copied, library_pieces, seconds.
nlohmann::ordered_json step_json(const StepTime& t);

/// Every rank's record, on rank 0 (empty elsewhere). Collective.
std::vector<config::RankRecord> gather_records(MPI_Comm comm, const config::RankRecord& mine);

}  // namespace ciosim::mpi
