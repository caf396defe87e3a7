// Gathered (sequential) I/O: rank 0 does all file access, in cb_buffer_size chunks in file order.
// Thakur, Gropp, Lusk, "Data Sieving and Collective I/O in ROMIO", Frontiers '99, §1; the "sequential"
// baseline of Singh, Isaila, Pichel, Carretero, J. Supercomputing 47(1):53-75, 2009.
#include "algorithms/baselines/gathered.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "algorithms/common/access_list.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/common/payload.hpp"

namespace ciosim::gathered {

namespace {

constexpr int kRoot = 0;
constexpr int kListTag = 0;  // chunk c travels with tag 1 + c

/// Where a walk over one rank's pieces stands.
struct Pos {
  std::size_t k = 0;  ///< current piece
  Offset done = 0;    ///< bytes of piece k already handled
};

/// One rank's pieces (as rank 0 knows them), walked chunk by chunk.
struct Walker {
  std::vector<Offset> pairs;  ///< offsets[n] then lens[n] (file order)
  std::vector<Offset> mem;    ///< buffer offset of each piece; empty: back to back in file order
  std::size_t n = 0;
  Pos pos;
  Offset off(std::size_t i) const { return pairs[i]; }
  Offset len(std::size_t i) const { return pairs[n + i]; }
  bool done() const { return pos.k >= n; }
  /// The chunk (of `B` bytes) holding the next byte.
  Offset chunk(Offset B) const { return (off(pos.k) + pos.done) / B; }
  /// Calls fn(file_offset, buffer_offset, length) for the part of the pieces below `limit`, advancing `at`
  /// (the walk) and `stream_pos` (bytes walked, = the buffer offset when memory follows file order).
  template <class Fn>
  std::int64_t take_below(Pos& at, Offset limit, Offset& stream_pos, Fn&& fn) const {
    std::int64_t pieces = 0;
    while (at.k < n && off(at.k) + at.done < limit) {
      const Offset l = std::min(len(at.k) - at.done, limit - (off(at.k) + at.done));
      const Offset buf = mem.empty() ? stream_pos : mem[at.k] + at.done;
      fn(off(at.k) + at.done, buf, l);
      stream_pos += l;
      at.done += l;
      ++pieces;
      if (at.done == len(at.k)) {
        ++at.k;
        at.done = 0;
      }
    }
    return pieces;
  }
  template <class Fn>
  std::int64_t take_below(Offset limit, Offset& stream_pos, Fn&& fn) {
    return take_below(pos, limit, stream_pos, fn);
  }
};

/// A rank's own walker: its offsets and lengths copied into one list (charged as the bytes it copies).
Walker walker_of(Process& p, const AccessList& a) {
  Walker w;
  w.n = a.offsets.size();
  w.pairs = a.offsets;
  w.pairs.insert(w.pairs.end(), a.lens.begin(), a.lens.end());
  w.mem = a.mem;
  p.compute(
      Work{.bytes_copied = static_cast<std::int64_t>((w.pairs.size() + w.mem.size()) * sizeof(Offset))});
  return w;
}

/// Rank 0 learns every rank's list: a Gather of the piece counts, then one message per rank.
std::vector<Walker> exchange_lists(Process& p, const AccessList& a) {
  const int P = p.size();
  std::int64_t mine = a.count();
  std::vector<std::int64_t> counts(p.rank() == kRoot ? static_cast<std::size_t>(P) : 0);
  p.gather(std::as_bytes(std::span(&mine, 1)), as_writable_bytes(counts), kRoot);
  std::vector<Walker> all;
  if (p.rank() != kRoot) {
    if (mine > 0) {
      std::vector<Offset> pairs = a.offsets;
      pairs.insert(pairs.end(), a.lens.begin(), a.lens.end());
      p.compute(Work{.bytes_copied = static_cast<std::int64_t>(pairs.size() * sizeof(Offset))});
      p.send(kRoot, kListTag, as_bytes(pairs));
    }
    return all;
  }
  all.resize(static_cast<std::size_t>(P));
  std::vector<Request> reqs;
  for (int i = 0; i < P; ++i) {
    Walker& w = all[static_cast<std::size_t>(i)];
    if (i == kRoot) {
      w = walker_of(p, a);
      continue;
    }
    w.n = static_cast<std::size_t>(counts[static_cast<std::size_t>(i)]);
    w.pairs.resize(2 * w.n);
    if (w.n > 0) reqs.push_back(p.irecv(i, kListTag, as_writable_bytes(w.pairs)));
  }
  if (!reqs.empty()) p.waitall(reqs);
  return all;
}

/// Offsets one past the last byte of all ranks (rank 0 only).
Offset file_end(const std::vector<Walker>& all) {
  Offset end = 0;
  for (const Walker& w : all)
    if (w.n > 0) end = std::max(end, w.off(w.n - 1) + w.len(w.n - 1));
  return end;
}

}  // namespace

std::string check(const Distribution& d) {
  if (std::string why = check_partition(d); !why.empty())
    return "gathered I/O needs a partition of x: " + why;
  return "";
}

void run_write(Process& p, const TechniqueInput& in, LocalData local) {
  check_input(p, in, local.size(), "gathered");
  check_hints(in.hints);
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  const Offset B = in.hints.cb_buffer_size;
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("offsets");
    const AccessList a = file_access(dt, in.element_size);
    p.compute(Work{.bytes_copied = 0, .tuples = a.count(), .step = Step::Offsets});
    p.phase("metadata_exchange");
    std::vector<Walker> all = exchange_lists(p, a);
    p.phase("exchange");
    if (p.rank() != kRoot) {  // one message per chunk touched, from the buffer (packed if not in file order)
      Walker me = walker_of(p, a);
      std::vector<payload::Buffer> packed;
      std::vector<Request> reqs;
      Offset pos = 0;
      while (!me.done()) {
        const Offset chunk = me.chunk(B);
        const Offset first = pos;
        payload::Builder buf;
        const std::int64_t pieces = me.take_below((chunk + 1) * B, pos, [&](Offset, Offset at, Offset l) {
          if (!me.mem.empty())
            buf.append(local.subspan(static_cast<std::size_t>(at), static_cast<std::size_t>(l)));
        });
        const payload::Buffer& built = packed.emplace_back(buf.finish());
        const auto bytes = static_cast<std::size_t>(pos - first);
        if (!me.mem.empty())
          p.compute(Work{.bytes_copied = static_cast<std::int64_t>(bytes), .tuples = pieces});
        const std::span<const std::byte> data =
            me.mem.empty() ? local.subspan(static_cast<std::size_t>(first), bytes) : built.span();
        reqs.push_back(p.isend(kRoot, 1 + static_cast<int>(chunk), data));
      }
      if (!reqs.empty()) p.waitall(reqs);
      continue;
    }
    const Offset end = file_end(all);
    payload::Buffer window(static_cast<std::size_t>(std::min(B, end)));
    std::vector<Offset> stream(all.size(), 0);  // bytes of each rank's stream consumed so far
    for (Offset chunk = 0; chunk * B < end; ++chunk) {
      p.phase("exchange");
      const Offset lo = chunk * B;
      const Offset size = std::min(B, end - lo);
      std::vector<payload::Buffer> staging(all.size());
      std::vector<Offset> sizes(all.size(), 0);
      std::int64_t peeked = 0;
      for (std::size_t i = 0; i < all.size(); ++i) {  // sizes first: what each rank sends for this chunk
        if (i == kRoot) continue;
        Pos peek = all[i].pos;
        peeked += all[i].take_below(peek, lo + size, sizes[i], [](Offset, Offset, Offset) {});
      }
      p.compute(Work{.tuples = peeked, .step = Step::Lists});
      std::vector<Request> reqs;
      for (std::size_t i = 0; i < all.size(); ++i) {
        if (i == kRoot || sizes[i] == 0) continue;
        staging[i] = payload::Buffer(static_cast<std::size_t>(sizes[i]));
        reqs.push_back(p.irecv(static_cast<int>(i), 1 + static_cast<int>(chunk), staging[i]));
      }
      if (!reqs.empty()) p.waitall(reqs);
      Offset placed = 0;
      std::int64_t pieces = 0;
      for (std::size_t i = 0; i < all.size(); ++i) {
        Offset from = 0;
        const Offset before = stream[i];
        const std::span<const std::byte> src = i == kRoot ? local : staging[i].span();
        // Elided: the source's pieces for all of its runs taken at once, then placed in the window at once.
        const bool at_once = window.elided() && payload::is_elided(src);
        std::vector<payload::Range> to;
        std::vector<payload::Range> mine;  // the root's runs in its own buffer
        pieces += all[i].take_below(lo + size, stream[i], [&](Offset f, Offset at, Offset l) {
          const auto n = static_cast<std::size_t>(l);
          if (at_once) {
            to.push_back({f - lo, l});
            if (i == kRoot) mine.push_back({at, l});
          } else {
            payload::copy(window.span().subspan(static_cast<std::size_t>(f - lo), n),
                          src.subspan(static_cast<std::size_t>(i == kRoot ? at : from), n));
          }
          from += l;
        });
        if (at_once && !to.empty()) {
          std::vector<payload::Piece> ps;
          if (i == kRoot)
            payload::append_pieces(ps, src, mine);
          else
            payload::append_pieces(ps, src.first(static_cast<std::size_t>(from)));
          payload::assign(window.span(), to, ps);
        }
        placed += stream[i] - before;
      }
      p.compute(Work{.bytes_copied = placed, .tuples = pieces});
      if (placed != size)
        throw std::logic_error("gathered: chunk " + std::to_string(chunk) + " is not fully covered (" +
                               std::to_string(placed) + " of " + std::to_string(size) + " bytes)");
      p.phase("write");
      p.write_at(lo, window.span().first(static_cast<std::size_t>(size)));
    }
  }
}

void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out) {
  check_input(p, in, out.size(), "gathered");
  check_hints(in.hints);
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  const Offset B = in.hints.cb_buffer_size;
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("offsets");
    const AccessList a = file_access(dt, in.element_size);
    p.compute(Work{.bytes_copied = 0, .tuples = a.count(), .step = Step::Offsets});
    p.phase("metadata_exchange");
    std::vector<Walker> all = exchange_lists(p, a);
    p.phase("exchange");
    if (p.rank() != kRoot) {  // one receive per chunk touched
      Walker me = walker_of(p, a);
      std::vector<payload::Buffer> staging;
      std::vector<std::pair<Pos, Offset>> positions;  // each chunk's first piece and chunk index
      std::vector<Request> reqs;
      Offset pos = 0;
      while (!me.done()) {
        const Offset chunk = me.chunk(B);
        const Offset first = pos;
        positions.emplace_back(me.pos, chunk);
        const std::int64_t walked = me.take_below((chunk + 1) * B, pos, [](Offset, Offset, Offset) {});
        p.compute(Work{.tuples = walked, .step = Step::Lists});
        const auto bytes = static_cast<std::size_t>(pos - first);
        std::span<std::byte> into = out.subspan(static_cast<std::size_t>(first), bytes);
        if (!me.mem.empty()) into = staging.emplace_back(bytes).span();
        reqs.push_back(p.irecv(kRoot, 1 + static_cast<int>(chunk), into));
      }
      if (!reqs.empty()) p.waitall(reqs);
      if (!me.mem.empty()) {  // scatter into the buffer
        Offset copied = 0;
        std::int64_t pieces = 0;
        for (std::size_t c = 0; c < staging.size(); ++c) {
          Pos at = positions[c].first;
          Offset walked = 0;
          Offset from = 0;
          pieces +=
              me.take_below(at, (positions[c].second + 1) * B, walked, [&](Offset, Offset at_buf, Offset l) {
                payload::copy(
                    out.subspan(static_cast<std::size_t>(at_buf), static_cast<std::size_t>(l)),
                    staging[c].span().subspan(static_cast<std::size_t>(from), static_cast<std::size_t>(l)));
                from += l;
              });
          copied += from;
        }
        p.compute(Work{.bytes_copied = copied, .tuples = pieces});
      }
      continue;
    }
    const Offset end = file_end(all);
    payload::Buffer window(static_cast<std::size_t>(std::min(B, end)));
    std::vector<Offset> stream(all.size(), 0);
    for (Offset chunk = 0; chunk * B < end; ++chunk) {
      const Offset lo = chunk * B;
      const Offset size = std::min(B, end - lo);
      p.phase("read");
      p.read_at(lo, window.span().first(static_cast<std::size_t>(size)));
      p.phase("exchange");
      std::vector<payload::Builder> building(all.size());
      std::vector<Request> reqs;
      Offset moved = 0;
      std::int64_t pieces = 0;
      for (std::size_t i = 0; i < all.size(); ++i) {
        const Offset before = stream[i];
        pieces += all[i].take_below(lo + size, stream[i], [&](Offset f, Offset at, Offset l) {
          const auto n = static_cast<std::size_t>(l);
          const std::span<const std::byte> src = window.span().subspan(static_cast<std::size_t>(f - lo), n);
          if (i == kRoot)
            payload::copy(out.subspan(static_cast<std::size_t>(at), n), src);
          else
            building[i].append(src);
        });
        moved += stream[i] - before;
      }
      p.compute(Work{.bytes_copied = moved, .tuples = pieces});
      std::vector<payload::Buffer> packed;
      packed.reserve(all.size());  // stable: the sends point into them until the waitall
      for (payload::Builder& b : building) packed.push_back(b.finish());
      for (std::size_t i = 0; i < all.size(); ++i)
        if (i != kRoot && !packed[i].empty())
          reqs.push_back(p.isend(static_cast<int>(i), 1 + static_cast<int>(chunk), packed[i]));
      if (!reqs.empty()) p.waitall(reqs);
    }
  }
}

}  // namespace ciosim::gathered
