// ROMIO two-phase collective read (ADIOI_GEN_ReadStridedColl -> ADIOI_Read_and_exch ->
// ADIOI_R_Exchange_data), reimplemented (docs/two-phase.md: a read shares the write's phases up to
// metadata_exchange; checked against ROMIO adio/common/ad_read_coll.c; no code copied).
// Thakur, Choudhary, "An Extended Two-Phase Method for Accessing Sections of Out-of-Core Arrays",
// Scientific Programming 5(4), 1996.
//
// Every window that holds a request is read whole (holes too: aggregator-side data sieving). ROMIO's
// carry-over of bytes read for the next round ("for_next_iter") only arises when one rank's pieces overlap
// each other; a Distribution is a partition, so it is always zero here and not modelled.
#include <algorithm>
#include <stdexcept>

#include "algorithms/two_phase/cb_config_list.hpp"
#include "algorithms/two_phase/two_phase_internal.hpp"

namespace ciosim::two_phase {

namespace {

using namespace detail;

struct ReadState {
  Collective& col;
  const CallContext& ctx;
  std::span<std::byte> out;
  Cursor cur;
  payload::Buffer window;        ///< the collective buffer (read_buf)
  std::vector<Offset> buf_idx;   ///< contiguous buffer: where the next bytes from each rank go
  std::vector<std::size_t> got;  ///< non-contiguous buffer: pieces of my_req[i] filled
  std::vector<Offset> got_part;  ///< ... and bytes of the next one
  ReadState(Collective& c, const CallContext& x, std::span<std::byte> o, std::size_t P)
      : col(c), ctx(x), out(o), cur(P), buf_idx(c.my.buf_idx), got(P, 0), got_part(P, 0) {}
};

/// ADIOI_Fill_user_buffer: scatters what each aggregator sent into my non-contiguous buffer.
void fill_user_buffer(ReadState& s, const std::vector<std::int32_t>& recv_size,
                      const std::vector<payload::Buffer>& staging) {
  for (std::size_t i = 0; i < recv_size.size(); ++i) {
    Offset left = recv_size[i];
    std::size_t pos = 0;
    const auto c = static_cast<std::size_t>(s.col.my.count[i]);
    while (left > 0) {
      const std::size_t k = s.got[i];
      const Offset len = s.col.my.pairs[i][c + k];
      const Offset take = std::min(left, len - s.got_part[i]);
      payload::copy(s.out.subspan(static_cast<std::size_t>(s.col.my.mem[i][k] + s.got_part[i]),
                                  static_cast<std::size_t>(take)),
                    staging[i].span().subspan(pos, static_cast<std::size_t>(take)));
      pos += static_cast<std::size_t>(take);
      left -= take;
      s.got_part[i] += take;
      if (s.got_part[i] == len) {
        ++s.got[i];
        s.got_part[i] = 0;
      }
    }
  }
}

/// ADIOI_R_Exchange_data for round `iter` (window starting at `off`).
void exchange(Process& p, ReadState& s, int iter, Offset off) {
  const int P = p.size();
  const int me = p.rank();
  const auto n = static_cast<std::size_t>(P);
  Cursor& c = s.cur;
  p.phase("exchange");
  std::vector<std::int32_t> recv_size(n, 0);
  p.alltoall(as_bytes(c.bytes), as_writable_bytes(recv_size));

  const bool contig = s.col.access.memory_contiguous();
  std::vector<Request> recvs;
  std::vector<payload::Buffer> staging(contig ? 0 : n);
  for (int i = 0; i < P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (recv_size[u] == 0) continue;
    const auto len = static_cast<std::size_t>(recv_size[u]);
    if (contig) {
      recvs.push_back(p.irecv(i, data_tag(*s.ctx.hints, me, i, iter),
                              s.out.subspan(static_cast<std::size_t>(s.buf_idx[u]), len)));
      s.buf_idx[u] += recv_size[u];
    } else {
      staging[u] = payload::Buffer(len);
      recvs.push_back(p.irecv(i, data_tag(*s.ctx.hints, me, i, iter), staging[u]));
    }
  }
  // One Isend per destination of an hindexed datatype over the window: MPI packs it (charged).
  std::vector<Request> sends;
  std::vector<payload::Buffer> packed(n);
  std::int64_t packed_bytes = 0;
  std::int64_t packed_pieces = 0;
  for (int i = 0; i < P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (c.bytes[u] == 0) continue;
    packed[u] = payload::Buffer(static_cast<std::size_t>(c.bytes[u]));
    copy_pieces(s.col.others, c, u, off, s.window, packed[u], false);
    packed_bytes += c.bytes[u];
    packed_pieces += c.count[u];
  }
  // The library (run.cpu_charge = library) builds a send datatype over the pieces: its measured cost
  // per piece, in place of the tuples of ciosim's packing.
  if (packed_bytes > 0)
    p.compute(Work{.bytes_copied = packed_bytes,
                   .tuples = s.ctx.library ? 0 : 2 * packed_pieces,
                   .library_pieces = s.ctx.library ? packed_pieces : 0});
  for (int i = 0; i < P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (c.bytes[u] > 0) sends.push_back(p.isend(i, data_tag(*s.ctx.hints, me, i, iter), packed[u]));
  }
  if (!recvs.empty()) {
    p.waitall(recvs);
    if (!contig) {
      fill_user_buffer(s, recv_size, staging);
      std::int64_t bytes = 0;
      for (std::int32_t v : recv_size) bytes += v;
      p.compute(Work{.bytes_copied = bytes, .tuples = s.col.access.count()});
    }
  }
  p.waitall(sends);  // always called
}

void read_and_exch(Process& p, Collective& col, const CallContext& ctx, std::span<std::byte> out) {
  const IoHints& h = *ctx.hints;
  const auto n = static_cast<std::size_t>(p.size());
  p.phase("exchange");
  const DataExtent ext = data_extent(col.others, h.cb_buffer_size);
  p.compute(Work{.bytes_copied = 0, .tuples = ext.tuples, .step = Step::Windows});
  std::int64_t max_ntimes[1] = {ext.ntimes};
  p.allreduce_max(max_ntimes);

  ReadState s(col, ctx, out, n);
  if (ext.ntimes > 0)
    s.window =
        payload::Buffer(static_cast<std::size_t>(std::min(h.cb_buffer_size, ext.end_loc - ext.st_loc + 1)));
  Offset off = ext.st_loc;
  Offset done = 0;
  for (int m = 0; m < ext.ntimes; ++m) {
    p.phase("exchange");
    const Offset size = std::min(h.cb_buffer_size, ext.end_loc - ext.st_loc + 1 - done);
    p.compute(
        Work{.bytes_copied = 0, .tuples = walk_window(col.others, s.cur, off, size), .step = Step::Windows});
    if (std::any_of(s.cur.count.begin(), s.cur.count.end(), [](std::int64_t v) { return v > 0; })) {
      p.phase("read");
      p.read_at(off, s.window.span().first(static_cast<std::size_t>(size)));
    }
    exchange(p, s, m, off);
    off += size;
    done += size;
  }
  std::fill(s.cur.count.begin(), s.cur.count.end(), 0);
  std::fill(s.cur.bytes.begin(), s.cur.bytes.end(), 0);
  for (std::int64_t m = ext.ntimes; m < max_ntimes[0]; ++m) exchange(p, s, static_cast<int>(m), off);
}

}  // namespace

namespace detail {

void read_all(Process& p, const Datatype& dt, std::int64_t element_size, const CallContext& ctx,
              std::span<std::byte> out) {
  std::optional<Collective> col = prepare(p, dt, element_size, ctx, ctx.hints->cb_read);
  if (!col) {
    independent_read(p, dt, element_size, *ctx.hints, out);
    return;
  }
  read_and_exch(p, *col, ctx, out);
}

void check_read(const IoHints& h) {
  if (h.lap != LapCriterion::None)
    throw std::invalid_argument(
        std::string("hints.lap = ") + lap_criterion_name(h.lap) +
        " applies to collective writes only (run.access = write), as in the BIPS3D kernel");
}

}  // namespace detail

void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out) {
  check_input(p, in, out.size(), "two-phase");
  check_hints(in.hints);
  check_read(in.hints);
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  p.phase("aggregators");  // what MPI_File_open does for cb_config_list
  CallContext ctx{&in.hints, select_aggregators(p, in.hints), false, in.cpu_charge == CpuCharge::library};
  for (int it = 0; it < in.iterations; ++it) read_all(p, dt, in.element_size, ctx, out);
}

}  // namespace ciosim::two_phase
