// ROMIO's extended two-phase collective I/O, generic ADIO path (ADIOI_GEN_WriteStridedColl and
// ADIOI_GEN_ReadStridedColl), reimplemented step by step (docs/two-phase.md, "Two-phase, step by step";
// checked against MPICH's ROMIO adio/common/ad_write_coll.c, ad_read_coll.c, ad_aggregate.c; no code
// copied). The method: R. Thakur, A. Choudhary, "An Extended Two-Phase Method for Accessing Sections of
// Out-of-Core Arrays", Scientific Programming 5(4):301-317, 1996; ROMIO: R. Thakur, W. Gropp, E. Lusk,
// "Data Sieving and Collective I/O in ROMIO", Frontiers '99. The comparison it enters: Singh, Isaila,
// Pichel, Carretero, J. Supercomputing 47(1):53-75, 2009, §4.2.
//
// The pure index arithmetic (file domains, aggregator lookup, my_req, the hole test) is exposed for unit
// tests; run_write/run_read are the techniques.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/access_list.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/common/session.hpp"
#include "algorithms/technique.hpp"
#include "algorithms/two_phase/hints.hpp"

namespace ciosim::two_phase {

// ---- step 1d: the interleave test

/// #{i >= 1 : st[i] < end[i-1] && st[i] <= end[i]} (only neighbouring ranks are compared).
int interleave_count(std::span<const Offset> st, std::span<const Offset> end);

// ---- step 3: file domains (ADIOI_Calc_file_domains)

struct FileDomains {
  Offset min_st = 0;
  Offset fd_size = 0;
  std::vector<Offset> start;  ///< per aggregator index; -1 (with end -1) for an empty domain
  std::vector<Offset> end;    ///< last byte, inclusive
  bool aligned = false;       ///< stripe-aligned: the aggregator lookup searches fd_end linearly
};

/// Divides [min(st), max(end)] among `naggs` aggregators: fd_size = ceil(range / naggs) (at least
/// min_fd_size); with striping_unit > 0 each boundary is rounded to the nearest multiple of it in absolute
/// offsets and the last domain ends at max(end); domains past the end are empty, the last ones may be
/// short. Offsets are relative to the file view's `displacement` (Process::file_displacement), which the
/// alignment adds back: boundaries fall on stripe boundaries of the file, as ROMIO's, which sees absolute
/// offsets. Throws std::invalid_argument when naggs < 1 or the arrays differ in size or are empty.
FileDomains calc_file_domains(std::span<const Offset> st, std::span<const Offset> end, int naggs,
                              Offset min_fd_size, Offset striping_unit, Offset displacement = 0);

/// ADIOI_Calc_aggregator: the file-domain index holding byte `off`; clips `len` to what that domain
/// holds. Throws std::logic_error if the index falls outside the domains (ROMIO aborts).
int calc_aggregator(const FileDomains& fd, Offset off, Offset& len);

// ---- step 4: my_req (ADIOI_Calc_my_req)

struct MyReq {
  std::vector<std::int32_t> count;         ///< per rank: pieces of mine in its file domain (Alltoall'd)
  std::vector<std::vector<Offset>> pairs;  ///< per rank: offsets[count] then lens[count] (one message)
  std::vector<std::vector<Offset>> mem;    ///< per rank: buffer offset of each piece (non-contiguous memory)
  std::vector<Offset> buf_idx;             ///< per rank: where its data starts in my buffer, -1 if none
  int procs = 0;                           ///< ranks with count > 0
  std::int64_t tuples = 0;                 ///< pieces visited (two passes, as ROMIO)
};

/// Splits each piece of `a` at file-domain boundaries; domain k belongs to ranklist[k]. Throws
/// std::invalid_argument if a rank gets more than INT32_MAX pieces.
MyReq calc_my_req(const AccessList& a, const FileDomains& fd, std::span<const int> ranklist, int nprocs);

// ---- step 6e: the data-sieving decision of a write round (ADIOI_Heap_merge + hole check)

/// One sender's pieces in this round: offsets/lens of `count` pieces (the last one's length replaced by
/// `last_len` when > 0, a partial piece).
struct RoundPieces {
  const Offset* offsets = nullptr;
  const Offset* lens = nullptr;
  std::int64_t count = 0;
  Offset last_len = 0;
  /// The length of piece k.
  Offset len(std::int64_t k) const { return k == count - 1 && last_len > 0 ? last_len : lens[k]; }
};

/// Whether the senders' sorted pieces, coalesced in file order, leave [off, off+size) a hole at the front,
/// in the middle or at the end; `steps` receives the operations ROMIO's heap merge of them performs
/// (pieces x heap depth), which is what a rank is charged.
bool window_has_hole(std::span<const RoundPieces> senders, Offset off, Offset size, std::int64_t& steps);

// ---- the techniques

/// "" when two-phase can run `d` (any partition of x; no overlapping entries).
std::string check(const Distribution& d);

/// MPI_File_write_all of the rank's entries through a file view that places them at their logical
/// offsets, `iterations` times. The aggregators are chosen once, as ROMIO does at MPI_File_open.
void run_write(Process& p, const TechniqueInput& in, LocalData local);

/// MPI_File_read_all of the rank's entries into `out` (its storage order), `iterations` times.
void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out);

/// The file as an operation sequence opens it (algorithms/common/session.hpp): the aggregators chosen once
/// at the open, as ROMIO's MPI_File_open does (the processor names once per communicator), then every
/// write_all / read_all with them. With hints.lap each write runs the LAP kernel's call as run_write does.
std::unique_ptr<Session> make_session(Process& p, const TechniqueInput& in);

}  // namespace ciosim::two_phase
