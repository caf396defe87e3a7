// View-based collective I/O (J. García Blas, F. Isaila, D. E. Singh, J. Carretero, "View-based collective
// I/O for MPI-IO", CCGrid 2008, §IV-V) as a Session: the state an open file keeps across collective calls
// (every rank's view at the aggregators, the cached collective buffers). docs/view-based.md lists the
// decisions the paper leaves open; each is marked "Decision" below.
#include <cstring>
#include <stdexcept>

#include "algorithms/common/access_list.hpp"
#include "algorithms/view_based/view_based.hpp"

namespace ciosim::view_based {

namespace {

// Tags of the three kinds of message (any tags >= 0 distinct from one another would do).
constexpr int kTagView = 40;
constexpr int kTagWrite = 41;
constexpr int kTagRead = 42;
/// A write message starts with the interval in view space: start and length, two 8-byte words (§IV: "the
/// view data plus the extremities of the view interval").
constexpr Offset kHeader = 2 * sizeof(std::int64_t);

/// One block an aggregator owns: every rank's interval in it (by rank) and the hull of the views' bytes in
/// it, relative to the block's start.
struct BlockPlan {
  std::int64_t block = 0;
  std::vector<Piece> pieces;
  Offset lo = 0;
  Offset hi = 0;
};

class ViewBasedSession final : public Session {
 public:
  ViewBasedSession(Process& p, const TechniqueInput& in)
      : p_(p),
        in_(in),
        bs_(block_size(in.hints)),
        aggs_(aggregator_ranks(p.size(), in.hints.vb_aggregators)),
        pool_(pool_buffers(in.hints)) {
    for (std::size_t k = 0; k < aggs_.size(); ++k)
      if (aggs_[k] == p.rank()) my_agg_ = static_cast<int>(k);
  }

  void set_view(Offset displacement) override;
  void seek(Offset offset) override;
  void write(std::span<const std::byte> local) override;
  void read(std::span<std::byte> out) override;
  void sync() override;
  void close() override;

 private:
  const Datatype& my_datatype() const { return in_.dist->per_rank[static_cast<std::size_t>(p_.rank())]; }
  int owner(std::int64_t block) const {
    return aggs_[static_cast<std::size_t>(owner_index(block, static_cast<int>(aggs_.size())))];
  }
  void require_view(const char* call, std::size_t bytes) const;
  void plan_blocks();
  void write_back(Buffer& b);
  void flush_all();
  Buffer& cached(std::int64_t block) {
    return pool_.get(block, [this](Buffer& victim) { write_back(victim); });
  }
  /// The file runs of piece `pc` in block buffer `b`, as offsets in the block, in view order.
  std::vector<Extent> runs_in_block(const Buffer& b, const Piece& pc) const;
  void scatter(Buffer& b, const Piece& pc, std::span<const std::byte> data);
  void gather(Buffer& b, const Piece& pc, std::span<std::byte> dst);
  /// Storage order <-> view (file) order, for a rank storing its entries out of file order.
  void permute(std::span<const std::byte> from, std::span<std::byte> to, bool to_view);

  Process& p_;
  TechniqueInput in_;
  Offset bs_;
  std::vector<int> aggs_;
  int my_agg_ = -1;  ///< my aggregator index, -1 if I am none
  bool viewed_ = false;
  bool in_file_order_ = true;
  AccessList access_;  ///< my pieces in file order with their buffer offsets (when !in_file_order_)
  ViewMap mine_;
  std::vector<Piece> my_pieces_;  ///< the blocks my view touches, in block order
  std::vector<ViewMap> views_;    ///< aggregators: every rank's view
  Offset my_disp_ = 0;            ///< my view's displacement as set (seek moves the views from it)
  std::vector<Offset> disps_;     ///< aggregators: every rank's displacement as shipped
  std::vector<BlockPlan> plan_;   ///< aggregators: my blocks that some view touches, in block order
  BufferPool pool_;
};

void ViewBasedSession::set_view(Offset displacement) {
  if (displacement < 0)
    throw std::invalid_argument("view-based: a view displacement must be >= 0 (got " +
                                std::to_string(displacement) + ")");
  const int P = p_.size();
  const int me = p_.rank();
  p_.phase("set_view");
  // §V-A: each rank decodes its view into a compact description and ships it to every aggregator.
  View v = make_view(my_datatype(), in_.element_size, displacement, in_file_order_);
  if (!in_file_order_) access_ = file_access(my_datatype(), in_.element_size);
  const std::vector<std::int64_t> words = serialize(v);
  mine_ = ViewMap(std::move(v));
  my_pieces_ = pieces_of(mine_, me, bs_);
  p_.compute(Work{0, static_cast<std::int64_t>(mine_.view().filetype.tuples.size())});
  // Decision: the aggregators learn the size of each view from one Allgather of an 8-byte word.
  const std::int64_t nwords = static_cast<std::int64_t>(words.size());
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(P));
  p_.allgather(std::as_bytes(std::span<const std::int64_t>(&nwords, 1)), as_writable_bytes(sizes));
  std::vector<std::vector<std::int64_t>> in(static_cast<std::size_t>(P));
  std::vector<Request> reqs;
  if (my_agg_ >= 0)
    for (int r = 0; r < P; ++r) {
      if (r == me) continue;
      in[static_cast<std::size_t>(r)].resize(static_cast<std::size_t>(sizes[static_cast<std::size_t>(r)]));
      reqs.push_back(p_.irecv(r, kTagView, as_writable_bytes(in[static_cast<std::size_t>(r)])));
    }
  for (const int a : aggs_)
    if (a != me) reqs.push_back(p_.isend(a, kTagView, as_bytes(words)));
  if (!reqs.empty()) p_.waitall(reqs);
  views_.clear();
  disps_.clear();
  my_disp_ = displacement;
  if (my_agg_ >= 0) {
    // The aggregator rebuilds and keeps every rank's view for the calls to come.
    std::int64_t tuples = 0;
    for (int r = 0; r < P; ++r) {
      views_.push_back(r == me ? mine_ : ViewMap(deserialize(in[static_cast<std::size_t>(r)])));
      disps_.push_back(views_.back().view().displacement);
      tuples += static_cast<std::int64_t>(views_.back().view().filetype.tuples.size());
    }
    p_.compute(Work{0, tuples});
    plan_blocks();
  }
  viewed_ = true;
}

// Decision: an explicit offset (MPI_File_write_at_all, NPB BT-IO's way from one time step to the next)
// moves the stored views locally: every aggregator already holds every view, so nothing is sent (the
// paper's Table I: BT-IO's views are "generated and transferred twice", once per open); the aggregators
// only re-plan their blocks, charged as the tuples they walk.
void ViewBasedSession::seek(Offset offset) {
  if (offset < 0)
    throw std::invalid_argument("view-based: an explicit offset must be >= 0 (got " + std::to_string(offset) +
                                ")");
  if (!viewed_) throw std::logic_error("view-based: seek before set_view");
  const auto moved = [offset](const ViewMap& m, Offset base) {
    View v = m.view();
    v.displacement = base + offset;
    return ViewMap(std::move(v));
  };
  mine_ = moved(mine_, my_disp_);
  my_pieces_ = pieces_of(mine_, p_.rank(), bs_);
  std::int64_t tuples = static_cast<std::int64_t>(mine_.view().filetype.tuples.size());
  if (my_agg_ >= 0) {
    for (std::size_t r = 0; r < views_.size(); ++r) {
      views_[r] = moved(views_[r], disps_[r]);
      tuples += static_cast<std::int64_t>(views_[r].view().filetype.tuples.size());
    }
    plan_blocks();
  }
  p_.compute(Work{0, tuples});
}

void ViewBasedSession::plan_blocks() {
  plan_.clear();
  Offset begin = -1;
  Offset end = 0;
  for (const ViewMap& m : views_) {
    if (m.bytes() == 0) continue;
    begin = begin < 0 ? m.file_begin() : std::min(begin, m.file_begin());
    end = std::max(end, m.file_end());
  }
  if (begin < 0) return;
  const auto A = static_cast<std::int64_t>(aggs_.size());
  std::int64_t b = block_of(begin, bs_);
  b += ((my_agg_ - b) % A + A) % A;  // my first block at or after the first one used
  for (; b * bs_ < end; b += A) {
    BlockPlan bp{b, {}, bs_, 0};
    const Offset start = b * bs_;
    for (int r = 0; r < static_cast<int>(views_.size()); ++r) {
      const ViewMap& m = views_[static_cast<std::size_t>(r)];
      const Extent e = m.interval(start, start + bs_);
      if (e.length == 0) continue;
      bp.pieces.push_back({b, r, e.offset, e.length});
      bp.lo = std::min(bp.lo, m.file_byte(e.offset) - start);
      bp.hi = std::max(bp.hi, m.file_byte(e.offset + e.length - 1) + 1 - start);
    }
    if (!bp.pieces.empty()) plan_.push_back(std::move(bp));
  }
}

void ViewBasedSession::require_view(const char* call, std::size_t bytes) const {
  if (!viewed_) throw std::logic_error(std::string("view-based: ") + call + " before set_view");
  if (static_cast<Offset>(bytes) != mine_.bytes())
    throw std::invalid_argument(std::string("view-based: ") + call + " of " + std::to_string(bytes) +
                                " bytes, the rank's view holds " + std::to_string(mine_.bytes()));
}

void ViewBasedSession::permute(std::span<const std::byte> from, std::span<std::byte> to, bool to_view) {
  Offset pos = 0;
  for (std::size_t i = 0; i < access_.offsets.size(); ++i) {
    const auto len = static_cast<std::size_t>(access_.lens[i]);
    const auto mem = static_cast<std::size_t>(access_.mem[i]);
    const auto at = static_cast<std::size_t>(pos);
    if (to_view)
      payload::copy(to.subspan(at, len), from.subspan(mem, len));
    else
      payload::copy(to.subspan(mem, len), from.subspan(at, len));
    pos += access_.lens[i];
  }
  p_.compute(Work{pos, access_.count()});
}

std::vector<Extent> ViewBasedSession::runs_in_block(const Buffer& b, const Piece& pc) const {
  const Offset start = b.block * bs_;
  std::vector<Extent> runs;
  views_[static_cast<std::size_t>(pc.rank)].for_runs(pc.view_start, pc.length,
                                                     [&](Offset f, Offset, Offset n) {
                                                       runs.push_back({f - start, n});
                                                     });
  return runs;
}

namespace {

/// The runs as ranges of a piece map (elided copies take them all at once).
std::vector<payload::Range> as_ranges(const std::vector<Extent>& runs) {
  std::vector<payload::Range> out;
  out.reserve(runs.size());
  for (const Extent& e : runs) out.push_back({e.offset, e.length});
  return out;
}

}  // namespace

void ViewBasedSession::scatter(Buffer& b, const Piece& pc, std::span<const std::byte> data) {
  const std::vector<Extent> runs = runs_in_block(b, pc);  // the piece's bytes, consecutive in data
  Offset end = 0;
  for (const Extent& e : runs) end = std::max(end, e.offset + e.length);
  b.data.grow(static_cast<std::size_t>(end));
  if (b.data.elided() && payload::is_elided(data)) {
    payload::assign(b.data, as_ranges(runs), payload::pieces(data));
  } else {
    std::size_t v = 0;
    for (const Extent& e : runs) {
      const auto n = static_cast<std::size_t>(e.length);
      payload::copy(b.data.span().subspan(static_cast<std::size_t>(e.offset), n), data.subspan(v, n));
      v += n;
    }
  }
  p_.compute(Work{pc.length, static_cast<std::int64_t>(runs.size())});
  b.valid.add_all(runs);
  b.dirty.add_all(runs);
}

void ViewBasedSession::gather(Buffer& b, const Piece& pc, std::span<std::byte> dst) {
  const Offset start = b.block * bs_;
  const bool at_once = b.data.elided() && payload::is_elided(std::span<const std::byte>(dst));
  std::vector<payload::Range> runs;  // elided: the piece's runs in the block, gathered at once
  std::int64_t count = 0;
  views_[static_cast<std::size_t>(pc.rank)].for_runs(
      pc.view_start, pc.length, [&](Offset f, Offset v, Offset n) {
        if (at_once)
          runs.push_back({f - start, n});
        else
          payload::copy(
              dst.subspan(static_cast<std::size_t>(v - pc.view_start), static_cast<std::size_t>(n)),
              b.data.span().subspan(static_cast<std::size_t>(f - start), static_cast<std::size_t>(n)));
        ++count;
      });
  if (at_once) {
    std::vector<payload::Piece> ps;
    payload::append_pieces(ps, b.data, runs);
    payload::assign(dst, ps);
  }
  p_.compute(Work{pc.length, count});
}

void ViewBasedSession::write_back(Buffer& b) {
  // Decision: only the dirty ranges go back, each as one contiguous write; a block nobody wrote whole is
  // never read first (the paper reads it on a write miss to an existing file, §V-C).
  for (const Extent& r : b.dirty.ranges())
    p_.write_at(b.block * bs_ + r.offset, b.data.span().subspan(static_cast<std::size_t>(r.offset),
                                                                static_cast<std::size_t>(r.length)));
  b.dirty.clear();
}

void ViewBasedSession::flush_all() {
  for (Buffer* b : pool_.by_block()) write_back(*b);  // in file order
}

void ViewBasedSession::write(std::span<const std::byte> local) {
  require_view("write", local.size());
  const int me = p_.rank();
  p_.phase("write");
  payload::Buffer reordered;
  std::span<const std::byte> v = local;
  if (!in_file_order_) {
    reordered = payload::Buffer(local.size());
    permute(local, reordered, true);
    v = reordered.span();
  }
  // Sender: one message per block my view touches, to the block's owner (§V-B: one task per aggregator
  // interval). Decision: a block I own myself is scattered from my buffer, without a message.
  std::vector<payload::Buffer> msgs;
  Offset packed = 0;
  for (const Piece& pc : my_pieces_) {
    if (owner(pc.block) == me) continue;
    payload::Buffer& m = msgs.emplace_back(static_cast<std::size_t>(kHeader + pc.length));
    const std::int64_t head[2] = {pc.view_start, pc.length};
    payload::copy(m.span().first(kHeader), std::as_bytes(std::span(head)));
    payload::copy(m.span().subspan(kHeader),
                  v.subspan(static_cast<std::size_t>(pc.view_start), static_cast<std::size_t>(pc.length)));
    packed += pc.length;
  }
  p_.compute(Work{packed, 0});
  std::vector<Request> reqs;
  std::size_t k = 0;
  for (const Piece& pc : my_pieces_)
    if (owner(pc.block) != me) reqs.push_back(p_.isend(owner(pc.block), kTagWrite, msgs[k++].span()));
  // Aggregator: block by block, receive every sender's interval and scatter it through the sender's view.
  // Decision: the receivers know who sends how much from the stored views, since every call accesses each
  // rank's whole view; so a call needs no exchange of sizes.
  payload::Buffer in;
  for (const BlockPlan& bp : plan_) {
    Buffer& b = cached(bp.block);
    for (const Piece& pc : bp.pieces) {
      if (pc.rank == me) {
        scatter(b, pc,
                v.subspan(static_cast<std::size_t>(pc.view_start), static_cast<std::size_t>(pc.length)));
        continue;
      }
      if (in.size() != static_cast<std::size_t>(kHeader + pc.length))
        in = payload::Buffer(static_cast<std::size_t>(kHeader + pc.length));
      p_.recv(pc.rank, kTagWrite, in);
      std::int64_t head[2];
      payload::copy(std::as_writable_bytes(std::span(head)), in.span().first(kHeader));
      if (head[0] != pc.view_start || head[1] != pc.length)
        throw std::logic_error("view-based: rank " + std::to_string(pc.rank) + " sent view interval [" +
                               std::to_string(head[0]) + ", +" + std::to_string(head[1]) + ") for block " +
                               std::to_string(bp.block) + ", its stored view gives [" +
                               std::to_string(pc.view_start) + ", +" + std::to_string(pc.length) + ")");
      scatter(b, pc, in.span().subspan(kHeader));
    }
  }
  if (!reqs.empty()) p_.waitall(reqs);
}

void ViewBasedSession::read(std::span<std::byte> out) {
  require_view("read", out.size());
  const int me = p_.rank();
  p_.phase("read");
  payload::Buffer reordered;
  std::span<std::byte> v = out;
  if (!in_file_order_) {
    reordered = payload::Buffer(out.size());
    v = reordered.span();
  }
  // Decision: no read requests travel: the owners know every rank's interval from the stored views. Each
  // block's bytes arrive straight into their place in view order.
  std::vector<Request> reqs;
  for (const Piece& pc : my_pieces_)
    if (owner(pc.block) != me)
      reqs.push_back(
          p_.irecv(owner(pc.block), kTagRead,
                   v.subspan(static_cast<std::size_t>(pc.view_start), static_cast<std::size_t>(pc.length))));
  std::vector<payload::Buffer> msgs;
  for (const BlockPlan& bp : plan_) {
    Buffer& b = cached(bp.block);
    // Decision: a hit needs every byte the views hold in the block valid in the cache; otherwise the hull
    // of those bytes (the whole block, except at the data's ends) is read from the file and the dirty
    // bytes the buffer holds are laid over it (they are newer than the file), staying dirty.
    if (!b.valid.covers(bp.lo, bp.hi - bp.lo)) {
      payload::Buffer fresh(static_cast<std::size_t>(bp.hi - bp.lo));
      p_.read_at(bp.block * bs_ + bp.lo, fresh);
      b.data.grow(static_cast<std::size_t>(bp.hi));
      for (const Extent& d : b.dirty.ranges()) {
        const Offset lo = std::max(d.offset, bp.lo);
        const Offset hi = std::min(d.offset + d.length, bp.hi);
        if (lo < hi)
          payload::copy(
              fresh.span().subspan(static_cast<std::size_t>(lo - bp.lo), static_cast<std::size_t>(hi - lo)),
              b.data.span().subspan(static_cast<std::size_t>(lo), static_cast<std::size_t>(hi - lo)));
      }
      payload::copy(b.data.span().subspan(static_cast<std::size_t>(bp.lo), fresh.size()), fresh);
      b.valid.add(bp.lo, bp.hi - bp.lo);
    }
    for (const Piece& pc : bp.pieces) {
      if (pc.rank == me) {
        gather(b, pc,
               v.subspan(static_cast<std::size_t>(pc.view_start), static_cast<std::size_t>(pc.length)));
        continue;
      }
      payload::Buffer& m = msgs.emplace_back(static_cast<std::size_t>(pc.length));
      gather(b, pc, m);
      reqs.push_back(p_.isend(pc.rank, kTagRead, m.span()));
    }
  }
  if (!reqs.empty()) p_.waitall(reqs);
  if (!in_file_order_) permute(reordered.span(), out, false);
}

void ViewBasedSession::sync() {
  p_.phase("flush");
  flush_all();
  p_.file_sync();
}

void ViewBasedSession::close() {
  // Write-on-close (§IV): the dirty buffers reach the file system now, in file order; the cache is dropped.
  p_.phase("flush");
  flush_all();
  pool_.clear();
}

}  // namespace

std::unique_ptr<Session> make_session(Process& p, const TechniqueInput& in) {
  // The rank's view is its entries: check the input as every technique does, with the buffer they need.
  const bool known = in.dist != nullptr && in.dist->nprocs() == p.size() && in.element_size > 0;
  check_input(p, in,
              known ? static_cast<std::size_t>(in.dist->per_rank[static_cast<std::size_t>(p.rank())].size() *
                                               in.element_size)
                    : 0,
              "view-based");
  check_hints(in.hints);
  return std::make_unique<ViewBasedSession>(p, in);
}

void run_write(Process& p, const TechniqueInput& in, LocalData local) {
  const std::unique_ptr<Session> s = make_session(p, in);
  s->set_view(0);
  for (int i = 0; i < in.iterations; ++i) s->write(local);
  s->close();
}

void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out) {
  const std::unique_ptr<Session> s = make_session(p, in);
  s->set_view(0);
  for (int i = 0; i < in.iterations; ++i) s->read(out);
  s->close();
}

}  // namespace ciosim::view_based
