// An application's MPI-IO calls replayed one by one (a captured trace, config/trace_replay.hpp): its
// collective calls run under the technique a scenario names, its independent calls as the rank's own
// requests, the time between its calls as computation; every rank through the Process seam, so the simulator
// and the MPI backend run the same calls.
//
// A collective data call k (MPI_File_write_all, write_at_all, read_all, read_at_all) is the same call on
// every rank. Its ranks' file regions must together cover a contiguous range [a_k, b_k) of the file exactly
// once: that range is the call's x, distributed over the ranks as their regions say (a "shape", shared by the
// calls whose regions are the same relative to their start), and the technique serves it at view displacement
// a_k. An independent call (write, write_at, read, read_at) is one request per contiguous region, at the
// regions' absolute positions, as the independent baseline makes them.
//
// The data: every byte position B of the file carries the value of entry B / element_size
// (fill_entry), whichever call writes it, so the file check is the union of what was written (and laid out
// before the run for the calls that read), and every read knows what it must find.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "algorithms/technique.hpp"

namespace ciosim {

/// One collective data call, the same on every rank.
struct ReplayStep {
  std::string name;     ///< the call as captured: "write_all", "write_at_all", "read_all", "read_at_all"
  bool write = true;    ///< a write (else a read)
  Offset position = 0;  ///< a_k: the first byte of the call's range (a multiple of the element size)
  int shape = 0;        ///< index into Replay::shapes: the call's x over the ranks, entries from a_k
  /// The application set a view (MPI_File_set_view) since its previous collective data call: the technique
  /// sets its view here even when the shape did not change.
  bool view_set = false;
};

enum class ReplayKind { Open, Close, Sync, Collective, IndependentWrite, IndependentRead, Compute };

/// One thing a rank does, in its order.
struct ReplayAction {
  ReplayKind kind = ReplayKind::Open;
  std::int64_t step = -1;    ///< Collective: index into Replay::steps
  std::vector<Extent> runs;  ///< Independent*: the file bytes, in the order the data fills them
  double seconds = 0;        ///< Compute: the application's own time between two calls
};

struct Replay {
  std::int64_t element_size = 1;
  std::vector<Distribution> shapes;
  std::vector<ReplayStep> steps;
  std::vector<std::vector<ReplayAction>> ranks;  ///< per rank
};

/// The values of file bytes [offset, offset + out.size()) (whole entries of `element_size` bytes from a whole
/// entry): entry B / element_size at byte B, whichever call writes it.
void replay_values(Offset offset, std::span<std::byte> out, std::int64_t element_size);

/// "" when technique `tech` can replay `r`: it lays x out in its order (not Block I/O's rank-major file),
/// reads where the replay reads, and accepts every shape (TechniqueInfo::check). Else one line naming the
/// first call it cannot serve and why.
std::string replay_refusal(const TechniqueInfo& tech, const Replay& r);

/// Runs p's rank's actions with technique `tech` (in.dist is ignored: each call brings its shape). Marks
/// every collective action as an operation (the same on every rank: "open", the call's name, "sync",
/// "close") and the independent calls and computation as phases ("independent_write", "independent_read",
/// "compute"). Returns false when a read returned bytes other than the file's.
bool run_replay(Process& p, const TechniqueInfo& tech, const TechniqueInput& in, const Replay& r);

/// The file before the run: every byte a call of `r` reads, with its value (the application's input). Empty
/// when nothing is read.
std::vector<std::byte> replay_initial_file(const Replay& r);

/// "" when `file` is what `r` leaves: every byte written or laid out holds its value, every other byte is
/// zero, and the file ends with the last of them. Else one line saying where it differs.
std::string check_replay_file(std::span<const std::byte> file, const Replay& r);

}  // namespace ciosim
