// The format of a captured application's MPI-IO calls (`libciosim-capture.so`, validate/capture/), version 1,
// and its reader. A capture is a folder:
//
//   trace.json   {"format": "ciosim-trace", "version": 1, "ranks": P, "hosts": [host of rank 0, ...],
//                 "mpi_library": "...", "program": "argv[0] argv[1] ..."}
//   rank-R.txt   rank R's calls, one a line, in the order it made them:
//                  KIND START END key=value ...
//                START and END are seconds since the rank's MPI_Init (its own clock), so the time between one
//                call's END and the next one's START is the application's own work.
//
// Kinds and their keys (fh=N: the file handle, numbered from 1 in the order the rank opened files):
//   open        fh=N comm=P path="..."             MPI_File_open on a communicator of P ranks
//   close       fh=N                               MPI_File_close
//   view        fh=N disp=BYTES etype=BYTES extent=BYTES runs=REGIONS
//                                                  MPI_File_set_view: the filetype flattened, its runs
//                                                  relative to the start of one tile (extent apart)
//   write, write_all, write_at, write_at_all, read, read_all, read_at, read_at_all
//               fh=N [offset=ETYPES] bytes=N regions=REGIONS
//                                                  the file bytes the call accessed, in the order the data
//                                                  fills them (the view applied); offset: the _at calls'
//   seek        fh=N offset=ETYPES                 MPI_File_seek (the individual pointer it set, absolute)
//   sync        fh=N                               MPI_File_sync
//   unsupported call=MPI_File_...                  a call ciosim cannot replay (non-blocking, split
//                                                  collective, shared file pointer, set_size, ...)
// runs= and regions= come last on their line. A path is quoted, with \" and \\ inside.
//
// REGIONS is a space-separated list, each `OFFSET+LENGTH` or, for COUNT regions of LENGTH bytes STRIDE
// apart, `OFFSET+LENGTHxCOUNT/STRIDE` (all in bytes): strided runs stay one token, not one per element.
// Lines starting with '#' are comments. The reader refuses, with one line naming the file and line, any
// other form: an unknown kind or key, a number that does not parse or is negative, a count of 0.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ciosim::config {

/// A run of bytes: offset and length.
struct ByteRun {
  std::int64_t offset = 0;
  std::int64_t length = 0;
  bool operator==(const ByteRun&) const = default;
};

/// `runs` as REGIONS text: runs that continue the last one are joined, equal lengths at a constant stride
/// become one `OFF+LENxCOUNT/STRIDE` token.
std::string format_regions(const std::vector<ByteRun>& runs);
/// At most this many regions in one call or view (2^24: 256 MiB of runs), so that a malformed or hostile
/// capture cannot make its reader run out of memory.
constexpr std::int64_t kMaxRegions = std::int64_t{1} << 24;

/// The runs of REGIONS text, expanded; throws std::invalid_argument naming the bad token (one that ends past
/// the largest 64-bit offset, or more than kMaxRegions regions in all).
std::vector<ByteRun> parse_regions(const std::string& text);

/// One call of a captured rank.
struct CapturedCall {
  std::string kind;  ///< open, close, view, write_all, ...
  double start = 0;  ///< seconds since the rank's MPI_Init
  double end = 0;
  int fh = 0;                                    ///< file handle (0 for unsupported)
  std::string path;                              ///< open: the file name
  std::int64_t bytes = 0;                        ///< data calls: bytes accessed
  std::int64_t offset = 0;                       ///< _at calls, seek: in etypes
  std::int64_t disp = 0, etype = 0, extent = 0;  ///< view
  std::vector<ByteRun> regions;                  ///< data calls: file bytes; view: the filetype's runs
  std::string call;                              ///< unsupported: the MPI function
};

struct CapturedTrace {
  int version = 0;
  int ranks = 0;
  std::vector<std::string> hosts;
  std::string mpi_library;
  std::string program;
  std::vector<std::vector<CapturedCall>> calls;  ///< per rank
};

/// Reads a capture folder; throws std::invalid_argument (one line: the file, the line, what is wrong) on a
/// malformed, truncated or inconsistent capture.
CapturedTrace read_capture(const std::filesystem::path& dir);

}  // namespace ciosim::config
