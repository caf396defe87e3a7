// ROMIO two-phase collective write (ADIOI_GEN_WriteStridedColl -> ADIOI_Exch_and_write ->
// ADIOI_W_Exchange_data), reimplemented (docs/two-phase.md, the exchange, write and sync phases;
// checked against ROMIO adio/common/ad_write_coll.c; no code copied).
// Thakur, Choudhary, "An Extended Two-Phase Method for Accessing Sections of Out-of-Core Arrays",
// Scientific Programming 5(4), 1996; Thakur, Gropp, Lusk, "Data Sieving and Collective I/O in ROMIO",
// Frontiers '99.
//
// Data movement: an aggregator receives each sender's bytes of a round as one message (MPI receives them
// through an hindexed datatype at absolute addresses in the collective buffer); here they arrive in a
// staging buffer and are scattered into the collective buffer, and that unpacking is charged as CPU work
// (bytes copied, one tuple per piece), which is what the MPI library does for a noncontiguous receive.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "algorithms/lap/lap_write.hpp"
#include "algorithms/two_phase/cb_config_list.hpp"
#include "algorithms/two_phase/two_phase_internal.hpp"

namespace ciosim::two_phase {

namespace {

using namespace detail;

struct WriteState {
  Collective& col;
  const CallContext& ctx;
  LocalData local;
  Cursor cur;
  payload::Buffer window;         ///< the collective buffer (write_buf)
  std::vector<Offset> buf_idx;    ///< contiguous buffer: next byte to send to each rank
  std::vector<std::size_t> sent;  ///< non-contiguous buffer: pieces of my_req[i] fully sent
  std::vector<Offset> sent_part;  ///< ... and bytes of the next one already sent
  WriteState(Collective& c, const CallContext& x, LocalData l, std::size_t P)
      : col(c), ctx(x), local(l), cur(P), buf_idx(c.my.buf_idx), sent(P, 0), sent_part(P, 0) {}
};

/// ADIOI_Fill_send_buffer for a non-contiguous buffer: packs send_size[i] bytes for each destination from
/// my pieces in file order. ROMIO walks the whole offset list every round; that walk is what is charged.
payload::Buffer fill_send_buffer(WriteState& s, const std::vector<std::int32_t>& send_size,
                                 std::vector<std::size_t>& start) {
  const std::size_t P = send_size.size();
  std::int64_t total = 0;
  for (std::int32_t v : send_size) total += v;
  payload::Buffer buf(static_cast<std::size_t>(total));
  // Elided: the pieces' ranges of my buffer gathered in one walk, then assigned at once.
  const bool gather = buf.elided() && payload::is_elided(s.local);
  thread_local std::vector<payload::Range> from;
  from.clear();
  std::size_t pos = 0;
  for (std::size_t i = 0; i < P; ++i) {
    start[i] = pos;
    Offset need = send_size[i];
    const auto c = static_cast<std::size_t>(s.col.my.count[i]);
    while (need > 0) {
      const std::size_t k = s.sent[i];
      const Offset len = s.col.my.pairs[i][c + k];
      const Offset take = std::min(need, len - s.sent_part[i]);
      const Offset at = s.col.my.mem[i][k] + s.sent_part[i];
      if (gather)
        payload::append(from, payload::Range{at, take});  // joins a range that continues the last one
      else
        payload::copy(buf.span().subspan(pos, static_cast<std::size_t>(take)),
                      s.local.subspan(static_cast<std::size_t>(at), static_cast<std::size_t>(take)));
      pos += static_cast<std::size_t>(take);
      need -= take;
      s.sent_part[i] += take;
      if (s.sent_part[i] == len) {
        ++s.sent[i];
        s.sent_part[i] = 0;
      }
    }
  }
  if (gather) {
    thread_local std::vector<payload::Piece> ps;
    ps.clear();
    payload::append_pieces(ps, s.local, from);
    payload::assign(buf, ps);
  }
  return buf;
}

/// ADIOI_W_Exchange_data for round `iter` and window [off, off+size) (size 0 past my own rounds).
void exchange(Process& p, WriteState& s, int iter, Offset off, Offset size) {
  const int P = p.size();
  const int me = p.rank();
  const auto n = static_cast<std::size_t>(P);
  OthersReq& o = s.col.others;
  Cursor& c = s.cur;
  p.phase(s.ctx.phase(Stage::Exchange));
  std::vector<std::int32_t> send_size(n, 0);
  p.alltoall(as_bytes(c.bytes), as_writable_bytes(send_size));

  int nprocs_recv = 0;
  std::int64_t sum = 0;
  std::vector<RoundPieces> pieces;
  for (std::size_t i = 0; i < n; ++i) {
    sum += c.count[i];
    if (c.bytes[i] > 0) ++nprocs_recv;
    if (c.count[i] > 0) pieces.push_back(round_pieces(o, c, i));
  }
  std::int64_t merge_steps = 0;
  const bool hole = sum > 0 && window_has_hole(pieces, off, size, merge_steps);
  // Receive datatypes (hindexed, one entry per piece) and the heap merge of the hole test; the library's
  // (run.cpu_charge = library) at its measured cost per piece, which covers the unpacking below too.
  if (s.ctx.library)
    p.compute(Work{.library_pieces = sum});
  else
    p.compute(Work{.bytes_copied = 0, .tuples = sum + merge_steps, .step = Step::Windows});
  if (nprocs_recv > 0 && hole) {
    p.phase(s.ctx.phase(Stage::Write));  // read-modify-write: the window has holes
    p.read_at(off, s.window.span().first(static_cast<std::size_t>(size)));
    p.phase(s.ctx.phase(Stage::Exchange));
  }

  std::vector<Request> reqs;
  std::vector<payload::Buffer> staging(n);
  for (int i = 0; i < P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (c.bytes[u] == 0) continue;
    staging[u] = payload::Buffer(static_cast<std::size_t>(c.bytes[u]));
    reqs.push_back(p.irecv(i, data_tag(*s.ctx.hints, me, i, iter), staging[u]));
  }
  payload::Buffer packed;
  std::vector<std::size_t> packed_at(n, 0);
  const bool contig = s.col.access.memory_contiguous();
  if (!contig && std::any_of(send_size.begin(), send_size.end(), [](std::int32_t v) { return v > 0; })) {
    packed = fill_send_buffer(s, send_size, packed_at);
    p.compute(Work{.bytes_copied = static_cast<std::int64_t>(packed.size()), .tuples = s.col.access.count()});
  }
  for (int i = 0; i < P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (send_size[u] == 0) continue;
    const auto len = static_cast<std::size_t>(send_size[u]);
    if (contig) {
      reqs.push_back(p.isend(i, data_tag(*s.ctx.hints, me, i, iter),
                             s.local.subspan(static_cast<std::size_t>(s.buf_idx[u]), len)));
      s.buf_idx[u] += send_size[u];
    } else {
      reqs.push_back(
          p.isend(i, data_tag(*s.ctx.hints, me, i, iter), packed.span().subspan(packed_at[u], len)));
    }
  }
  p.waitall(reqs);  // always called, even with no requests

  fill_window(o, c, off, s.window, staging);
  std::int64_t received = 0;
  for (std::size_t i = 0; i < n; ++i) received += c.bytes[i];
  if (received > 0) p.compute(Work{.bytes_copied = received, .tuples = s.ctx.library ? 0 : sum});
}

/// ADIOI_Exch_and_write plus the closing error-code collective.
void exch_and_write(Process& p, Collective& col, const CallContext& ctx, LocalData local) {
  const IoHints& h = *ctx.hints;
  const auto n = static_cast<std::size_t>(p.size());
  p.phase(ctx.phase(Stage::Exchange));
  const DataExtent ext = data_extent(col.others, h.cb_buffer_size);
  p.compute(Work{.bytes_copied = 0, .tuples = ext.tuples, .step = Step::Windows});
  std::int64_t max_ntimes[1] = {ext.ntimes};
  p.allreduce_max(max_ntimes);

  WriteState s(col, ctx, local, n);
  if (ext.ntimes > 0)
    s.window =
        payload::Buffer(static_cast<std::size_t>(std::min(h.cb_buffer_size, ext.end_loc - ext.st_loc + 1)));
  Offset off = ext.st_loc;
  Offset done = 0;
  Offset size = 0;
  for (int m = 0; m < ext.ntimes; ++m) {
    p.phase(ctx.phase(Stage::Exchange));
    size = std::min(h.cb_buffer_size, ext.end_loc - ext.st_loc + 1 - done);
    p.compute(
        Work{.bytes_copied = 0, .tuples = walk_window(col.others, s.cur, off, size), .step = Step::Windows});
    exchange(p, s, m, off, size);
    if (std::any_of(s.cur.count.begin(), s.cur.count.end(), [](std::int64_t v) { return v > 0; })) {
      p.phase(ctx.phase(Stage::Write));
      p.write_at(off, s.window.span().first(static_cast<std::size_t>(size)));
    }
    off += size;
    done += size;
  }
  std::fill(s.cur.count.begin(), s.cur.count.end(), 0);
  std::fill(s.cur.bytes.begin(), s.cur.bytes.end(), 0);
  for (std::int64_t m = ext.ntimes; m < max_ntimes[0]; ++m) exchange(p, s, static_cast<int>(m), off, size);

  // Error-code agreement, which also keeps later independent writes from overtaking this one.
  p.phase("sync");
  if (ctx.ranklist.size() == 1) {
    std::int32_t error = 0;
    p.bcast(std::as_writable_bytes(std::span(&error, 1)), ctx.ranklist.front());
  } else {
    std::int64_t error[1] = {0};
    p.allreduce_max(error);
  }
}

}  // namespace

namespace detail {

void write_all(Process& p, const Datatype& dt, std::int64_t element_size, const CallContext& ctx,
               LocalData local) {
  std::optional<Collective> col = prepare(p, dt, element_size, ctx, ctx.hints->cb_write);
  if (!col) {
    independent_write(p, dt, element_size, *ctx.hints, local, ctx.phase(Stage::Write));
    return;
  }
  exch_and_write(p, *col, ctx, local);
}

}  // namespace detail

void run_write(Process& p, const TechniqueInput& in, LocalData local) {
  check_input(p, in, local.size(), "two-phase");
  check_hints(in.hints);
  if (in.hints.lap != LapCriterion::None) {
    lap::run_write(p, in, local);
    return;
  }
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  p.phase("aggregators");  // what MPI_File_open does for cb_config_list
  CallContext ctx{&in.hints, select_aggregators(p, in.hints), false, in.cpu_charge == CpuCharge::library};
  for (int it = 0; it < in.iterations; ++it) write_all(p, dt, in.element_size, ctx, local);
}

}  // namespace ciosim::two_phase
