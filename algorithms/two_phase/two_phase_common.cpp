// ROMIO two-phase I/O, the steps shared by write and read (docs/two-phase.md, the phases up to
// metadata_exchange; ROMIO adio/common/ad_write_coll.c, ad_read_coll.c, ad_aggregate.c, reimplemented, no
// code copied): ADIOI_Calc_my_off_len, the two MPI_Allgathers of start/end offsets, the interleave test, the
// independent fallback, ADIOI_Calc_file_domains, ADIOI_Calc_my_req and ADIOI_Calc_others_req.
// Thakur, Choudhary, "An Extended Two-Phase Method for Accessing Sections of Out-of-Core Arrays",
// Scientific Programming 5(4), 1996.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "algorithms/baselines/list_io.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/two_phase/file_order.hpp"
#include "algorithms/two_phase/two_phase_internal.hpp"

namespace ciosim::two_phase {

std::string check(const Distribution& d) {
  if (std::string why = check_partition(d); !why.empty()) return "two-phase needs a partition of x: " + why;
  return "";
}

namespace detail {

namespace {

/// One rank's offset/length list for one aggregator, as the modern message of ADIOI_Calc_others_req
/// carries it (count offsets then count lengths, 8 bytes each), handed over whole (Process::isend_shared)
/// when the sender reads it no more. The receiver takes the list itself when it holds the only reference
/// (the simulator hands over the sender's object; MPI decodes a fresh one), so the list is never held twice.
class PairsMessage final : public SharedMessage {
 public:
  explicit PairsMessage(std::vector<Offset> pairs) : pairs_(std::move(pairs)) {}
  std::int64_t wire_size() const override {
    return static_cast<std::int64_t>(pairs_.size() * sizeof(Offset));
  }
  void serialize(std::span<std::byte> out) const override {
    if (out.size() != pairs_.size() * sizeof(Offset))
      throw std::logic_error("two-phase: an offset/length list serialized into a buffer of the wrong size");
    std::memcpy(out.data(), pairs_.data(), out.size());
  }
  std::span<const std::byte> wire_bytes() const override { return std::as_bytes(std::span(pairs_)); }
  static SharedMessagePtr decode(std::span<const std::byte> bytes) {
    if (bytes.size() % sizeof(Offset) != 0)
      throw std::invalid_argument("two-phase: an offset/length list of " + std::to_string(bytes.size()) +
                                  " bytes is not a whole number of 8-byte values");
    std::vector<Offset> v(bytes.size() / sizeof(Offset));
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return std::make_shared<const PairsMessage>(std::move(v));
  }
  /// The list of a received message: moved out when `m` is its only holder, else copied.
  static std::vector<Offset> take(SharedMessagePtr m) {
    const auto* msg = dynamic_cast<const PairsMessage*>(m.get());
    if (msg == nullptr) throw std::invalid_argument("two-phase: no offset/length list from a peer");
    return m.use_count() == 1 ? std::move(msg->pairs_) : msg->pairs_;
  }

 private:
  mutable std::vector<Offset> pairs_;  ///< mutable only for take(), by the list's last holder
};

/// Step 5 (ADIOI_Calc_others_req): Alltoall of the piece counts (one 4-byte int per peer), then the
/// offset/length lists: one message of 2*count 8-byte values per peer (modern), or offsets (8-byte) and
/// lengths (4-byte) as two messages (2007). Waitall only when something was posted. With `give_away` the
/// modern lists are handed over whole (PairsMessage) and my.pairs is left empty: the same messages on the
/// wire, but no rank holds its lists and their copies at once.
OthersReq calc_others_req(Process& p, MyReq& my, RomioVersion version, bool give_away) {
  const int P = p.size();
  const int me = p.rank();
  const auto n = static_cast<std::size_t>(P);
  OthersReq o;
  o.count.assign(n, 0);
  p.alltoall(as_bytes(my.count), as_writable_bytes(o.count));
  o.pairs.resize(n);
  give_away = give_away && version == RomioVersion::Modern;
  for (std::size_t i = 0; i < n; ++i) {
    if (!give_away) o.pairs[i].resize(2 * static_cast<std::size_t>(o.count[i]));
    if (o.count[i] > 0) ++o.procs;
  }
  std::vector<Request> reqs;
  if (version == RomioVersion::Modern) {
    std::vector<SharedMessagePtr> in(give_away ? n : 0);
    for (int i = 0; i < P; ++i) {
      const auto u = static_cast<std::size_t>(i);
      if (o.count[u] == 0) continue;
      if (give_away)
        reqs.push_back(p.irecv_shared(i, i + me, static_cast<std::int64_t>(2 * sizeof(Offset)) * o.count[u],
                                      &in[u], &PairsMessage::decode));
      else
        reqs.push_back(p.irecv(i, i + me, as_writable_bytes(o.pairs[u])));
    }
    for (int i = 0; i < P; ++i) {
      const auto u = static_cast<std::size_t>(i);
      if (my.count[u] == 0) continue;
      if (give_away)
        reqs.push_back(
            p.isend_shared(i, i + me, std::make_shared<const PairsMessage>(std::move(my.pairs[u]))));
      else
        reqs.push_back(p.isend(i, i + me, as_bytes(my.pairs[u])));
    }
    if (!reqs.empty()) p.waitall(reqs);
    reqs.clear();
    for (std::size_t u = 0; u < in.size(); ++u) {
      if (o.count[u] == 0) continue;
      o.pairs[u] = PairsMessage::take(std::move(in[u]));
      if (o.pairs[u].size() != 2 * static_cast<std::size_t>(o.count[u]))
        throw std::invalid_argument("two-phase: rank " + std::to_string(u) + " sent " +
                                    std::to_string(o.pairs[u].size()) + " offsets and lengths, expected " +
                                    std::to_string(2 * o.count[u]));
    }
    return o;
  }
  // 2007: lengths travel as 4-byte ints.
  std::vector<std::vector<std::int32_t>> in_lens(n), out_lens(n);
  for (int i = 0; i < P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (o.count[u] == 0) continue;
    in_lens[u].resize(static_cast<std::size_t>(o.count[u]));
    reqs.push_back(
        p.irecv(i, i + me, std::as_writable_bytes(std::span(o.pairs[u]).first(in_lens[u].size()))));
    reqs.push_back(p.irecv(i, i + me + 1, as_writable_bytes(in_lens[u])));
  }
  for (int i = 0; i < P; ++i) {
    const auto u = static_cast<std::size_t>(i);
    const auto c = static_cast<std::size_t>(my.count[u]);
    if (c == 0) continue;
    for (std::size_t k = 0; k < c; ++k) {
      const Offset len = my.pairs[u][c + k];
      if (len > INT32_MAX)
        throw std::invalid_argument("two-phase (2007): a piece of " + std::to_string(len) +
                                    " bytes exceeds the int lengths of the 2007 metadata exchange");
      out_lens[u].push_back(static_cast<std::int32_t>(len));
    }
    reqs.push_back(p.isend(i, i + me, std::as_bytes(std::span(my.pairs[u]).first(c))));
    reqs.push_back(p.isend(i, i + me + 1, as_bytes(out_lens[u])));
  }
  if (!reqs.empty()) p.waitall(reqs);
  for (std::size_t u = 0; u < n; ++u)
    for (std::size_t k = 0; k < in_lens[u].size(); ++k) o.pairs[u][in_lens[u].size() + k] = in_lens[u][k];
  return o;
}

}  // namespace

const char* stage_name(Stage s, bool vecpar_stages) {
  switch (s) {
    case Stage::Offsets:
      return vecpar_stages ? "st1_offsets" : "offsets";
    case Stage::OffsetsExchange:
      return vecpar_stages ? "st2_offsets_exchange" : "offsets_exchange";
    case Stage::FileDomains:
      return vecpar_stages ? "st4_file_domains" : "file_domains";
    case Stage::Requests:
      return vecpar_stages ? "st5_requests" : "requests";
    case Stage::MetadataExchange:
      return vecpar_stages ? "st6_metadata_exchange" : "metadata_exchange";
    case Stage::Exchange:
      return vecpar_stages ? "st7_exchange" : "exchange";
    case Stage::Write:
      return vecpar_stages ? "st8_write" : "write";
  }
  return "?";
}

std::optional<Collective> prepare(Process& p, const Datatype& dt, std::int64_t element_size,
                                  const CallContext& c, CbMode mode) {
  if (mode == CbMode::Disable) return std::nullopt;  // no offsets, no Allgathers: zero MPI calls
  const int P = p.size();
  const auto n = static_cast<std::size_t>(P);
  Collective col;
  p.phase(c.phase(Stage::Offsets));  // VECPAR st1: ADIOI_Calc_my_off_len
  col.access = file_access(dt, element_size);
  p.compute(Work{.bytes_copied = 0, .tuples = col.access.count(), .step = Step::Offsets});

  p.phase(c.phase(Stage::OffsetsExchange));  // st2: two Allgathers of one ADIO_Offset each
  std::vector<Offset> st(n), end(n);
  p.allgather(std::as_bytes(std::span(&col.access.start, 1)), as_writable_bytes(st));
  p.allgather(std::as_bytes(std::span(&col.access.end, 1)), as_writable_bytes(end));
  const int interleaved = interleave_count(st, end);
  if (mode == CbMode::Automatic && interleaved == 0) return std::nullopt;

  p.phase(c.phase(Stage::FileDomains));  // st4
  const IoHints& h = *c.hints;
  col.fd = calc_file_domains(st, end, static_cast<int>(c.ranklist.size()), 0, domain_alignment(h),
                             p.file_displacement());
  p.compute(Work{.bytes_copied = 0, .tuples = P + static_cast<std::int64_t>(c.ranklist.size())});

  p.phase(c.phase(Stage::Requests));  // st5: ADIOI_Calc_my_req
  col.my = calc_my_req(col.access, col.fd, c.ranklist, P);
  const bool contiguous = col.access.memory_contiguous();
  if (contiguous) {
    // With a contiguous buffer the access list is not read again (my_req holds its pieces), so it goes
    // before the rank yields, and my_req's lists are handed to the aggregators whole (calc_others_req):
    // no rank then holds two of the three lists at once. ROMIO keeps all three to the end of the call;
    // that is the simulator's host memory only, and nothing simulated changes.
    std::vector<Offset>().swap(col.access.offsets);
    std::vector<Offset>().swap(col.access.lens);
  }
  p.compute(Work{.bytes_copied = 0, .tuples = col.my.tuples, .step = Step::Requests});

  p.phase(c.phase(Stage::MetadataExchange));  // st6: ADIOI_Calc_others_req
  col.others = calc_others_req(p, col.my, h.version, contiguous);
  if (contiguous)  // only buf_idx is used from here on (sends straight from the buffer)
    std::vector<std::vector<Offset>>().swap(col.my.pairs);
  return col;
}

void independent_write(Process& p, const Datatype& dt, std::int64_t element_size, const IoHints& h,
                       LocalData local, const char* phase) {
  p.phase(phase);
  const std::int64_t pieces = storage_piece_count(dt, element_size);
  if (pieces == 0) return;
  if (pieces == 1) {  // contiguous buftype and filetype: ADIO_WriteContig
    for_each_storage_piece(dt, element_size, [&](Offset off, Offset) { p.write_at(off, local); });
    return;
  }
  list_io::write_pieces(p, dt, element_size, h.listio_batch, local);  // ADIO_WriteStrided on PVFS2
}

void independent_read(Process& p, const Datatype& dt, std::int64_t element_size, const IoHints& h,
                      std::span<std::byte> out) {
  p.phase("read");
  const std::int64_t pieces = storage_piece_count(dt, element_size);
  if (pieces == 0) return;
  if (pieces == 1) {
    for_each_storage_piece(dt, element_size, [&](Offset off, Offset) { p.read_at(off, out); });
    return;
  }
  list_io::read_pieces(p, dt, element_size, h.listio_batch, out);
}

DataExtent data_extent(const OthersReq& o, Offset cb_buffer_size) {
  DataExtent e;
  for (std::size_t i = 0; i < o.count.size(); ++i) {
    const auto c = static_cast<std::size_t>(o.count[i]);
    for (std::size_t k = 0; k < c; ++k) {
      const Offset off = o.pairs[i][k];
      const Offset last = off + o.pairs[i][c + k] - 1;
      if (e.st_loc == -1 && e.end_loc == -1) {
        e.st_loc = off;
        e.end_loc = last;
      }
      e.st_loc = std::min(e.st_loc, off);
      e.end_loc = std::max(e.end_loc, last);
    }
    e.tuples += static_cast<std::int64_t>(c);
  }
  if (e.st_loc == -1 && e.end_loc == -1) return e;  // no requests in my domain: ntimes = 0
  const Offset n = (e.end_loc - e.st_loc + cb_buffer_size) / cb_buffer_size;
  if (n > INT32_MAX) throw std::invalid_argument("two-phase: more rounds than ROMIO's int ntimes holds");
  e.ntimes = static_cast<std::int32_t>(n);
  return e;
}

std::int64_t walk_window(OthersReq& o, Cursor& c, Offset off, Offset size) {
  std::int64_t visited = 0;
  for (std::size_t i = 0; i < o.count.size(); ++i) {
    c.count[i] = 0;
    c.bytes[i] = 0;
    c.last_len[i] = 0;
    if (o.count[i] == 0) continue;
    Offset* offs = o.offsets(i);
    Offset* lens = o.lens(i);
    c.start[i] = c.curr[i];
    std::int64_t j = c.curr[i];
    for (; j < o.count[i]; ++j) {
      ++visited;
      if (c.partial[i] > 0) {  // the rest of a piece cut by the previous window
        offs[j] += c.partial[i];
        lens[j] -= c.partial[i];
        c.partial[i] = 0;
      }
      if (offs[j] >= off + size) break;
      ++c.count[i];
      const Offset in_window = off + size - offs[j];
      c.bytes[i] += static_cast<std::int32_t>(std::min(in_window, lens[j]));
      if (in_window < lens[j]) {
        c.partial[i] = in_window;
        c.last_len[i] = in_window;
        break;
      }
    }
    c.curr[i] = j;
  }
  return visited;
}

int data_tag(const IoHints& h, int me, int peer, int iter) {
  return h.version == RomioVersion::Modern ? 0 : me + peer + 100 * iter;
}

RoundPieces round_pieces(OthersReq& o, const Cursor& c, std::size_t i) {
  return RoundPieces{o.offsets(i) + c.start[i], o.lens(i) + c.start[i], c.count[i], c.last_len[i]};
}

namespace {

/// Calls fn(file offset, length, position in the stream) for sender i's pieces of this round (the last
/// maybe partial), in its list's order.
template <class Fn>
void for_round_pieces(OthersReq& o, const Cursor& c, std::size_t i, Fn&& fn) {
  const RoundPieces rp = round_pieces(o, c, i);
  std::size_t pos = 0;
  for (std::int64_t k = 0; k < rp.count; ++k) {
    const Offset len = rp.len(k);
    fn(rp.offsets[k], len, pos);
    pos += static_cast<std::size_t>(len);
  }
}

}  // namespace

void copy_pieces(OthersReq& o, const Cursor& c, std::size_t i, Offset off, std::span<std::byte> window,
                 std::span<std::byte> stream, bool to_window) {
  for_round_pieces(o, c, i, [&](Offset at, Offset len, std::size_t pos) {
    const std::span<std::byte> w =
        window.subspan(static_cast<std::size_t>(at - off), static_cast<std::size_t>(len));
    const std::span<std::byte> st = stream.subspan(pos, static_cast<std::size_t>(len));
    if (to_window)
      payload::copy(w, st);
    else
      payload::copy(st, w);
  });
}

namespace {

/// One piece of one sender in a round: where it lies in the file, and whose it is.
struct RoundPiece {
  Offset offset = 0;
  Offset len = 0;
  std::size_t sender = 0;
};

/// The round's pieces of every sender, merged into file order into `out`; false, `out` empty, when a
/// sender's pieces are not in ascending order or two pieces overlap (then only the senders' order says
/// which byte wins).
bool in_file_order(OthersReq& o, const Cursor& c, std::vector<RoundPiece>& out) {
  out.clear();
  const std::size_t n = c.count.size();
  std::vector<RoundPieces> senders(n);  // count 0 for a sender with no bytes this round
  std::vector<std::int64_t> counts(n, 0);
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (c.bytes[i] == 0) continue;
    senders[i] = round_pieces(o, c, i);
    const RoundPieces& rp = senders[i];
    for (std::int64_t k = 1; k < rp.count; ++k)
      if (rp.offsets[k] < rp.offsets[k - 1] + rp.len(k - 1)) return false;
    counts[i] = rp.count;
    total += static_cast<std::size_t>(rp.count);
  }
  out.reserve(total);
  FileOrder order(std::move(counts), [&](std::size_t s, std::int64_t k) { return senders[s].offsets[k]; });
  // Taken in file order (FileOrder); a piece that starts before the furthest end so far overlaps one
  // already taken, whichever came first in the file.
  Offset reach = std::numeric_limits<Offset>::min();
  for (std::size_t s = order.pick(reach); s != order.kNone; s = order.pick(reach)) {
    const std::int64_t k = order.take(s);
    const RoundPiece r{senders[s].offsets[k], senders[s].len(k), s};
    if (r.offset < reach) {  // overlap
      out.clear();
      return false;
    }
    out.push_back(r);
    reach = r.offset + r.len;
  }
  return true;
}

}  // namespace

void fill_window(OthersReq& o, const Cursor& c, Offset off, std::span<std::byte> window,
                 std::vector<payload::Buffer>& streams) {
  thread_local std::vector<RoundPiece> merged;  // kept: a round's pieces are many at fine distributions
  if (!payload::is_elided(std::span<const std::byte>(window)) || !in_file_order(o, c, merged)) {
    for (std::size_t i = 0; i < streams.size(); ++i)
      if (c.bytes[i] > 0) copy_pieces(o, c, i, off, window, streams[i], true);
    return;
  }
  // Each sender's stream read once (its pieces come in stream order), then the window's ranges assigned
  // in file order at once.
  std::vector<std::vector<payload::Piece>> sent(streams.size());
  std::vector<payload::PieceCursor> readers;
  readers.reserve(streams.size());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    if (c.bytes[i] > 0)
      payload::append_pieces(sent[i], streams[i].span().first(static_cast<std::size_t>(c.bytes[i])));
    readers.emplace_back(sent[i]);
  }
  thread_local std::vector<payload::Piece> pieces;
  thread_local std::vector<payload::Range> ranges;
  pieces.clear();
  ranges.clear();
  for (const RoundPiece& r : merged) {
    readers[r.sender].take(r.len, pieces);
    // Pieces that follow each other in the window fill one range, so a window without holes is assigned in
    // one walk, not a step per piece.
    payload::append(ranges, payload::Range{r.offset - off, r.len});
  }
  payload::assign(window, ranges, pieces);
}

}  // namespace detail

}  // namespace ciosim::two_phase
