// Shared by two_phase_common.cpp, two_phase_write.cpp and two_phase_read.cpp (not a public interface).
// ROMIO extended two-phase I/O, reimplemented step by step (docs/two-phase.md).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "algorithms/common/payload.hpp"
#include "algorithms/two_phase/two_phase.hpp"

namespace ciosim::two_phase::detail {

/// others_req: per rank, the pieces of its access that lie in my file domain (what ADIOI_Calc_others_req
/// receives). pairs[i] holds offsets[count] then lens[count], as the modern single message carries them.
struct OthersReq {
  std::vector<std::int32_t> count;
  std::vector<std::vector<Offset>> pairs;
  int procs = 0;
  Offset* offsets(std::size_t i) { return pairs[i].data(); }
  Offset* lens(std::size_t i) { return pairs[i].data() + count[i]; }
};

/// The state after steps 1-5 of a collective call.
struct Collective {
  AccessList access;
  FileDomains fd;
  MyReq my;
  OthersReq others;
};

/// The phases of a collective write. Their names are ROMIO's steps ("offsets", ...); with
/// `vecpar_stages` (the LAP path) they are the stages of the VECPAR 2008 slides: st1_offsets,
/// st2_offsets_exchange, st4_file_domains, st5_requests, st6_metadata_exchange, st7_exchange, st8_write
/// (st3_lap is the LAP assignment itself). Existing scenarios keep ROMIO's names, so their results do not
/// change.
enum class Stage { Offsets, OffsetsExchange, FileDomains, Requests, MetadataExchange, Exchange, Write };
const char* stage_name(Stage s, bool vecpar_stages);

/// The striping unit file domains are aligned to: the striping_unit hint in modern ROMIO, none in 2007
/// (alignment came in 2008).
inline Offset domain_alignment(const IoHints& h) {
  return h.version == RomioVersion::Modern ? h.striping_unit : 0;
}

/// What one rank of a collective call needs besides the plan.
struct CallContext {
  const IoHints* hints = nullptr;
  std::vector<int> ranklist;   ///< aggregators in file-domain order (from the open)
  bool vecpar_stages = false;  ///< name the phases st1..st8 (see Stage)
  bool library = false;        ///< charge ROMIO's per-piece work (run.cpu_charge = library)
  const char* phase(Stage s) const { return stage_name(s, vecpar_stages); }
};

/// One MPI_File_write_all (steps 1-7) with the aggregators of `ctx`: the independent path or two-phase.
void write_all(Process& p, const Datatype& dt, std::int64_t element_size, const CallContext& ctx,
               LocalData local);

/// One MPI_File_read_all (steps 1-7) with the aggregators of `ctx`: the independent path or two-phase.
void read_all(Process& p, const Datatype& dt, std::int64_t element_size, const CallContext& ctx,
              std::span<std::byte> out);
/// Throws std::invalid_argument when the hints ask for what reads do not do (the LAP assignment).
void check_read(const IoHints& h);

/// Steps 1-5 (offsets, the two Allgathers, the interleave test, file domains, my_req, others_req).
/// Returns nothing when the call goes independent (mode disable, or automatic without interleaving); then
/// `access` holds the rank's access list (computed only when mode != disable, as ROMIO).
std::optional<Collective> prepare(Process& p, const Datatype& dt, std::int64_t element_size,
                                  const CallContext& c, CbMode mode);

/// Step 2's independent path: one contiguous write_at/read_at when the rank's access is one piece in
/// storage order, else list I/O in batches of hints.listio_batch (ROMIO's PVFS2 WriteStrided/ReadStrided).
void independent_write(Process& p, const Datatype& dt, std::int64_t element_size, const IoHints& h,
                       LocalData local, const char* phase = "write");
void independent_read(Process& p, const Datatype& dt, std::int64_t element_size, const IoHints& h,
                      std::span<std::byte> out);

/// st_loc, end_loc over others_req (the data extent inside my file domain) and ntimes; tuples walked.
struct DataExtent {
  Offset st_loc = -1;
  Offset end_loc = -1;
  std::int32_t ntimes = 0;
  std::int64_t tuples = 0;
};
DataExtent data_extent(const OthersReq& o, Offset cb_buffer_size);

/// Per-sender cursor over others_req during the rounds (curr_offlen_ptr, partial, start_pos, count).
struct Cursor {
  std::vector<std::int64_t> curr;   ///< next piece to consider
  std::vector<Offset> partial;      ///< bytes of piece `curr` already handled (partial_recv/partial_send)
  std::vector<std::int64_t> start;  ///< first piece of this round
  std::vector<std::int64_t> count;  ///< pieces (whole or partial) in this round
  std::vector<Offset> last_len;     ///< length of the round's last piece when it is partial, else 0
  std::vector<std::int32_t> bytes;  ///< bytes of this round (recv_size on write, send_size on read)
  explicit Cursor(std::size_t P)
      : curr(P, 0), partial(P, 0), start(P, 0), count(P, 0), last_len(P, 0), bytes(P, 0) {}
};

/// Sender i's pieces of this round in others_req (from the cursor's start, count and partial last piece).
RoundPieces round_pieces(OthersReq& o, const Cursor& c, std::size_t i);

/// The round's walk over others_req for the window [off, off+size) (ROMIO's loop before the exchange):
/// applies last round's partial piece, counts the pieces and bytes falling in the window. Returns the
/// pieces visited.
std::int64_t walk_window(OthersReq& o, Cursor& c, Offset off, Offset size);

/// Data tag of round `iter` between me and `peer`: 0 in modern ROMIO, myrank+peer+100*iter in 2007.
int data_tag(const IoHints& h, int me, int peer, int iter);

/// Copies the bytes of `count` pieces of `o`'s sender i (this round's, the last maybe partial) between the
/// window buffer (window starts at file offset `off`) and a packed stream. to_window: stream -> window.
void copy_pieces(OthersReq& o, const Cursor& c, std::size_t i, Offset off, std::span<std::byte> window,
                 std::span<std::byte> stream, bool to_window);

/// copy_pieces(..., to_window = true) for every sender with bytes this round: sender by sender, as ROMIO's
/// loop does, or, when the window is elided and no two pieces overlap, in file order over all senders
/// (the same bytes land in the same places either way). In file order an elided window grows by joining
/// its last piece; sender by sender, a fine distribution leaves it a piece per entry until it is full.
void fill_window(OthersReq& o, const Cursor& c, Offset off, std::span<std::byte> window,
                 std::vector<payload::Buffer>& streams);

}  // namespace ciosim::two_phase::detail
