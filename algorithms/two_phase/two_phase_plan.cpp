// ROMIO two-phase I/O: the local index arithmetic (interleave test, file domains, aggregator lookup,
// my_req, the write round's hole test). Reimplemented from ROMIO's steps as docs/two-phase.md describes
// them (checked against ROMIO adio/common/ad_aggregate.c and ad_write_coll.c; no code copied).
// Thakur, Choudhary, "An Extended Two-Phase Method for Accessing Sections of Out-of-Core Arrays",
// Scientific Programming 5(4), 1996.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "algorithms/two_phase/file_order.hpp"
#include "algorithms/two_phase/two_phase.hpp"

namespace ciosim::two_phase {

int interleave_count(std::span<const Offset> st, std::span<const Offset> end) {
  int n = 0;
  for (std::size_t i = 1; i < st.size() && i < end.size(); ++i)
    if (st[i] < end[i - 1] && st[i] <= end[i]) ++n;
  return n;
}

FileDomains calc_file_domains(std::span<const Offset> st, std::span<const Offset> end, int naggs,
                              Offset min_fd_size, Offset striping_unit, Offset displacement) {
  if (naggs < 1) throw std::invalid_argument("file domains need at least one aggregator");
  if (st.empty() || st.size() != end.size())
    throw std::invalid_argument("file domains need one start and one end offset per rank");
  FileDomains fd;
  fd.min_st = *std::min_element(st.begin(), st.end());
  const Offset max_end = *std::max_element(end.begin(), end.end());
  fd.fd_size = std::max((max_end - fd.min_st + 1 + naggs - 1) / naggs, min_fd_size);  // HPF ceiling block
  const auto n = static_cast<std::size_t>(naggs);
  fd.start.resize(n);
  fd.end.resize(n);
  fd.aligned = striping_unit > 0;
  if (fd.aligned) {
    // Each nominal boundary min_st + fd_size*(i+1) goes to the nearest multiple of the striping unit.
    auto nearest = [&](Offset b) {
      const Offset front = (b + displacement) % striping_unit;  // a stripe boundary of the file
      const Offset back = striping_unit - front;
      return front < back ? b - front : b + back;
    };
    fd.start[0] = fd.min_st;
    fd.end[0] = nearest(fd.min_st + fd.fd_size) - 1;
    for (std::size_t i = 1; i < n; ++i) {
      fd.start[i] = fd.end[i - 1] + 1;
      fd.end[i] = nearest(fd.min_st + fd.fd_size * static_cast<Offset>(i + 1)) - 1;
    }
    fd.end[n - 1] = max_end;
  } else {
    fd.start[0] = fd.min_st;
    fd.end[0] = fd.min_st + fd.fd_size - 1;
    for (std::size_t i = 1; i < n; ++i) {
      fd.start[i] = fd.end[i - 1] + 1;
      fd.end[i] = fd.start[i] + fd.fd_size - 1;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {  // ranges not divisible by naggs: short or empty trailing domains
    if (fd.start[i] > max_end) fd.start[i] = fd.end[i] = -1;
    if (fd.end[i] > max_end) fd.end[i] = max_end;
  }
  return fd;
}

int calc_aggregator(const FileDomains& fd, Offset off, Offset& len) {
  const int naggs = static_cast<int>(fd.end.size());
  int idx = static_cast<int>((off - fd.min_st + fd.fd_size) / fd.fd_size - 1);
  if (fd.aligned) {
    idx = 0;
    while (idx < naggs && off > fd.end[static_cast<std::size_t>(idx)]) ++idx;
  }
  if (idx < 0 || idx >= naggs)
    throw std::logic_error("two-phase: byte " + std::to_string(off) + " lies outside the " +
                           std::to_string(naggs) + " file domains");
  const Offset avail = fd.end[static_cast<std::size_t>(idx)] + 1 - off;
  if (avail < len) len = avail;
  return idx;
}

MyReq calc_my_req(const AccessList& a, const FileDomains& fd, std::span<const int> ranklist, int nprocs) {
  MyReq r;
  const auto P = static_cast<std::size_t>(nprocs);
  r.count.assign(P, 0);
  r.pairs.resize(P);
  r.buf_idx.assign(P, -1);
  const bool with_mem = !a.memory_contiguous();
  if (with_mem) r.mem.resize(P);
  // Calls fn(owner rank, offset, length, offset in the piece) for each FD-clipped part of piece i.
  auto split = [&](std::size_t i, auto&& fn) {
    Offset off = a.offsets[i];
    Offset rem = a.lens[i];
    Offset done = 0;
    while (rem > 0) {
      Offset len = rem;
      const int idx = calc_aggregator(fd, off, len);
      fn(ranklist[static_cast<std::size_t>(idx)], off, len, done);
      off += len;
      done += len;
      rem -= len;
    }
  };
  std::vector<std::int64_t> counts(P, 0);  // first pass: how much to allocate
  for (std::size_t i = 0; i < a.offsets.size(); ++i) {
    split(i, [&](int owner, Offset, Offset, Offset) { ++counts[static_cast<std::size_t>(owner)]; });
    ++r.tuples;
  }
  for (std::size_t k = 0; k < P; ++k) {
    if (counts[k] > INT32_MAX)
      throw std::invalid_argument("two-phase: " + std::to_string(counts[k]) +
                                  " pieces for one aggregator exceed ROMIO's int counts");
    r.pairs[k].resize(static_cast<std::size_t>(2 * counts[k]));
    if (with_mem) r.mem[k].resize(static_cast<std::size_t>(counts[k]));
    if (counts[k] > 0) ++r.procs;
  }
  Offset curr_idx = 0;  // second pass: fill (position in the buffer of contiguous memory)
  for (std::size_t i = 0; i < a.offsets.size(); ++i) {
    split(i, [&](int owner, Offset off, Offset len, Offset within) {
      const auto o = static_cast<std::size_t>(owner);
      if (r.buf_idx[o] == -1) r.buf_idx[o] = curr_idx;
      const auto l = static_cast<std::size_t>(r.count[o]++);
      r.pairs[o][l] = off;
      r.pairs[o][static_cast<std::size_t>(counts[o]) + l] = len;
      if (with_mem) r.mem[o][l] = a.mem[i] + within;
      curr_idx += len;
    });
    ++r.tuples;
  }
  return r;
}

bool window_has_hole(std::span<const RoundPieces> senders, Offset off, Offset size, std::int64_t& steps) {
  // ROMIO heap-merges the senders' sorted lists (ADIOI_Heap_merge) and scans them in file order,
  // coalescing: a hole at the front, between pieces or at the end. Here the pieces are taken as
  // detail::FileOrder gives them: a head at or before the end covered so far extends the covered range
  // whatever its place among the other heads, and only when no head is there does the lowest decide
  // whether a hole follows, so the answer is the scan's.
  std::vector<std::int64_t> counts;
  std::int64_t total = 0;
  std::int64_t lists = 0;
  for (const RoundPieces& rp : senders) {
    counts.push_back(std::max<std::int64_t>(rp.count, 0));
    total += counts.back();
    lists += rp.count > 0 ? 1 : 0;
  }
  steps = 0;
  if (total == 0) return false;
  const auto depth = static_cast<std::int64_t>(std::bit_width(static_cast<std::uint64_t>(lists)));
  steps = total * std::max<std::int64_t>(depth, 1);
  detail::FileOrder order(std::move(counts),
                          [&](std::size_t s, std::int64_t k) { return senders[s].offsets[k]; });
  bool first = true;
  Offset covered_end = off;  // end of the coalesced run from the first piece
  for (std::size_t s = order.pick(covered_end); s != order.kNone; s = order.pick(covered_end)) {
    const RoundPieces& rp = senders[s];
    const std::int64_t k = order.take(s);
    const Offset at = rp.offsets[k];
    const Offset len = rp.len(k);
    if (first && at != off) return true;  // hole at the front
    first = false;
    if (at > covered_end) return true;  // hole in the middle; ROMIO stops coalescing here
    covered_end = std::max(covered_end, at + len);
  }
  return covered_end - off != size;  // or at the end
}

}  // namespace ciosim::two_phase
