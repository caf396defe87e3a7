// View-based collective I/O (J. García Blas, F. Isaila, D. E. Singh, J. Carretero, "View-based collective
// I/O for MPI-IO", CCGrid 2008, §IV-V) as a Session: the state an open file keeps across collective calls
// (every rank's view at the aggregators, the cached collective buffers). docs/view-based.md lists the
// decisions the paper leaves open; each is marked "Decision" below.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>

#include "algorithms/common/access_list.hpp"
#include "algorithms/view_based/view_based.hpp"

namespace ciosim::view_based {

namespace {

// Tags of the three kinds of message (any tags >= 0 distinct from one another would do).
constexpr int kTagView = 40;
constexpr int kTagWrite = 41;
constexpr int kTagRead = 42;
constexpr int kTagInterval = 43;  ///< a write's view interval (its extremities), to each aggregator
constexpr int kTagRequest = 44;   ///< a read request: the same interval

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
        pool_(pool_buffers(in.hints)),
        nb_(in.hints.vb_network_buffer) {
    for (std::size_t k = 0; k < aggs_.size(); ++k)
      if (aggs_[k] == p.rank()) my_agg_ = static_cast<int>(k);
  }

  void set_view(Offset displacement) override;
  /// The cached buffers hold file bytes, not view positions: they stay, and the next set_view ships the
  /// new view and plans the blocks it touches.
  void set_distribution(const Distribution& d) override { in_.dist = &d; }
  void seek(Offset offset) override;
  void write(std::span<const std::byte> local) override;
  void write_part(std::span<const std::byte> local, int part, int parts) override;
  void read_part(std::span<std::byte> out, int part, int parts) override;
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
  /// After my view moved: my pieces by the aggregator owning them, and the aggregators (not me) they go to.
  void group_my_pieces();
  const std::vector<Piece>& pieces_for(int aggregator) const { return by_agg_.at(aggregator); }
  /// One collective write (read) of view bytes [v0, v0 + size) of every rank: a call on part of the view.
  void write_interval(Offset v0, std::span<const std::byte> v);
  void read_interval(Offset v0, std::span<std::byte> v);
  /// Aggregator: receives every sender's interval (tag) and returns each rank's pieces of my blocks in it.
  std::vector<std::vector<Piece>> call_pieces(Offset v0, Offset v1, int tag);
  void receive_writes(Offset v0, Offset v1, std::span<const std::byte> v);
  void serve_reads(Offset v0, Offset v1, std::span<std::byte> v, std::vector<Request>& sends,
                   std::vector<payload::Buffer>& keep);
  const BlockPlan& plan_of(std::int64_t block) const;
  /// Reads the hull of the views' bytes in the block into `b` (under its dirty bytes).
  void fill(Buffer& b, const BlockPlan& bp);
  Buffer& acquire_for_write(std::int64_t block, const std::vector<std::vector<Piece>>& from);
  void write_back(Buffer& b);
  void flush_all();
  Buffer& cached(std::int64_t block) {
    return pool_.get(block, [this](Buffer& victim) { write_back(victim); });
  }
  /// The file runs of piece `pc` in block buffer `b`, as offsets in the block, in view order.
  std::vector<Extent> runs_in_block(const Buffer& b, const Piece& pc) const;
  void scatter(Buffer& b, const Piece& pc, std::span<const std::byte> data);
  void gather(Buffer& b, const Piece& pc, std::span<std::byte> dst);
  /// Storage order <-> view (file) order, for a rank storing its entries out of file order: the view
  /// bytes [lo, hi) only.
  void permute(std::span<const std::byte> from, std::span<std::byte> to, bool to_view, Offset lo, Offset hi);
  /// View bytes [v0, v1) of part `part` of `parts` (whole entries).
  std::pair<Offset, Offset> part_bytes(int part, int parts) const;

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
  Offset nb_;                                 ///< bytes of a network buffer
  std::map<int, std::vector<Piece>> by_agg_;  ///< my pieces by owning aggregator (rank), block order
  std::vector<int> my_aggs_;                  ///< aggregators other than me that my view touches
  std::vector<int> senders_;  ///< aggregators: ranks other than me whose views touch my blocks
};

void ViewBasedSession::set_view(Offset displacement) {
  if (displacement < 0)
    throw std::invalid_argument("view-based: a view displacement must be >= 0 (got " +
                                std::to_string(displacement) + ")");
  const int P = p_.size();
  const int me = p_.rank();
  p_.phase("set_view");
  // §V-A: each rank decodes its view into a compact description and ships it to every aggregator.
  // Charged as the code walks it: make_view lists every storage piece of the rank's datatype (each tuple
  // of each replica) to learn whether memory order is file order, a datatype that is not walks them again
  // for its access list, and the view's own tuples are serialized and mapped.
  View v = make_view(my_datatype(), in_.element_size, displacement, in_file_order_);
  std::int64_t walked = my_datatype().all_tuples();
  if (!in_file_order_) {
    access_ = file_access(my_datatype(), in_.element_size);
    walked += my_datatype().all_tuples();
  }
  const std::vector<std::int64_t> words = serialize(v);
  mine_ = ViewMap(std::move(v));
  my_pieces_ = pieces_of(mine_, me, bs_);
  group_my_pieces();
  p_.compute(Work{.tuples = walked + static_cast<std::int64_t>(mine_.view().filetype.tuples.size()),
                  .step = Step::Views});
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
    p_.compute(Work{.tuples = tuples, .step = Step::Views});
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
  group_my_pieces();
  std::int64_t tuples = static_cast<std::int64_t>(mine_.view().filetype.tuples.size());
  if (my_agg_ >= 0) {
    for (std::size_t r = 0; r < views_.size(); ++r) {
      views_[r] = moved(views_[r], disps_[r]);
      tuples += static_cast<std::int64_t>(views_[r].view().filetype.tuples.size());
    }
    plan_blocks();
  }
  p_.compute(Work{.tuples = tuples, .step = Step::Views});
}

void ViewBasedSession::group_my_pieces() {
  by_agg_.clear();
  my_aggs_.clear();
  for (const Piece& pc : my_pieces_) by_agg_[owner(pc.block)].push_back(pc);
  for (const auto& [a, pcs] : by_agg_)
    if (a != p_.rank()) my_aggs_.push_back(a);
}

void ViewBasedSession::plan_blocks() {
  plan_.clear();
  senders_.clear();
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
  std::vector<char> sends(views_.size(), 0);
  for (const BlockPlan& bp : plan_)
    for (const Piece& pc : bp.pieces) sends[static_cast<std::size_t>(pc.rank)] = 1;
  for (int r = 0; r < static_cast<int>(sends.size()); ++r)
    if (sends[static_cast<std::size_t>(r)] && r != p_.rank()) senders_.push_back(r);
}

void ViewBasedSession::require_view(const char* call, std::size_t bytes) const {
  if (!viewed_) throw std::logic_error(std::string("view-based: ") + call + " before set_view");
  if (static_cast<Offset>(bytes) != mine_.bytes())
    throw std::invalid_argument(std::string("view-based: ") + call + " of " + std::to_string(bytes) +
                                " bytes, the rank's view holds " + std::to_string(mine_.bytes()));
}

void ViewBasedSession::permute(std::span<const std::byte> from, std::span<std::byte> to, bool to_view,
                               Offset lo, Offset hi) {
  Offset pos = 0;
  Offset moved = 0;
  std::int64_t runs = 0;
  for (std::size_t i = 0; i < access_.offsets.size() && pos < hi; ++i) {
    const Offset len = access_.lens[i];
    const Offset a = std::max(pos, lo);
    const Offset b = std::min(pos + len, hi);
    if (a < b) {
      const auto n = static_cast<std::size_t>(b - a);
      const auto mem = static_cast<std::size_t>(access_.mem[i] + (a - pos));
      const auto at = static_cast<std::size_t>(a);
      if (to_view)
        payload::copy(to.subspan(at, n), from.subspan(mem, n));
      else
        payload::copy(to.subspan(mem, n), from.subspan(at, n));
      moved += b - a;
      ++runs;
    }
    pos += len;
  }
  p_.compute(Work{.bytes_copied = moved, .tuples = runs, .step = Step::Scatter});
}

std::pair<Offset, Offset> ViewBasedSession::part_bytes(int part, int parts) const {
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument("view-based: part " + std::to_string(part) + " of " + std::to_string(parts) +
                                " does not exist");
  const std::int64_t es = in_.element_size;
  const std::int64_t n = mine_.bytes() / es;
  return {part * n / parts * es, (part + 1) * n / parts * es};
}

void ViewBasedSession::write_part(std::span<const std::byte> local, int part, int parts) {
  require_view("write", local.size());
  p_.phase("write");
  const auto [v0, v1] = part_bytes(part, parts);
  payload::Buffer reordered;
  std::span<const std::byte> v = local;
  if (!in_file_order_) {
    reordered = payload::Buffer(local.size());
    permute(local, reordered, true, v0, v1);
    v = reordered.span();
  }
  write_interval(v0, v.subspan(static_cast<std::size_t>(v0), static_cast<std::size_t>(v1 - v0)));
}

void ViewBasedSession::read_part(std::span<std::byte> out, int part, int parts) {
  require_view("read", out.size());
  p_.phase("read");
  const auto [v0, v1] = part_bytes(part, parts);
  payload::Buffer reordered;
  std::span<std::byte> v = out;
  if (!in_file_order_) {
    reordered = payload::Buffer(out.size());
    v = reordered.span();
  }
  read_interval(v0, v.subspan(static_cast<std::size_t>(v0), static_cast<std::size_t>(v1 - v0)));
  if (!in_file_order_) permute(reordered.span(), out, false, v0, v1);
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
  p_.compute(Work{
      .bytes_copied = pc.length, .tuples = static_cast<std::int64_t>(runs.size()), .step = Step::Scatter});
  const std::int64_t merged = b.valid.add_all(runs) + b.dirty.add_all(runs);
  p_.compute(Work{.tuples = merged, .step = Step::Ranges});
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
  p_.compute(Work{.bytes_copied = pc.length, .tuples = count, .step = Step::Scatter});
}

void ViewBasedSession::write_back(Buffer& b) {
  // The dirty bytes go back; when the buffer holds valid bytes between them (read on a miss, §V-C), their
  // hull goes as one contiguous write, the whole collective buffer the paper writes. Else each dirty range
  // is one write: bytes the aggregator does not hold are never written over.
  const std::vector<Extent>& d = b.dirty.ranges();
  if (d.empty()) return;
  const Offset lo = d.front().offset;
  const Offset hi = d.back().offset + d.back().length;
  const auto put = [&](Offset off, Offset len) {
    p_.write_at(b.block * bs_ + off,
                b.data.span().subspan(static_cast<std::size_t>(off), static_cast<std::size_t>(len)));
  };
  if (d.size() > 1 && b.valid.covers(lo, hi - lo))
    put(lo, hi - lo);
  else
    for (const Extent& r : d) put(r.offset, r.length);
  b.dirty.clear();
}

void ViewBasedSession::flush_all() {
  for (Buffer* b : pool_.by_block()) write_back(*b);  // in file order
}

void ViewBasedSession::write(std::span<const std::byte> local) {
  write_part(local, 0, 1);
}

void ViewBasedSession::write_interval(Offset v0, std::span<const std::byte> v) {
  const Offset v1 = v0 + static_cast<Offset>(v.size());
  const std::int64_t interval[2] = {v0, v1};
  // Sender (§IV, §V-B): to each aggregator my view touches, the extremities of the call's view interval,
  // then my pieces of its blocks inside the interval, coalesced into network buffers. Decision: the whole
  // call's interval goes to every such aggregator, even one it has nothing for this time (otherwise the
  // aggregator could not know whether a message comes), and coalesce() decides the cuts on both sides.
  std::vector<Request> sends;
  std::vector<std::pair<int, payload::Buffer>> out;
  Offset packed = 0;
  for (const int a : my_aggs_) {
    sends.push_back(p_.isend(a, kTagInterval, std::as_bytes(std::span(interval))));
    for (const std::vector<Piece>& msg : coalesce(clip(pieces_for(a), v0, v1), nb_)) {
      payload::Buffer& m =
          out.emplace_back(a, payload::Buffer(static_cast<std::size_t>(message_bytes(msg)))).second;
      Offset at = 0;
      for (const Piece& pc : msg) {
        payload::copy(
            m.span().subspan(static_cast<std::size_t>(at), static_cast<std::size_t>(pc.length)),
            v.subspan(static_cast<std::size_t>(pc.view_start - v0), static_cast<std::size_t>(pc.length)));
        at += pc.length;
      }
      packed += at;
    }
  }
  p_.compute(Work{packed, 0});
  for (auto& [a, m] : out) sends.push_back(p_.isend(a, kTagWrite, m.span()));
  if (my_agg_ >= 0) receive_writes(v0, v1, v);
  if (!sends.empty()) p_.waitall(sends);
}

std::vector<std::vector<Piece>> ViewBasedSession::call_pieces(Offset v0, Offset v1, int tag) {
  const int me = p_.rank();
  // The extremities of every rank whose view touches my blocks (§IV); mine are known.
  std::vector<std::array<std::int64_t, 2>> iv(views_.size(), std::array<std::int64_t, 2>{0, 0});
  iv[static_cast<std::size_t>(me)] = {v0, v1};
  std::vector<Request> reqs;
  for (const int r : senders_)
    reqs.push_back(p_.irecv(r, tag, std::as_writable_bytes(std::span(iv[static_cast<std::size_t>(r)]))));
  if (!reqs.empty()) p_.waitall(reqs);
  // Each rank's pieces of my blocks inside its interval, in block order: the stored views say where.
  std::vector<std::vector<Piece>> from(views_.size());
  std::int64_t walked = 0;
  for (const BlockPlan& bp : plan_)
    for (const Piece& pc : bp.pieces) {
      ++walked;
      const auto& e = iv[static_cast<std::size_t>(pc.rank)];
      const std::vector<Piece> part = clip(std::span(&pc, 1), e[0], e[1]);
      if (!part.empty()) from[static_cast<std::size_t>(pc.rank)].push_back(part.front());
    }
  p_.compute(Work{.tuples = walked, .step = Step::Views});
  return from;
}

const BlockPlan& ViewBasedSession::plan_of(std::int64_t block) const {
  const auto it = std::lower_bound(plan_.begin(), plan_.end(), block,
                                   [](const BlockPlan& bp, std::int64_t b) { return bp.block < b; });
  if (it == plan_.end() || it->block != block)
    throw std::logic_error("view-based: block " + std::to_string(block) + " is not in the aggregator's plan");
  return *it;
}

void ViewBasedSession::fill(Buffer& b, const BlockPlan& bp) {
  // The hull of the bytes the views hold in the block (the whole block, except at the data's ends) is read
  // from the file; the dirty bytes the buffer holds are laid over it (they are newer than the file) and stay
  // dirty.
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

Buffer& ViewBasedSession::acquire_for_write(std::int64_t block, const std::vector<std::vector<Piece>>& from) {
  if (Buffer* hit = pool_.find(block)) return *hit;
  Buffer& b = cached(block);
  // §V-C: a write miss reads the block first (read-modify-write). Decision: only when this call writes
  // part of what the views hold in it; a block the call writes whole needs no read.
  const BlockPlan& bp = plan_of(block);
  bool whole = true;
  for (const Piece& pc : bp.pieces) {
    const std::vector<Piece>& mine = from[static_cast<std::size_t>(pc.rank)];
    const auto it = std::lower_bound(mine.begin(), mine.end(), block,
                                     [](const Piece& q, std::int64_t bl) { return q.block < bl; });
    if (it == mine.end() || it->block != block || it->view_start != pc.view_start ||
        it->length != pc.length) {
      whole = false;
      break;
    }
  }
  if (!whole) fill(b, bp);
  return b;
}

void ViewBasedSession::receive_writes(Offset v0, Offset v1, std::span<const std::byte> v) {
  const int me = p_.rank();
  const std::vector<std::vector<Piece>> from = call_pieces(v0, v1, kTagInterval);
  // What arrives: every sender's pieces, coalesced as it coalesced them; my own are at hand.
  struct Unit {
    std::vector<Piece> pieces;
    payload::Buffer data;  ///< empty for my own pieces (they are in v)
    int rank = 0;
  };
  std::vector<Unit> units;
  std::vector<std::int64_t> touched;
  for (int r = 0; r < static_cast<int>(from.size()); ++r) {
    const std::vector<Piece>& pcs = from[static_cast<std::size_t>(r)];
    for (const Piece& pc : pcs) touched.push_back(pc.block);
    if (r == me) {
      for (const Piece& pc : pcs) units.push_back({{pc}, {}, r});
      continue;
    }
    for (std::vector<Piece>& msg : coalesce(pcs, nb_)) {
      const auto n = static_cast<std::size_t>(message_bytes(msg));
      units.push_back({std::move(msg), payload::Buffer(n), r});
    }
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::vector<Request> reqs(units.size());
  for (std::size_t i = 0; i < units.size(); ++i)
    if (units[i].rank != me) reqs[i] = p_.irecv(units[i].rank, kTagWrite, units[i].data.span());
  // A piece's bytes: in my own view bytes, or at `at` in the message that brought it.
  const auto bytes_of = [&](const Unit& u, Offset at, const Piece& pc) {
    return u.rank == me
               ? v.subspan(static_cast<std::size_t>(pc.view_start - v0), static_cast<std::size_t>(pc.length))
               : std::span<const std::byte>(u.data.span())
                     .subspan(static_cast<std::size_t>(at), static_cast<std::size_t>(pc.length));
  };
  const auto serve = [&](const Unit& u, auto&& buffer) {
    Offset at = 0;
    for (const Piece& pc : u.pieces) {
      scatter(buffer(pc.block), pc, bytes_of(u, at, pc));
      at += pc.length;
    }
  };
  if (static_cast<int>(touched.size()) <= pool_.capacity()) {
    // Decision: when the pool holds every block of the call, the buffers are taken first (block order, so
    // misses, evictions and reads do not depend on arrival), then the messages are scattered as they
    // arrive (non-blocking receives, MPI_Waitany).
    std::unordered_map<std::int64_t, Buffer*> held;
    for (const std::int64_t b : touched) held[b] = &acquire_for_write(b, from);
    const auto buffer = [&](std::int64_t b) -> Buffer& { return *held.at(b); };
    for (const Unit& u : units)
      if (u.rank == me) serve(u, buffer);
    for (const Unit& u : units)
      if (u.rank != me) serve(units[static_cast<std::size_t>(p_.waitany(reqs))], buffer);
    return;
  }
  // Decision: when it does not, a buffer may have to leave before the next message arrives; the pieces are
  // then scattered block by block (in block order, by sender within a block), a message waited for when
  // its first piece is due, so that each block is taken once per call and which buffers are evicted does
  // not depend on the network.
  struct Slot {
    std::size_t unit;
    Offset at;  ///< the piece's bytes in its message
    const Piece* pc;
  };
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < units.size(); ++i) {
    Offset at = 0;
    for (const Piece& pc : units[i].pieces) {
      slots.push_back({i, at, &pc});
      at += pc.length;
    }
  }
  std::stable_sort(slots.begin(), slots.end(), [](const Slot& x, const Slot& y) {
    return x.pc->block != y.pc->block ? x.pc->block < y.pc->block : x.pc->rank < y.pc->rank;
  });
  for (const Slot& sl : slots) {
    const Unit& u = units[sl.unit];
    if (u.rank != me && reqs[sl.unit].id >= 0) p_.wait(reqs[sl.unit]);
    scatter(acquire_for_write(sl.pc->block, from), *sl.pc, bytes_of(u, sl.at, *sl.pc));
  }
}

void ViewBasedSession::read(std::span<std::byte> out) {
  read_part(out, 0, 1);
}

void ViewBasedSession::read_interval(Offset v0, std::span<std::byte> v) {
  const Offset v1 = v0 + static_cast<Offset>(v.size());
  const std::int64_t interval[2] = {v0, v1};
  // Reader (§V-B): a read request (the extremities of the interval) to each aggregator my view touches;
  // the answers come coalesced into network buffers, as a writer sends them.
  std::vector<Request> sends;
  struct Reply {
    std::vector<Piece> pieces;
    payload::Buffer data;
    int from = 0;
  };
  std::vector<Reply> replies;
  for (const int a : my_aggs_) {
    sends.push_back(p_.isend(a, kTagRequest, std::as_bytes(std::span(interval))));
    for (std::vector<Piece>& msg : coalesce(clip(pieces_for(a), v0, v1), nb_)) {
      const auto n = static_cast<std::size_t>(message_bytes(msg));
      replies.push_back({std::move(msg), payload::Buffer(n), a});
    }
  }
  std::vector<Request> reqs;
  for (Reply& r : replies) reqs.push_back(p_.irecv(r.from, kTagRead, r.data.span()));
  std::vector<payload::Buffer> keep;  // the answers I send, until the Waitall below
  if (my_agg_ >= 0) serve_reads(v0, v1, v, sends, keep);
  // "Upon receiving, the compute nodes finish the tasks from the queues by transferring the data into user
  // buffers": each answer is copied into place as it arrives.
  for (std::size_t k = 0; k < replies.size(); ++k) {
    const Reply& r = replies[static_cast<std::size_t>(p_.waitany(reqs))];
    Offset at = 0;
    for (const Piece& pc : r.pieces) {
      payload::copy(
          v.subspan(static_cast<std::size_t>(pc.view_start - v0), static_cast<std::size_t>(pc.length)),
          std::span<const std::byte>(r.data.span())
              .subspan(static_cast<std::size_t>(at), static_cast<std::size_t>(pc.length)));
      at += pc.length;
    }
    p_.compute(Work{at, static_cast<std::int64_t>(r.pieces.size())});
  }
  if (!sends.empty()) p_.waitall(sends);
}

void ViewBasedSession::serve_reads(Offset v0, Offset v1, std::span<std::byte> v, std::vector<Request>& sends,
                                   std::vector<payload::Buffer>& keep) {
  const int me = p_.rank();
  const std::vector<std::vector<Piece>> from = call_pieces(v0, v1, kTagRequest);
  // Every answer message and where each of its pieces goes in it; then block by block (§V-C: "the collective
  // buffer is read from the file system at the first request"; here block order, so that the reads do not
  // depend on which request arrives first), each piece is gathered into its answer, and an answer leaves as
  // soon as its last piece is in.
  struct Answer {
    payload::Buffer data;
    std::size_t missing = 0;
    int to = 0;
  };
  struct Slot {
    Piece pc;
    int answer = -1;  ///< -1: my own piece, gathered into v
    Offset at = 0;
  };
  std::vector<Answer> answers;
  std::vector<Slot> slots;
  for (int r = 0; r < static_cast<int>(from.size()); ++r) {
    const std::vector<Piece>& pcs = from[static_cast<std::size_t>(r)];
    if (r == me) {
      for (const Piece& pc : pcs) slots.push_back({pc, -1, 0});
      continue;
    }
    for (const std::vector<Piece>& msg : coalesce(pcs, nb_)) {
      answers.push_back({payload::Buffer(static_cast<std::size_t>(message_bytes(msg))), msg.size(), r});
      Offset at = 0;
      for (const Piece& pc : msg) {
        slots.push_back({pc, static_cast<int>(answers.size() - 1), at});
        at += pc.length;
      }
    }
  }
  std::stable_sort(slots.begin(), slots.end(),
                   [](const Slot& a, const Slot& b) { return a.pc.block < b.pc.block; });
  Buffer* b = nullptr;
  for (const Slot& s : slots) {
    if (b == nullptr || b->block != s.pc.block) {
      b = &cached(s.pc.block);
      const BlockPlan& bp = plan_of(s.pc.block);
      if (!b->valid.covers(bp.lo, bp.hi - bp.lo)) fill(*b, bp);
    }
    if (s.answer < 0) {
      gather(
          *b, s.pc,
          v.subspan(static_cast<std::size_t>(s.pc.view_start - v0), static_cast<std::size_t>(s.pc.length)));
      continue;
    }
    Answer& a = answers[static_cast<std::size_t>(s.answer)];
    gather(*b, s.pc,
           a.data.span().subspan(static_cast<std::size_t>(s.at), static_cast<std::size_t>(s.pc.length)));
    if (--a.missing == 0) sends.push_back(p_.isend(a.to, kTagRead, a.data.span()));
  }
  for (Answer& a : answers) keep.push_back(std::move(a.data));  // a move keeps the bytes where they are
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
