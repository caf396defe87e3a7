// Operation sequences: what an application does with one shared file over its run — open, set a view, write
// and read it several times with computation between, sync, close, open again — and the driver that runs a
// technique through such a sequence on every rank, through the Process seam (so the simulator and the MPI
// backend run it alike).
//
// Cached collective buffers (J. García Blas, F. Isaila, D. E. Singh, J. Carretero, "View-based collective
// I/O for MPI-IO", CCGrid 2008) only pay when the file stays open across several collective calls; its
// benchmarks (NAS BT-IO: 40 writes of successive time steps, then 40 reads; MPI-Tile-IO; coll_perf with and
// without a close between its write and its read) are such sequences.
//
// The text form, `run.sequence` (docs/results.md, "Operation sequences"):
//
//     sequence := item*            item := op | "(" sequence ")*" N
//     op := open | close | write | read | write/N | read/N | sync | next | view:BYTES | compute:SECONDS
//         | compute:workload
//
// - `open` opens the file and sets the view at displacement 0 (the workload's filetype); `close` writes
//   back what a technique still holds (write-on-close) and closes it.
// - `write` / `read`: one collective call of every rank's entries through the view, at the current offset.
// - `write/N` / `read/N`: one collective call of the next N-th of every rank's entries (in its view's
//   order), a call on part of the view, as an application writes its view in pieces (MPI_File_write_all of
//   fewer elements than the view holds, the file pointer moving on). N consecutive ones (computation and
//   sync may come between) make one step; a step begun must end before next, view:, close or another kind
//   of access. Only a technique that keeps the views between calls can do it (view-based).
// - `next`: the calls that follow go one step further (the offset grows by one step, the bytes one write
//   of the workload covers): MPI_File_write_at_all's explicit offset, as NPB BT-IO moves from one time step
//   to the next. No new view is set.
// - `view:BYTES`: MPI_File_set_view at displacement BYTES (a multiple of the element size), offset 0.
// - `sync`: MPI_File_sync. `compute:SECONDS`: every rank computes (CPU time, not I/O); `compute:workload`:
//   the workload's own computation between two outputs (btio: five BT time steps).
//
// The data: the entries written at byte position B (the view's displacement plus the offset) carry the
// values of x shifted by B / element_size (fill_entry(B / es + i)), so every step holds distinct values and a
// read or a file check finds data that landed at the wrong step.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "algorithms/technique.hpp"

namespace ciosim {

enum class OpKind { Open, Close, Write, Read, Sync, Next, View, Compute };

/// One operation of a sequence, after expansion of its repetitions.
struct Op {
  OpKind kind = OpKind::Open;
  Offset bytes = 0;       ///< view: the displacement in bytes
  double seconds = 0;     ///< compute: seconds of CPU work (compute:workload resolved)
  bool workload = false;  ///< compute:workload (seconds filled from the workload by resolve_compute)
  int parts = 1;          ///< write/N, read/N: N (1: a whole-view write or read)
  bool operator==(const Op&) const = default;
};

/// The name of an operation as results report it ("write", "view:4096", "compute").
std::string op_name(const Op& op);

/// At most this many operations after expansion (a bound on the work a typo can ask for).
constexpr std::int64_t kMaxSequenceOps = 1000000;

/// Parses and expands `text`. Throws std::invalid_argument with one line naming what is wrong, where, and
/// the valid operations.
std::vector<Op> parse_sequence(const std::string& text);

/// Checks the structure: the file is opened before any other operation and closed at the end, never
/// opened twice; at least one write or read. Throws std::invalid_argument (one line).
void check_sequence(const std::vector<Op>& ops, std::int64_t element_size);

/// Fills the seconds of every compute:workload with `workload_s`; throws std::invalid_argument when the
/// sequence has one and the workload defines none (workload_s < 0).
void resolve_compute(std::vector<Op>& ops, double workload_s, const std::string& workload);

/// Everything a point does with its `run.sequence` before it runs: parse, check_sequence, resolve_compute,
/// and, when `tech` is given, that it can read if the sequence reads (a session or a read path). Throws
/// std::invalid_argument (one line). The one preparation the scenario check, the simulator and the MPI
/// backend share.
std::vector<Op> prepare_sequence(const std::string& text, const TechniqueInfo* tech,
                                 std::int64_t element_size, double workload_s, const std::string& workload);

/// Where each write and read of the sequence lands: the byte position B of its step (view displacement
/// plus offset), in sequence order. `step_bytes` is one write's extent in the file.
struct StepAccess {
  bool write = true;
  Offset position = 0;
};
std::vector<StepAccess> sequence_accesses(const std::vector<Op>& ops, Offset step_bytes);

/// The value base of a step at byte position `position`: position / element_size.
std::int64_t value_base(Offset position, std::int64_t element_size);

/// One write's extent in the file: the bytes of the file `layout` makes of `d` (Nx entries for the
/// logical layout).
Offset step_bytes(const Distribution& d, FileLayout layout, std::int64_t element_size);

/// The session a technique keeps while the file is open: its own (TechniqueInfo::session), or one that runs
/// the technique once per call at the current view's displacement. Call after Process::file_open.
std::unique_ptr<Session> open_session(Process& p, const TechniqueInfo& tech, const TechniqueInput& in);

/// Runs `ops` on p's rank with technique `tech`: opens, sets views, writes the rank's entries (the values
/// of their step), reads them back and compares, computes, syncs and closes, marking each operation
/// (Process::operation) and the phases around the technique's own. Returns false when a read returned
/// bytes other than those its step holds.
bool run_sequence(Process& p, const TechniqueInfo& tech, const TechniqueInput& in,
                  const std::vector<Op>& ops);

/// The steps to lay out in the file before the run (untimed): those the sequence reads before it writes
/// them, each as (position, the step's bytes as `layout` puts them).
std::vector<std::pair<Offset, std::vector<std::byte>>> sequence_initial_steps(const Distribution& d,
                                                                              FileLayout layout,
                                                                              std::int64_t element_size,
                                                                              const std::vector<Op>& ops);

/// Checks the file a sequence left: every step it wrote or laid out holds that step's bytes, every other
/// byte is zero, and the file ends with its last step. Returns "" when it does, else one line saying where
/// it differs. One step is built at a time (memory: one step, not the whole file).
std::string check_sequence_file(std::span<const std::byte> file, const Distribution& d, FileLayout layout,
                                std::int64_t element_size, const std::vector<Op>& ops);

}  // namespace ciosim
