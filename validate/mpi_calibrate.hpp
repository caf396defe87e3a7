// The measurements behind `ciosim calibrate`, taken with real MPI on the machine (ciosim-mpi calibrate,
// at least 2 ranks). Rank 0 writes them as JSON; config/calibration.hpp fits a platform file from them.
//
//   "pingpong":    ranks 0 and 1, one-way time (half a round trip) of MPI_Send/MPI_Recv per size
//   "memcpy":      std::memcpy of a large buffer on rank 0
//   "pack":        ciosim::pack of a datatype of 1-entry tuples on rank 0 (the per-tuple cost)
//   "file_write", "file_read": rank 0 alone, MPI_File_write_at/read_at of one buffer per call, per size
//   "file_write_all_ranks":     every rank writes its own 16 MiB block in 1 MiB calls at once
//   "list_write":  rank 0, one write_list (MpiProcess: hindexed view) of many small regions vs. one
//                  contiguous write of the same bytes (the per-region cost)
//   "open_close":  collective MPI_File_open (creating the file) + MPI_File_close
//   "page_cache":  rank 0's kernel page-cache settings (Linux /proc: MemAvailable, vm.dirty_*), or null
//   "close_wait":  the close of the ranks that reach MPI_File_close while rank 0 is 20 ms late: about
//                  20 ms if the library synchronizes the ranks there, a plain close if not
//   "library_write_all" (--library, a job of its own): the library's MPI_File_write_all of the same bytes
//                  in 4-byte and 64 KiB pieces through one aggregator (ROMIO's cost per piece)
// Every time is the median of several repetitions (min and max kept beside it).
#pragma once

#include <mpi.h>

#include <string>

namespace ciosim::mpi {

struct CalibrateOptions {
  std::string out;
  std::string work_dir = ".";
  bool quick = false;  ///< fewer repetitions and smaller sizes (seconds instead of about a minute)
  /// Only "library_write_all", in a job of its own: the library's collective I/O component (ROMIO) is
  /// chosen when MPI starts (Open MPI: --mca io romio321), so its launch differs from the others'.
  bool library_only = false;
};

/// Collective over `comm`. Returns the exit code (0).
int calibrate(MPI_Comm comm, const CalibrateOptions& opt);

}  // namespace ciosim::mpi
