// IEC I/O inspector: datatype generation (§3.3.3, Fig. 10) with the recursive datatype exchange.
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm",
// The Journal of Supercomputing 47(1):53-75, 2009.
//
// Each rank keeps the paper's List of <logical, physical> pairs for the entries it owns, sorted by logical
// address (memory mapping list, L1-L2). In phase ph it gives away the half of the list that Property 4
// selects (L3), describes the given entries by Compute_Datatype over their physical addresses in ascending
// order (L4; see docs/iec.md for why not in list order), and exchanges a "bundle" with its partner (L5): its
// send datatype plus everything needed to turn the partner's view of those entries into logical addresses,
// i.e. its own distribution datatype and alloc_offset, and for each earlier phase k whose receive region the
// send datatype touches, the receive offset and (recursively) the bundle it received then (the paper's
// "recursive datatype invocation" and its footnote 2). The receiver resolves each received slot (L6-L8) and
// merges the new pairs into its list (L9). After the last phase the list must be the chunk
// [file_offset, file_offset + Nx/Np) and Compute_Datatype_Intervaled gives the packing datatype (L10).
//
// Periodic lists (§3.3.2, "Datatype parametrization": for block-cyclic distributions the tuples of every
// phase follow from Np, Nx and Bx, 2^ph of them in phase ph). A rank whose distribution datatype is an
// hvector of ascending tuples within one stride holds its list as one period's runs and a replica count.
// Property 4 then takes whole replicas, the send datatype is a span per run, what the partner's bundle
// resolves to over whole replicas of a distribution datatype stays one block (resolve into a BlockSink), the
// merge sorts one period, and L10 has a closed form: the work per phase follows the streams, not the entries.
// Whatever leaves that form (an odd replica count, blocks of another period) unrolls the list and goes on
// as above. The plans and the paper's tuple count are the same either way (tests/test_iec_lists.cpp); the
// work the implementation does (Inspector::work(), what a run charges by default) is what each form costs.
#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "algorithms/iec/iec.hpp"

namespace ciosim::iec {

namespace {

/// The counting instrument of the work the implementation does: every element a loop of the inspector
/// visits — a run or tuple it reads or writes, a bitmap word, a sort key in each radix pass, a step of a
/// resolution, a word of a bundle — adds one. Per thread: an inspector step never yields to another rank
/// while it runs, so what the meter gains across a step is that step's work (Inspector::work()).
thread_local std::int64_t t_visits = 0;

void visit(std::int64_t n = 1) {
  t_visits += n;
}

/// Comparisons of a comparison sort of n elements: n log2 n.
std::int64_t sort_steps(std::size_t n) {
  return n < 2 ? 0 : static_cast<std::int64_t>(n) * std::bit_width(n - 1);
}

/// Adds what the meter gained since it was made to `total` when it goes out of scope.
class Metered {
 public:
  explicit Metered(std::int64_t& total) : total_(total), start_(t_visits) {}
  ~Metered() { total_ += t_visits - start_; }
  Metered(const Metered&) = delete;
  Metered& operator=(const Metered&) = delete;

 private:
  std::int64_t& total_;
  std::int64_t start_;
};

}  // namespace

/// The entries resolved in one phase, in slot order, as blocks: `count` replicas of a pattern of logical
/// runs, replica j shifted by j * lstride (a lone run is a block of one replica and one run).
struct BlockSink {
  struct Block {
    std::size_t first = 0;  ///< the pattern: tuples[first, first + n)
    std::size_t n = 0;
    std::int64_t count = 1;
    std::int64_t lstride = 0;
  };
  std::vector<Tuple> tuples;
  std::vector<Block> blocks;
  void add(std::int64_t off, std::int64_t len) {
    visit();
    blocks.push_back(Block{tuples.size(), 1, 1, 0});
    tuples.push_back(Tuple{off, len});
  }
  /// `count` replicas of the non-empty tuples of `pattern` shifted by `shift`; returns those tuples' number.
  std::int64_t add_replicas(const std::vector<Tuple>& pattern, std::int64_t shift, std::int64_t count,
                            std::int64_t lstride) {
    Block b{tuples.size(), 0, count, lstride};
    visit(static_cast<std::int64_t>(pattern.size()));
    for (const Tuple& t : pattern)
      if (t.length > 0) {
        tuples.push_back(Tuple{t.offset + shift, t.length});
        ++b.n;
      }
    if (b.n > 0) blocks.push_back(b);
    return static_cast<std::int64_t>(b.n);
  }
  /// Calls fn(logical, length) for every run, replica by replica, in slot order.
  template <class Fn>
  void for_each_run(Fn&& fn) const {
    for (const Block& b : blocks)
      for (std::int64_t j = 0; j < b.count; ++j)
        for (std::size_t i = b.first; i < b.first + b.n; ++i) {
          visit();
          fn(tuples[i].offset + j * b.lstride, tuples[i].length);
        }
  }
};

namespace {

// ---- bundles: building, serialization, parsing

// A datatype travels as the paper's tuples, whatever form it is held in: count stride ntuples {offset
// length}*.
std::int64_t datatype_words(const Datatype& dt) {
  return 3 + 2 * static_cast<std::int64_t>(dt.tuples.size());
}
std::int64_t datatype_words(const StridedDatatype& dt) {
  return 3 + 2 * dt.tuples();
}

void put_datatype(std::int64_t*& out, const Datatype& dt) {
  *out++ = dt.count;
  *out++ = dt.stride;
  *out++ = static_cast<std::int64_t>(dt.tuples.size());
  for (const Tuple& t : dt.tuples) {
    *out++ = t.offset;
    *out++ = t.length;
  }
}
void put_datatype(std::int64_t*& out, const StridedDatatype& dt) {
  *out++ = dt.count();
  *out++ = dt.stride();
  *out++ = dt.tuples();
  dt.for_tuples([&](std::int64_t off, std::int64_t len) {
    *out++ = off;
    *out++ = len;
  });
}

[[noreturn]] void malformed(const char* why) {
  throw std::invalid_argument(std::string("iec inspector: malformed datatype bundle (") + why + ")");
}

class Reader {
 public:
  explicit Reader(std::span<const std::int64_t> w) : w_(w) {}
  std::int64_t next() {
    if (pos_ >= w_.size()) malformed("truncated");
    return w_[pos_++];
  }
  bool done() const { return pos_ == w_.size(); }
  Datatype datatype() {
    Datatype dt;
    dt.count = next();
    dt.stride = next();
    const std::int64_t n = next();
    if (n < 0 || static_cast<std::uint64_t>(n) > (w_.size() - pos_) / 2) malformed("bad tuple count");
    dt.tuples.resize(static_cast<std::size_t>(n));
    for (Tuple& t : dt.tuples) {
      t.offset = next();
      t.length = next();
    }
    return dt;
  }
  BundlePtr node(int depth) {
    if (depth > 62) malformed("nested too deeply");
    const std::int64_t rank = next();
    const std::int64_t alloc = next();
    const std::int64_t region = next();
    StridedDatatype send(datatype());
    std::shared_ptr<const IndexedDatatype> distr;
    if (next() != 0) distr = std::make_shared<const IndexedDatatype>(datatype());
    const std::int64_t nchildren = next();
    if (nchildren < 0 || nchildren > 62) malformed("bad child count");
    std::vector<Bundle::Child> children;
    for (std::int64_t c = 0; c < nchildren; ++c) {
      const std::int64_t off = next();
      const std::int64_t words = next();
      const std::size_t start = pos_;
      BundlePtr child = node(depth + 1);
      if (static_cast<std::int64_t>(pos_ - start) != words) malformed("bad child length");
      children.push_back(Bundle::Child{off, std::move(child)});
    }
    return std::make_shared<const Bundle>(rank, alloc, region, std::move(send), std::move(distr),
                                          std::move(children));
  }

 private:
  std::span<const std::int64_t> w_;
  std::size_t pos_ = 0;
};

/// Runs of addresses, in order; a run that continues the last one extends it.
struct RunSink {
  std::vector<Tuple> runs;
  std::int64_t entries = 0;
  void add(std::int64_t off, std::int64_t len) {
    visit();
    if (!runs.empty() && runs.back().offset + runs.back().length == off)
      runs.back().length += len;
    else
      runs.push_back(Tuple{off, len});
    entries += len;
  }
};

/// The child of `node` whose receive region holds memory position a; throws when none does.
const Bundle::Child& child_at(const Bundle& node, std::int64_t a) {
  for (const Bundle::Child& ch : node.children())
    if (a >= ch.recv_offset && a < ch.end) return ch;
  throw std::logic_error("iec inspector: rank " + std::to_string(node.rank()) + "'s memory position " +
                         std::to_string(a) + " is described by no datatype of its bundle");
}

/// end - a for a position a below end, saturated: a parsed bundle can carry any offsets.
std::int64_t room(std::int64_t end, std::int64_t a) {
  std::int64_t r = 0;
  return __builtin_sub_overflow(end, a, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

/// Whether memory position a of `node` lies in its initial region.
bool in_initial(const Bundle& node, std::int64_t a) {
  return a >= node.alloc() && a < node.initial_end();
}

/// resolve() of a single entry: one piece per level, walked down without recursion (small block sizes
/// resolve mostly single entries). Returns the same count of tuples visited as resolve().
std::int64_t resolve_one(const Bundle* node, std::int64_t a, RunSink& out) {
  for (std::int64_t work = 1;; ++work) {
    visit();
    if (in_initial(*node, a)) {
      if (node->distr() == nullptr) malformed("initial region referenced but not described");
      out.add(node->distr()->map(a - node->alloc()), 1);
      return work;
    }
    const Bundle::Child& c = child_at(*node, a);
    a = c.node->send().map(a - c.recv_offset);
    node = c.node.get();
  }
}

/// distr's entries [k, k + m) into `out`: the replicas the range covers whole as one block, the rest as
/// runs. Returns the tuple pieces visited, as IndexedDatatype::for_runs would visit them one by one.
std::int64_t distr_blocks(const IndexedDatatype& dt, std::int64_t k, std::int64_t m, BlockSink& out) {
  std::int64_t work = 0;
  auto single = [&](std::int64_t off, std::int64_t len) {
    ++work;
    out.add(off, len);
  };
  const std::int64_t rs = dt.replica_entries();
  if (k >= 0 && m <= dt.size() - k && rs > 0 && m >= rs) {  // (a range outside: for_runs throws below)
    const std::int64_t lead = (rs - k % rs) % rs;           // entries before the next whole replica
    dt.for_runs(k, lead, single);
    k += lead;
    m -= lead;
    if (const std::int64_t whole = m / rs; whole > 0) {
      const Datatype& d = dt.datatype();
      const std::int64_t pieces = out.add_replicas(d.tuples, (k / rs) * d.stride, whole, d.stride);
      work += whole * pieces;
      k += whole * rs;
      m -= whole * rs;
    }
  }
  dt.for_runs(k, m, single);
  return work;
}

/// The logical addresses of entries [k, k + m) of `node`'s initial region (its distribution datatype), as
/// runs or as blocks; returns the tuple pieces visited.
template <class Sink>
std::int64_t initial_region(const Bundle& node, std::int64_t k, std::int64_t m, Sink& out) {
  if (node.distr() == nullptr) malformed("initial region referenced but not described");
  if constexpr (std::is_same_v<Sink, RunSink>) {
    std::int64_t work = 0;
    node.distr()->for_runs(k, m, [&](std::int64_t off, std::int64_t len) {
      ++work;
      out.add(off, len);
    });
    return work;
  } else {
    return distr_blocks(*node.distr(), k, m, out);
  }
}

/// Appends the logical addresses of entries [a, a + n) of `node`'s memory (L6-L8, recursively through the
/// datatypes that node's rank received). Returns the tuples visited. Into a RunSink every tuple piece is a
/// run; into a BlockSink a range that covers whole replicas of a distribution datatype stays one block
/// (the paper's §3.3.2: the tuples of a block-cyclic distribution follow from its parameters), and its
/// tuples visited are counted in closed form: the same count either way.
template <class Sink>
std::int64_t resolve(const Bundle& node, std::int64_t a, std::int64_t n, Sink& out) {
  if constexpr (std::is_same_v<Sink, RunSink>)
    if (n == 1) return resolve_one(&node, a, out);
  std::int64_t work = 0;
  while (n > 0) {
    visit();
    std::int64_t m = 0;
    if (in_initial(node, a)) {
      m = std::min(n, room(node.initial_end(), a));
      work += initial_region(node, a - node.alloc(), m, out);
    } else {
      const Bundle::Child* c = &child_at(node, a);
      m = std::min(n, room(c->end, a));
      c->node->send().for_runs(a - c->recv_offset, m, [&](std::int64_t off, std::int64_t len) {
        visit();
        work += 1 + resolve(*c->node, off, len, out);
      });
    }
    a += m;
    n -= m;
  }
  return work;
}

template <class Sink>
std::int64_t resolve_progression(const Bundle& node, std::int64_t a, std::int64_t step, std::int64_t len,
                                 std::int64_t n, Sink& out);

/// The part of resolve_progression() in the receive region of child `c`: slot ranges [b + i * step, + len)
/// of c's send datatype, i < n, each within the region. Where the ranges fall inside the tuples of one of
/// its segments, their images in c's memory are again a progression of ranges and are followed down as one;
/// a range that crosses a tuple boundary is resolved alone. Returns the tuples visited.
template <class Sink>
std::int64_t through_child(const Bundle::Child& c, std::int64_t b, std::int64_t step, std::int64_t len,
                           std::int64_t n, Sink& out) {
  const StridedDatatype& dt = c.node->send();
  const std::int64_t rs = dt.replica_entries();
  const auto segs = dt.segments();
  std::int64_t work = 0;
  while (n > 0) {
    visit();
    const std::int64_t rep = b / rs;
    const std::int64_t within = b % rs;
    const StridedDatatype::Segment& g = segs[dt.segment_at(within)];
    const std::int64_t lam = g.length;
    const std::int64_t j = lam > 0 ? (within - g.first) / lam : 0;
    const std::int64_t u = lam > 0 ? (within - g.first) % lam : 0;
    std::int64_t m = 0;      // ranges taken together
    std::int64_t pstep = 0;  // their step in c's memory (only computed for two or more: no overflow)
    if (lam > 0 && u + len <= lam) {
      if (step >= lam && step % lam == 0) {  // a range per tuple, every step / lam tuples
        const std::int64_t q = step / lam;
        m = std::min(n, (g.tuples - 1 - j) / q + 1);
        if (m > 1) pstep = q * g.step;  // q (m - 1) tuples of the segment: within its extent
      } else if (step < lam) {          // several ranges in one tuple, as many as it holds
        m = std::min(n, (lam - len - u) / step + 1);
        pstep = step;
      }
    }
    if (m <= 0) {  // a range across tuples (or a step the segment does not follow): resolved alone
      dt.for_runs(b, len,
                  [&](std::int64_t off, std::int64_t l) { work += 1 + resolve(*c.node, off, l, out); });
      m = 1;
    } else {
      // One piece per range (resolve()'s 1 + for each), then the images as one progression.
      const std::int64_t first = g.offset + j * g.step + u + rep * dt.stride();
      work += m + resolve_progression(*c.node, first, pstep, len, m, out);
    }
    n -= m;
    if (n > 0) b += m * step;  // the next range's first slot (never one past the last range: no overflow)
  }
  return work;
}

/// resolve() of the ranges [a + i * step, + len) of `node`'s memory for i < n, one after the other, into
/// `out`: the same blocks in the same order and the same tuples visited. Ranges that lie in one region are
/// followed down the bundles together (through_child), so a send datatype's segment costs a walk per level
/// instead of one per tuple: at Nx = Np^2 a phase-ph bundle's 2^ph tuples come from 2^ph origin ranks but
/// form about ph + 1 progressions (§3.3.2's parametrisation; docs/iec.md, "Nested descriptors").
template <class Sink>
std::int64_t resolve_progression(const Bundle& node, std::int64_t a, std::int64_t step, std::int64_t len,
                                 std::int64_t n, Sink& out) {
  std::int64_t work = 0;
  while (n > 0) {
    visit();
    if (n == 1 || step < len) {  // one range, or ranges that overlap or touch: one by one
      for (std::int64_t i = 0; i < n; ++i) work += resolve(node, a + i * step, len, out);
      return work;
    }
    const bool initial = in_initial(node, a);
    const Bundle::Child* c = initial ? nullptr : &child_at(node, a);
    const std::int64_t hi = initial ? node.initial_end() : c->end;  // regions do not overlap (check_parsed)
    std::int64_t m = 1;
    if (len > room(hi, a)) {  // the first range leaves its region
      work += resolve(node, a, len, out);
    } else {
      m = std::min(n, (room(hi, a) - len) / step + 1);  // the ranges inside the region
      if (initial)
        for (std::int64_t i = 0; i < m; ++i)
          work += initial_region(node, a + i * step - node.alloc(), len, out);
      else
        work += through_child(*c, a - c->recv_offset, step, len, m, out);
    }
    n -= m;
    if (n > 0) a += m * step;  // the next range (never one past the last: no overflow)
  }
  return work;
}

/// A scratch vector kept for the thread's life, so that the large per-phase temporaries reuse memory the
/// process already has instead of faulting fresh pages in at every phase (the kernel's page clearing was
/// the inspector's largest cost on large lists). Safe to share between the ranks of a simulation: an
/// inspector step never yields to another rank while it uses it.
template <class T>
std::vector<T>& scratch() {
  thread_local std::vector<T> v;
  return v;
}

/// Sorts `v` by `key` (non-negative after subtracting the minimum) with an LSD radix sort: the received
/// entries arrive in the sender's memory order, and a comparison sort would dominate the inspector's time.
template <class T, class Key>
void radix_sort(std::vector<T>& v, Key key) {
  if (v.size() < 2) return;
  std::int64_t lo = key(v.front());
  std::int64_t hi = lo;
  visit(static_cast<std::int64_t>(v.size()));
  for (const T& x : v) {
    lo = std::min(lo, key(x));
    hi = std::max(hi, key(x));
  }
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  std::vector<T>& tmp = scratch<T>();
  tmp.resize(v.size());
  const auto range = static_cast<std::uint64_t>(hi - lo);
  for (int shift = 0; shift < 64 && (range >> shift) != 0; shift += kBits) {
    std::vector<std::size_t> start(kBuckets + 1, 0);
    auto digit = [&](const T& x) {
      return (static_cast<std::uint64_t>(key(x) - lo) >> shift) & (kBuckets - 1);
    };
    visit(2 * static_cast<std::int64_t>(v.size()) + static_cast<std::int64_t>(kBuckets));
    for (const T& x : v) ++start[digit(x) + 1];
    for (std::size_t b = 0; b < kBuckets; ++b) start[b + 1] += start[b];
    for (const T& x : v) tmp[start[digit(x)]++] = x;
    v.swap(tmp);
  }
}

/// Sets bits [lo, hi) of `bits`.
void set_bits(std::vector<std::uint64_t>& bits, std::int64_t lo, std::int64_t hi) {
  while (lo < hi) {
    visit();
    const auto w = static_cast<std::size_t>(lo >> 6);
    const int from = static_cast<int>(lo & 63);
    const int n = static_cast<int>(std::min<std::int64_t>(64 - from, hi - lo));
    bits[w] |= (n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1)) << from;
    lo += n;
  }
}

/// The maximal runs of set bits, in ascending order, as {offset, length}.
std::vector<Tuple> bit_runs(const std::vector<std::uint64_t>& bits) {
  visit(static_cast<std::int64_t>(bits.size()));  // every word is read once
  std::vector<Tuple> runs;
  const auto words = static_cast<std::int64_t>(bits.size());
  std::int64_t w = 0;
  std::uint64_t cur = words > 0 ? bits[0] : 0;
  for (;;) {
    while (cur == 0) {  // the next set bit
      if (++w >= words) return runs;
      cur = bits[static_cast<std::size_t>(w)];
    }
    const int tz = std::countr_zero(cur);
    const std::int64_t start = w * 64 + tz;
    cur |= (std::uint64_t{1} << tz) - 1;  // the bits below are done: count the ones from bit 0
    int ones = std::countr_one(cur);
    while (ones == 64) {  // the run goes on into the next word
      if (++w >= words) {
        runs.push_back(Tuple{start, w * 64 - start});
        return runs;
      }
      cur = bits[static_cast<std::size_t>(w)];
      ones = std::countr_one(cur);
    }
    runs.push_back(Tuple{start, w * 64 + ones - start});
    cur &= ~((ones == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << ones) - 1)));
  }
}

/// Joins adjacent runs of `v` that continue each other in both addresses (and, in a periodic list, step
/// alike from one replica to the next).
template <class Run>
void join_runs(std::vector<Run>& v, bool periodic) {
  visit(static_cast<std::int64_t>(v.size()));
  std::size_t out = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (out > 0 && v[out - 1].logical + v[out - 1].length == v[i].logical &&
        v[out - 1].physical + v[out - 1].length == v[i].physical &&
        (!periodic || v[out - 1].pstride == v[i].pstride))
      v[out - 1].length += v[i].length;
    else
      v[out++] = v[i];
  }
  v.resize(out);
}

}  // namespace

Bundle::Bundle(std::int64_t rank, std::int64_t alloc, std::int64_t region, StridedDatatype send,
               std::shared_ptr<const IndexedDatatype> distr, std::vector<Child> children)
    : rank_(rank),
      alloc_(alloc),
      region_(region),
      send_(std::move(send)),
      distr_(std::move(distr)),
      children_(std::move(children)) {
  // Saturated sums: a parsed bundle can carry any values, and no position lies beyond the int64 limits.
  if (__builtin_add_overflow(alloc_, region_, &initial_end_))
    initial_end_ =
        region_ > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  words_ = 3 + datatype_words(send_) + 1 + (distr_ ? datatype_words(distr_->datatype()) : 0) + 1;
  for (Child& c : children_) {
    words_ += 2 + c.node->words();
    if (__builtin_add_overflow(c.recv_offset, c.node->send().size(), &c.end))
      c.end = std::numeric_limits<std::int64_t>::max();
  }
}

void Bundle::put(std::int64_t*& out) const {
  *out++ = rank_;
  *out++ = alloc_;
  *out++ = region_;
  put_datatype(out, send_);
  *out++ = distr_ ? 1 : 0;
  if (distr_) put_datatype(out, distr_->datatype());
  *out++ = static_cast<std::int64_t>(children_.size());
  for (const Child& c : children_) {
    *out++ = c.recv_offset;
    *out++ = c.node->words();
    c.node->put(out);
  }
}

std::vector<std::int64_t> Bundle::serialize_words() const {
  std::vector<std::int64_t> w(static_cast<std::size_t>(words_));
  std::int64_t* out = w.data();
  put(out);
  return w;
}

void Bundle::serialize(std::span<std::byte> out) const {
  if (static_cast<std::int64_t>(out.size()) != wire_size())
    throw std::logic_error("iec inspector: a bundle serialized into a buffer of the wrong size");
  const std::vector<std::int64_t> w = serialize_words();
  std::memcpy(out.data(), w.data(), out.size());
}

BundlePtr Bundle::parse(std::span<const std::int64_t> words) {
  Reader reader(words);
  BundlePtr root = reader.node(0);
  if (!reader.done()) malformed("trailing words");
  return root;
}

SharedMessagePtr Bundle::decode(std::span<const std::byte> bytes) {
  if (bytes.size() % sizeof(std::int64_t) != 0) malformed("not a whole number of words");
  std::vector<std::int64_t> w(bytes.size() / sizeof(std::int64_t));
  std::memcpy(w.data(), bytes.data(), bytes.size());
  return parse(w);
}

Inspector::Inspector(const Distribution& d, int rank, Lists lists)
    : rank_(rank), np_(d.nprocs()), nph_(0), nx_(d.nx), half_(0), alloc_offset_(0), buffer_entries_(0) {
  const std::string vals = " (Nx=" + std::to_string(nx_) + ", Np=" + std::to_string(np_) + ")";
  if (np_ <= 0 || !std::has_single_bit(static_cast<unsigned>(np_)))
    throw std::invalid_argument("IEC needs a power-of-two number of ranks (Np=" + std::to_string(np_) +
                                "; valid: 1, 2, 4, 8, 16, ...)");
  if (rank < 0 || rank >= np_)
    throw std::invalid_argument("iec inspector: rank must be in [0, Np) (rank=" + std::to_string(rank) + ")" +
                                vals);
  if (nx_ <= 0 || (np_ > 1 && nx_ % (2 * static_cast<std::int64_t>(np_)) != 0))
    throw std::invalid_argument("IEC needs Nx > 0 divisible by 2*Np" + vals);
  nph_ = num_phases(np_);
  half_ = nx_ / (2 * static_cast<std::int64_t>(np_));
  alloc_offset_ = alloc_offset(rank, nx_, np_);
  buffer_entries_ = buffer_entries(nx_, np_);
  const Datatype& distr = d.per_rank[static_cast<std::size_t>(rank)];
  const std::int64_t own = nx_ / np_;
  if (distr.size() != own)
    throw std::invalid_argument("IEC needs every rank to hold Nx/Np=" + std::to_string(own) +
                                " entries (rank " + std::to_string(rank) + " holds " +
                                std::to_string(distr.size()) + ")" + vals);
  // Memory mapping list (L1-L2): the k-th local entry sits at alloc_offset + k.
  Metered metered(work_);
  tuples_ += distr.all_tuples();
  if (lists == Lists::periodic && distr.count > 1 && distr.stride > 0) {
    // One replica's runs: when they ascend within one stride, the list is them repeated with that period.
    const std::int64_t rs = distr.replica_size();
    std::int64_t k = alloc_offset_;
    bool fits = true;
    visit(static_cast<std::int64_t>(distr.tuples.size()));
    for (const Tuple& t : distr.tuples) {
      if (t.length <= 0) continue;
      if (!list_.empty() && list_.back().logical + list_.back().length > t.offset) fits = false;
      list_.push_back(Run{t.offset, k, t.length, rs});
      k += t.length;
    }
    if (fits && !list_.empty() &&
        list_.back().logical + list_.back().length - list_.front().logical <= distr.stride) {
      reps_ = distr.count;
      period_ = distr.stride;
    } else {
      list_.clear();
    }
  }
  if (reps_ == 1) {
    list_.reserve(static_cast<std::size_t>(distr.count) * distr.tuples.size());
    std::int64_t k = alloc_offset_;
    bool sorted = true;
    visit(distr.all_tuples());
    for (std::int64_t j = 0; j < distr.count; ++j)
      for (const Tuple& t : distr.tuples) {
        if (t.length <= 0) continue;
        const Run r{t.offset + j * distr.stride, k, t.length};
        if (!list_.empty() && list_.back().logical + list_.back().length - 1 > r.logical) sorted = false;
        list_.push_back(r);
        k += t.length;
      }
    if (!sorted) {
      radix_sort(list_, [](const Run& e) { return e.logical; });
      tuples_ += own;
    }
  }
  join_runs(list_, reps_ > 1);
  compact();
  progressions_ = lists == Lists::periodic;
  received_.resize(static_cast<std::size_t>(nph_));
  distr_ = std::make_shared<const IndexedDatatype>(distr);
}

int Inspector::phases() const {
  return nph_;
}

std::int64_t Inspector::tuples_processed() const {
  return tuples_;
}

std::int64_t Inspector::work() const {
  return work_;
}

std::vector<Inspector::Run> Inspector::split_half(bool second, std::int64_t& reps) {
  reps = 1;
  if (reps_ > 1) {
    // Whole replicas on each side: both halves keep the pattern, the upper one shifted by half the replicas.
    std::int64_t per = 0;
    for (const Run& r : list_) per += r.length;
    if (reps_ % 2 == 0 && per * (reps_ / 2) == half_) {
      const std::int64_t h = reps_ / 2;
      visit(2 * static_cast<std::int64_t>(list_.size()));  // the pattern summed and copied
      std::vector<Run> upper(list_);
      for (Run& r : upper) {
        r.logical += h * period_;
        r.physical += h * r.pstride;
      }
      reps_ = h;
      reps = h;
      if (!second) list_.swap(upper);  // keep the upper half, send the lower
      compact();
      return upper;
    }
    unroll();
  }
  // Property 4 (L3): towards a higher rank the second half (higher logicals), else the first half: split
  // the list after its first Nx/(2 Np) entries.
  std::size_t cut = 0;
  visit(static_cast<std::int64_t>(list_.size()));  // walked to the cut, then copied or moved past it
  for (std::int64_t before = 0; cut < list_.size(); ++cut) {
    const std::int64_t len = list_[cut].length;
    if (before + len > half_) {
      const std::int64_t keep = half_ - before;
      if (keep > 0) {
        Run tail{list_[cut].logical + keep, list_[cut].physical + keep, len - keep};
        list_[cut].length = keep;
        list_.insert(list_.begin() + static_cast<std::ptrdiff_t>(cut) + 1, tail);
        ++cut;
      }
      break;
    }
    before += len;
    if (before == half_) {
      ++cut;
      break;
    }
  }
  const auto mid = list_.begin() + static_cast<std::ptrdiff_t>(cut);
  std::vector<Run> sent(second ? mid : list_.begin(), second ? list_.end() : mid);
  list_.erase(second ? mid : list_.begin(), second ? list_.end() : mid);
  return sent;
}

void Inspector::compact() {
  // One run that fills its period and steps by it is one contiguous run.
  if (reps_ > 1 && list_.size() == 1 && list_[0].length == period_ && list_[0].pstride == period_) {
    list_[0].length *= reps_;
    reps_ = 1;
  }
}

std::vector<Inspector::Run> Inspector::unrolled(const std::vector<Run>& runs, std::int64_t reps,
                                                std::int64_t period) {
  std::vector<Run> flat;
  flat.reserve(runs.size() * static_cast<std::size_t>(reps));
  visit(static_cast<std::int64_t>(runs.size()) * reps);
  for (std::int64_t j = 0; j < reps; ++j)
    for (const Run& r : runs)
      flat.push_back(Run{r.logical + j * period, r.physical + j * r.pstride, r.length, 0});
  join_runs(flat, false);
  return flat;
}

void Inspector::unroll() {
  if (reps_ == 1) return;
  list_ = unrolled(list_, reps_, period_);
  reps_ = 1;
}

BundlePtr Inspector::outgoing(int ph) {
  if (ph != next_out_ || ph >= nph_ || next_in_ != ph)
    throw std::logic_error("iec inspector: outgoing(" + std::to_string(ph) + ") out of order");
  ++next_out_;
  Metered metered(work_);
  const int target = partner(rank_, ph);
  std::int64_t sent_reps = 1;
  std::vector<Run> sent = split_half(target > rank_, sent_reps);
  // L4: Compute_Datatype of the sent entries' positions in ascending order: the sent runs by position,
  // joined where they continue each other. A periodic half whose runs are contiguous from replica to replica
  // (block-cyclic: one run per stream) is a span per run; many short runs: through a bitmap of the memory.
  Datatype send;
  const bool spans = sent_reps > 1 && std::all_of(sent.begin(), sent.end(),
                                                  [](const Run& r) { return r.pstride == r.length; });
  if (sent_reps > 1 && !spans) sent = unrolled(sent, sent_reps, period_);
  if (spans) {
    visit(sort_steps(sent.size()));
    for (Run& r : sent) r.length *= sent_reps;
    std::sort(sent.begin(), sent.end(), [](const Run& a, const Run& b) { return a.physical < b.physical; });
  }
  if (!spans && sent.size() * 4 > static_cast<std::size_t>(buffer_entries_ / 64)) {
    std::vector<std::uint64_t> bits(static_cast<std::size_t>(buffer_entries_ / 64 + 1), 0);
    visit(static_cast<std::int64_t>(bits.size()));  // cleared
    for (const Run& r : sent) set_bits(bits, r.physical, r.physical + r.length);
    send.tuples = bit_runs(bits);
  } else {
    if (!spans) radix_sort(sent, [](const Run& r) { return r.physical; });
    RunSink positions;
    for (const Run& r : sent) positions.add(r.physical, r.length);
    send.tuples = std::move(positions.runs);
  }
  sent = {};
  tuples_ += half_ + static_cast<std::int64_t>(send.tuples.size());

  // The bundle: this rank's node, with the earlier bundles whose receive regions the send datatype touches.
  auto touches = [&](std::int64_t lo, std::int64_t hi) {  // does a sent position lie in [lo, hi)?
    auto it = std::upper_bound(send.tuples.begin(), send.tuples.end(), lo,
                               [](std::int64_t x, const Tuple& t) { return x < t.offset + t.length; });
    return it != send.tuples.end() && std::max(it->offset, lo) < hi;
  };
  const bool initial = touches(alloc_offset_, alloc_offset_ + 2 * half_);
  std::vector<Bundle::Child> children;
  for (int k = 0; k < ph; ++k) {
    const std::int64_t off = phases_[static_cast<std::size_t>(k)].recv_offset;
    if (touches(off, off + half_))
      children.push_back(Bundle::Child{off, received_[static_cast<std::size_t>(k)]});
  }
  // The plan and the bundle share the send datatype, held as strided segments (O(regions of the memory) at
  // Nx = Np^2 instead of O(Np) tuples).
  visit(static_cast<std::int64_t>(send.tuples.size()));  // held as segments
  const StridedDatatype held(send);
  send = {};
  auto out = std::make_shared<const Bundle>(rank_, alloc_offset_, 2 * half_, held, initial ? distr_ : nullptr,
                                            std::move(children));
  phases_.push_back(Phase{target, recv_offset(rank_, ph, nx_, np_), held});
  return out;
}

namespace {

/// Whether every address `dt` selects (non-empty tuples, every replica) lies in [0, size).
/// check_datatype_range (datatype.hpp) has made these sums safe.
bool selects_within(const Datatype& dt, std::int64_t size) {
  const std::int64_t shift = dt.count > 1 ? (dt.count - 1) * dt.stride : 0;
  for (const Tuple& t : dt.tuples)
    if (t.length > 0 && dt.count > 0 &&
        (std::min(t.offset, t.offset + shift) < 0 || std::max(t.offset, t.offset + shift) + t.length > size))
      return false;
  return true;
}

/// A parsed bundle stays within what its ranks can hold, as one built in memory does: its regions (the
/// initial one and each child's receive region) inside a buffer of `buffer` entries and apart from each
/// other, every position a send datatype selects inside the buffer, every address a distribution datatype
/// selects in [0, nx). (One from a peer's words can carry anything.)
void check_parsed(const Bundle& b, std::int64_t buffer, std::int64_t nx) {
  auto inside = [](std::int64_t lo, std::int64_t n, std::int64_t size) {
    return lo >= 0 && n >= 0 && lo <= size && n <= size - lo;
  };
  if (!inside(b.alloc(), b.region(), buffer)) malformed("an initial region outside the buffer");
  if (!selects_within(b.send().datatype(), buffer))
    malformed("a send datatype selects positions outside the buffer");
  if (b.distr() != nullptr && !selects_within(b.distr()->datatype(), nx))
    malformed("a distribution datatype selects entries outside x");
  std::vector<Tuple> regions{{b.alloc(), b.region()}};
  for (const Bundle::Child& c : b.children()) {
    if (!inside(c.recv_offset, c.node->send().size(), buffer))
      malformed("a receive region outside the buffer");
    regions.push_back(Tuple{c.recv_offset, c.node->send().size()});
    check_parsed(*c.node, buffer, nx);
  }
  std::sort(regions.begin(), regions.end(),
            [](const Tuple& x, const Tuple& y) { return x.offset < y.offset; });
  for (std::size_t i = 1; i < regions.size(); ++i)
    if (regions[i - 1].length > 0 && regions[i].length > 0 &&
        regions[i - 1].offset + regions[i - 1].length > regions[i].offset)
      malformed("overlapping regions");
}

}  // namespace

void Inspector::incoming(int ph, const std::vector<std::int64_t>& words) {
  const BundlePtr b = Bundle::parse(words);
  check_parsed(*b, buffer_entries_, nx_);
  incoming(ph, b);
}

void Inspector::incoming(int ph, const BundlePtr& bundle) {
  if (ph != next_in_ || next_out_ != ph + 1)
    throw std::logic_error("iec inspector: incoming(" + std::to_string(ph) + ") out of order");
  ++next_in_;
  Metered metered(work_);
  if (!bundle) throw std::invalid_argument("iec inspector: no bundle from the partner");
  const Bundle& root = *bundle;
  const int target = partner(rank_, ph);
  if (root.rank() != target)
    throw std::invalid_argument("iec inspector: phase " + std::to_string(ph) + " bundle comes from rank " +
                                std::to_string(root.rank()) + ", expected partner " + std::to_string(target));
  if (root.send().size() != half_)
    throw std::invalid_argument("iec inspector: partner " + std::to_string(target) + " sends " +
                                std::to_string(root.send().size()) + " entries in phase " +
                                std::to_string(ph) + ", expected Nx/(2*Np)=" + std::to_string(half_));
  tuples_ += root.words() / 2;
  // L6-L8: received slot i holds the partner's memory position Phy2Log(Input_Datatype, i); resolve it.
  // A periodic list resolves into blocks and keeps its form when they share its period (block-cyclic);
  // otherwise every received entry is resolved into runs, and the list unrolled.
  const std::int64_t base = phases_[static_cast<std::size_t>(ph)].recv_offset;
  bool merged = false;
  RunSink logical;
  // The partner's send datatype: segment by segment, a segment's tuples followed down the bundles together
  // (resolve_progression); the flat lists, which the tests take as the reference, tuple by tuple.
  auto resolve_sent = [&](auto& sink) {
    const StridedDatatype& sent = root.send();
    if (!progressions_) {
      sent.for_runs(0, half_, [&](std::int64_t off, std::int64_t len) {
        tuples_ += 1 + resolve(root, off, len, sink);
      });
      return;
    }
    for (std::int64_t rep = 0; rep < sent.count(); ++rep)
      for (const StridedDatatype::Segment& g : sent.segments())
        if (g.length > 0)
          tuples_ += g.tuples + resolve_progression(root, g.offset + rep * sent.stride(), g.step, g.length,
                                                    g.tuples, sink);
  };
  if (reps_ > 1) {
    BlockSink blocks;
    resolve_sent(blocks);
    merged = merge_periodic(blocks, base);
    if (!merged) {
      unroll();
      blocks.for_each_run([&](std::int64_t off, std::int64_t len) { logical.add(off, len); });
    }
  } else {
    resolve_sent(logical);
  }
  if (!merged) {
    std::vector<Run> fresh;
    fresh.reserve(logical.runs.size());
    visit(static_cast<std::int64_t>(logical.runs.size()));
    std::int64_t slot = 0;
    for (const Tuple& t : logical.runs) {
      fresh.push_back(Run{t.offset, base + slot, t.length});
      slot += t.length;
    }
    logical = {};
    merge_flat(std::move(fresh));
  }
  tuples_ += 2 * half_;  // the list's entries after the merge
  received_[static_cast<std::size_t>(ph)] = bundle;
}

bool Inspector::merge_periodic(const BlockSink& blocks, std::int64_t base) {
  // Block b fills slots [slot, slot + count * per) replica by replica, so its run i steps by per slots.
  std::vector<Run> merged(list_);
  std::int64_t slot = 0;
  for (const BlockSink::Block& b : blocks.blocks) {
    if (b.count != reps_ || b.lstride != period_) return false;
    std::int64_t per = 0;
    for (std::size_t i = b.first; i < b.first + b.n; ++i) per += blocks.tuples[i].length;
    std::int64_t at = base + slot;
    for (std::size_t i = b.first; i < b.first + b.n; ++i) {
      merged.push_back(Run{blocks.tuples[i].offset, at, blocks.tuples[i].length, per});
      at += blocks.tuples[i].length;
    }
    slot += per * b.count;
  }
  // L9 within one period: the replicas stay sorted while every run lies in one window of period_ entries.
  visit(static_cast<std::int64_t>(merged.size()) + sort_steps(merged.size()));
  std::sort(merged.begin(), merged.end(), [](const Run& a, const Run& b) { return a.logical < b.logical; });
  for (std::size_t i = 1; i < merged.size(); ++i)
    if (merged[i - 1].logical + merged[i - 1].length > merged[i].logical) return false;
  if (merged.back().logical + merged.back().length - merged.front().logical > period_) return false;
  list_ = std::move(merged);
  join_runs(list_, true);
  compact();
  return true;
}

void Inspector::merge_flat(std::vector<Run> fresh) {
  // L9: insert into the sorted list. The received entries come as a few ascending runs (one per region of
  // the sender's memory, recursively), so a natural merge of the list and those runs is usually cheapest.
  auto by_logical = [](const Run& a, const Run& b) { return a.logical < b.logical; };
  std::vector<std::size_t> bounds{0, list_.size()};
  visit(static_cast<std::int64_t>(fresh.size()));
  for (std::size_t i = 1; i < fresh.size(); ++i)
    if (fresh[i].logical < fresh[i - 1].logical) bounds.push_back(list_.size() + i);
  if (bounds.size() > 65) {
    radix_sort(fresh, [](const Run& e) { return e.logical; });
    bounds.resize(2);
  }
  bounds.push_back(list_.size() + fresh.size());
  list_.insert(list_.end(), fresh.begin(), fresh.end());
  fresh = {};
  std::vector<Run>& tmp = scratch<Run>();
  while (bounds.size() > 2) {  // merge adjacent runs pairwise until one is left (written in order)
    std::vector<std::size_t> next{0};
    tmp.clear();
    tmp.reserve(list_.size());
    visit(static_cast<std::int64_t>(list_.size()));
    for (std::size_t k = 0; k + 1 < bounds.size(); k += 2) {
      const std::size_t end = k + 2 < bounds.size() ? bounds[k + 2] : bounds[k + 1];
      std::merge(list_.begin() + static_cast<std::ptrdiff_t>(bounds[k]),
                 list_.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                 list_.begin() + static_cast<std::ptrdiff_t>(bounds[k + 1]),
                 list_.begin() + static_cast<std::ptrdiff_t>(end), std::back_inserter(tmp), by_logical);
      next.push_back(end);
    }
    list_.swap(tmp);
    bounds = std::move(next);
  }
  join_runs(list_, false);
}

bool Inspector::pack_periodic(RankPlan& plan) const {
  // The chunk: one period's runs back to back from file_offset, filling the period.
  if (reps_ == 1) return false;
  visit(2 * static_cast<std::int64_t>(list_.size()));
  std::int64_t next = plan.file_offset;
  for (const Run& r : list_) {
    if (r.logical != next || r.pstride != list_.front().pstride) return false;
    next += r.length;
  }
  if (next - plan.file_offset != period_ || period_ * reps_ != nx_ / np_) return false;
  for (std::size_t i = 1; i < list_.size(); ++i)
    if (list_[i].physical < list_[i - 1].physical + list_[i - 1].length) return false;
  // Compute_Datatype_Intervaled (datatype.cpp) of the positions in that order, in closed form: the first
  // period ascends and every run steps by s, so each replica is the first shifted by s. If replica 1 starts
  // below the end of replica 0, the first interval is one period, replicated reps_ times with stride s;
  // otherwise the positions ascend throughout and form one interval.
  const std::int64_t s = list_.front().pstride;
  const bool ascends = list_.front().physical + s > list_.back().physical + list_.back().length - 1;
  RunSink positions;
  for (std::int64_t j = 0; j < (ascends ? reps_ : 1); ++j)
    for (const Run& r : list_) positions.add(r.physical + j * s, r.length);
  plan.pack = StridedDatatype(ascends ? Datatype{std::move(positions.runs), 1, 0}
                                      : Datatype{std::move(positions.runs), reps_, s});
  return true;
}

RankPlan Inspector::finish() {
  if (finished_ || next_in_ != nph_)
    throw std::logic_error("iec inspector: finish() before all phases or twice");
  finished_ = true;
  Metered metered(work_);
  RankPlan plan;
  plan.rank = rank_;
  plan.alloc_offset = alloc_offset_;
  plan.buffer_entries = buffer_entries_;
  plan.phases = std::move(phases_);
  plan.file_offset = file_offset(rank_, nx_, np_);
  const std::int64_t own = nx_ / np_;
  if (pack_periodic(plan)) {  // L10 in closed form
    tuples_ += own;
    list_.clear();
    list_.shrink_to_fit();
    return plan;
  }
  unroll();
  std::vector<std::int64_t> physical;
  physical.reserve(static_cast<std::size_t>(own));
  std::int64_t entries = 0;
  for (const Run& r : list_) entries += r.length;
  // Every entry's position, then Compute_Datatype_Intervaled's walk over them.
  visit(static_cast<std::int64_t>(list_.size()) + 2 * entries);
  std::int64_t pos = 0;
  for (const Run& r : list_) {
    if (r.logical != plan.file_offset + pos || entries != own)
      throw std::logic_error("iec inspector: rank " + std::to_string(rank_) + " ends with entry " +
                             std::to_string(r.logical) + " at position " + std::to_string(pos) +
                             " of its list, expected the chunk [" + std::to_string(plan.file_offset) + ", " +
                             std::to_string(plan.file_offset + own) + ") (run iec::check first)");
    for (std::int64_t i = 0; i < r.length; ++i) physical.push_back(r.physical + i);
    pos += r.length;
  }
  plan.pack = StridedDatatype(compute_datatype_intervaled(physical));  // L10
  tuples_ += entries;
  list_.clear();
  list_.shrink_to_fit();
  return plan;
}

std::vector<RankPlan> inspect_all(const Distribution& d, Inspector::Lists lists) {
  std::vector<Inspector> insp;
  insp.reserve(static_cast<std::size_t>(d.nprocs()));
  for (int r = 0; r < d.nprocs(); ++r) insp.emplace_back(d, r, lists);
  if (insp.empty())
    throw std::invalid_argument("IEC needs a power-of-two number of ranks (Np=0; valid: 1, 2, 4, ...)");
  std::vector<BundlePtr> bundles(insp.size());
  for (int ph = 0; ph < insp.front().phases(); ++ph) {
    for (std::size_t r = 0; r < insp.size(); ++r) bundles[r] = insp[r].outgoing(ph);
    for (std::size_t r = 0; r < insp.size(); ++r)
      insp[r].incoming(ph, bundles[static_cast<std::size_t>(partner(static_cast<int>(r), ph))]);
  }
  std::vector<RankPlan> plans;
  for (Inspector& i : insp) plans.push_back(i.finish());
  return plans;
}

RankPlan inspect(Process& p, const Distribution& d, CpuCharge cost) {
  p.phase("inspector");
  Inspector insp(d, p.rank());
  if (d.nprocs() != p.size())
    throw std::invalid_argument("iec: the distribution has " + std::to_string(d.nprocs()) +
                                " ranks, the run has " + std::to_string(p.size()));
  // The implementation's work adds the bundles' words: on MPI each is serialized by its sender and parsed
  // and checked by its receiver (the simulator hands the object over, but charges what MPI's run does).
  std::int64_t words = 0;
  std::int64_t charged = 0;
  auto charge = [&] {
    const std::int64_t total = cost == CpuCharge::paper ? insp.tuples_processed() : insp.work() + words;
    p.compute(Work{.tuples = total - charged});
    charged = total;
  };
  charge();
  for (int ph = 0; ph < insp.phases(); ++ph) {
    const int target = partner(p.rank(), ph);
    const BundlePtr out = insp.outgoing(ph);
    words += out->words();
    charge();
    std::vector<std::int64_t> out_size{out->words()};
    std::vector<std::int64_t> in_size{0};
    std::vector<Request> reqs{p.isend(target, 1 + 2 * ph, as_bytes(out_size)),
                              p.irecv(target, 1 + 2 * ph, as_writable_bytes(in_size))};
    p.waitall(reqs);
    if (in_size[0] < 0 || in_size[0] > std::numeric_limits<std::int64_t>::max() / 8)
      throw std::invalid_argument("iec inspector: impossible bundle size from the partner (" +
                                  std::to_string(in_size[0]) + " words)");
    // The bundle as a shared message: on MPI its words, in the simulator the object itself (its subtrees
    // are the bundles received before, shared, not copied), charged as the same bytes.
    SharedMessagePtr in;
    reqs = {p.isend_shared(target, 2 + 2 * ph, out),
            p.irecv_shared(target, 2 + 2 * ph, in_size[0] * 8, &in, &Bundle::decode)};
    p.waitall(reqs);
    words += 2 * in_size[0];  // parsed, then checked
    insp.incoming(ph, std::dynamic_pointer_cast<const Bundle>(in));
    charge();
  }
  RankPlan plan = insp.finish();
  charge();
  return plan;
}

}  // namespace ciosim::iec
