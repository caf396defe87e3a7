// Strided pieces (algorithms/common/payload.hpp): a piece that holds equal runs of x at a constant stride, so
// that a rank's block-cyclic data, or anything gathered from it entry by entry, is one entry of the piece map
// instead of one per entry. The oracle is a plain array holding every byte's source: random edits of a piece
// map must agree with it byte for byte, however the map cuts and joins its pieces.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/technique.hpp"

using namespace ciosim;
using payload::Piece;

namespace {

/// Every byte's source, as the pieces say (kZero and kUndefined stay as they are).
std::vector<std::int64_t> expand(const std::vector<Piece>& ps) {
  std::vector<std::int64_t> out;
  for (const Piece& p : ps)
    for (std::int64_t k = 0; k < p.length; ++k) {
      if (p.grouped()) {
        const std::int64_t in = k % p.group;
        out.push_back(p.source + k / p.group * p.gstride + in / p.block * p.stride + in % p.block);
      } else if (p.strided())
        out.push_back(p.source + k / p.block * p.stride + k % p.block);
      else
        out.push_back(p.source >= 0 ? p.source + k : p.source);
    }
  return out;
}

/// One piece per byte: the most cut form of the same contents.
std::vector<Piece> bytewise(const std::vector<std::int64_t>& sources) {
  std::vector<Piece> out;
  for (const std::int64_t s : sources) out.push_back(Piece{1, s});
  return out;
}

/// A piece is well formed: a strided piece holds at least two whole runs of x at a stride other than its
/// run's length; a grouped piece at least two whole groups, each such a strided piece; nothing is empty.
bool well_formed(const std::vector<Piece>& ps) {
  const auto strided_ok = [](const Piece& p) {
    return p.block > 0 && p.length % p.block == 0 && p.runs() >= 2 && p.stride != p.block && p.source >= 0 &&
           p.source + (p.runs() - 1) * p.stride >= 0;
  };
  return std::all_of(ps.begin(), ps.end(), [&](const Piece& p) {
    if (p.length <= 0) return false;
    if (!p.strided()) return p.stride == 0 && !p.grouped();
    if (!p.grouped()) return p.gstride == 0 && strided_ok(p);
    if (p.group <= 0 || p.length % p.group != 0 || p.length / p.group < 2) return false;
    for (std::int64_t g = 0; g < p.length / p.group; ++g)
      if (!strided_ok(p.group_at(g))) return false;
    return true;
  });
}

/// pick(lo, hi): a uniform integer in [lo, hi] drawn from `rng`.
auto picker(std::mt19937_64& rng) {
  return [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
}

/// Random pieces of `len` bytes in total: runs of x, strided runs (any stride, backwards and zero too),
/// zeros, holes, entry-by-entry block-cyclic gathers whose joins make strided pieces, and strided pieces
/// of one shape one after the other, whose joins make grouped pieces.
std::vector<Piece> random_pieces(std::mt19937_64& rng, std::int64_t len) {
  std::vector<Piece> out;
  const auto pick = picker(rng);
  while (len > 0) {
    const std::int64_t n = pick(1, len);
    switch (pick(0, 5)) {
      case 0:
        out.push_back(Piece{n, pick(0, 1000)});
        break;
      case 1: {  // strided: runs of b bytes
        const std::int64_t b = pick(1, n);
        const std::int64_t runs = n / b;
        if (runs < 2) {
          out.push_back(Piece{n, pick(0, 1000)});
          break;
        }
        std::int64_t stride = pick(-40, 40);
        if (stride == b) ++stride;
        const std::int64_t lowest = std::max<std::int64_t>(0, -stride * (runs - 1));  // no run before x
        const std::int64_t first = pick(lowest, lowest + 2000);
        out.push_back(Piece{runs * b, first, b, stride});
        if (n > runs * b) out.push_back(Piece{n - runs * b, pick(0, 1000)});
        break;
      }
      case 2: {  // entry by entry, as a pack at Bx = 1 appends them
        const std::int64_t es = pick(1, 4);
        const std::int64_t np = pick(2, 9);
        const std::int64_t r = pick(0, np - 1);
        for (std::int64_t k = 0; k * es < n; ++k)
          payload::append(out, Piece{std::min(es, n - k * es), (r + k * np) * es});
        break;
      }
      case 3:
        out.push_back(Piece{n, payload::kZero});
        break;
      case 5: {  // strided pieces of one shape one after the other, as IEC's buffers hold ranks' streams
        const std::int64_t b = pick(1, 3);
        const std::int64_t runs = pick(2, 4);
        const std::int64_t size = b * runs;
        const std::int64_t groups = n / size;
        if (groups < 2) {
          out.push_back(Piece{n, pick(0, 1000)});
          break;
        }
        std::int64_t stride = pick(-20, 20);
        if (stride == b) ++stride;
        const std::int64_t gstride = pick(-30, 30);
        const std::int64_t lowest = std::max<std::int64_t>(0, -stride * (runs - 1)) +
                                    std::max<std::int64_t>(0, -gstride * (groups - 1));  // no source before x
        const std::int64_t first = pick(lowest, lowest + 500);
        for (std::int64_t g = 0; g < groups; ++g)
          payload::append(out, Piece{size, first + g * gstride, b, stride});
        if (n > groups * size) out.push_back(Piece{n - groups * size, pick(0, 1000)});
        break;
      }
      default:
        out.push_back(Piece{n, payload::kUndefined});
    }
    len -= n;
  }
  return out;
}

}  // namespace

TEST_CASE("strided pieces: equal runs of x at a stride join into one piece, and slice back", "[payload]") {
  std::vector<Piece> ps;
  for (std::int64_t k = 0; k < 1000; ++k) payload::append(ps, Piece{4, (3 + 16 * k) * 4});  // Np 16, Bx 1
  REQUIRE(ps.size() == 1);
  CHECK(ps[0] == Piece{4000, 12, 4, 64});
  payload::append(ps, Piece{4, 5});  // not the next run: a piece of its own
  CHECK(ps.size() == 2);
  payload::append(ps, Piece{8, 9});  // continues that one
  CHECK(ps.back() == Piece{12, 5});
  // A slice: the end of a run, whole runs, the start of a run.
  std::vector<Piece> s;
  payload::append_slice(s, Piece{4000, 12, 4, 64}, 6, 13);
  CHECK(s == std::vector<Piece>{{2, 78}, {8, 140, 4, 64}, {3, 268}});
  s.clear();
  payload::append_slice(s, Piece{4000, 12, 4, 64}, 8, 4);  // one whole run is a run
  CHECK(s == std::vector<Piece>{{4, 140}});
  // A run, then a strided piece it starts: one piece.
  s = {{4, 76}};
  payload::append(s, Piece{8, 140, 4, 64});
  CHECK(s == std::vector<Piece>{{12, 76, 4, 64}});
  // Compared by contents: strided pieces of one shape a whole piece at a time, cut anywhere, or changed.
  const std::vector<Piece> whole{{4000, 12, 4, 64}};
  CHECK(payload::same_contents(whole, std::vector<Piece>{{2000, 12, 4, 64}, {2000, 12 + 500 * 64, 4, 64}}));
  std::vector<Piece> cut;
  payload::append_slice(cut, whole[0], 0, 6);
  cut.push_back(Piece{2, 78});  // the rest of run 1, not joined
  payload::append_slice(cut, whole[0], 8, 3992);
  CHECK(payload::same_contents(whole, cut));
  CHECK_FALSE(payload::same_contents(whole, std::vector<Piece>{{4000, 12, 4, 65}}));
  CHECK_FALSE(
      payload::same_contents(whole, std::vector<Piece>{{2000, 12, 4, 64}, {2000, 13 + 500 * 64, 4, 64}}));
  CHECK_FALSE(payload::same_contents(whole, std::vector<Piece>{{3996, 12, 4, 64}}));
  // Zeros, holes and literals never stride.
  s = {{4, payload::kZero}};
  payload::append(s, Piece{4, 100});
  payload::append(s, Piece{4, payload::kZero});
  CHECK(s.size() == 3);
}

TEST_CASE("strided pieces: a rank's block-cyclic data is one piece, and its pack at Bx = 1 too",
          "[payload]") {
  const payload::ModeScope scope(payload::Mode::Elided);
  Distribution d;
  d.nx = 16 * 4096;
  for (std::int64_t r = 0; r < 16; ++r) d.per_rank.push_back(Datatype{{{r, 1}}, 4096, 16});
  const payload::Buffer local = make_local_payload(d, 5, 4);
  CHECK(payload::pieces(local) == std::vector<Piece>{{4 * 4096, 20, 4, 64}});
  // Every other entry (IEC's first butterfly phase keeps half): still one piece.
  payload::Buffer half(2 * 4096);
  pack(local, Datatype{{{1, 1}}, 2048, 2}, 4, half);
  CHECK(payload::pieces(half) == std::vector<Piece>{{2 * 4096, 20 + 64, 4, 128}});
  // Unpacked into every other entry of a fresh buffer: each entry a piece, between holes.
  payload::Buffer back(4 * 4096);
  unpack(half, Datatype{{{1, 1}}, 2048, 2}, 4, back);
  const std::vector<Piece> got = payload::pieces(back);
  CHECK(got.size() == 2 * 2048);  // entry, hole, entry, hole, ...: nothing to join across the holes
  CHECK(got[1] == Piece{4, 20 + 64});
  CHECK(got[0] == Piece{4, payload::kUndefined});
  // Filling the holes from the rank's own data makes the whole buffer one piece again.
  payload::Buffer evens(2 * 4096);
  pack(local, Datatype{{{0, 1}}, 2048, 2}, 4, evens);
  unpack(evens, Datatype{{{0, 1}}, 2048, 2}, 4, back);
  CHECK(payload::pieces(back) == payload::pieces(local));
  CHECK(payload::same_contents(payload::pieces(back), payload::pieces(local)));
}

TEST_CASE("strided pieces: a cursor's takes append what slicing each piece appends", "[payload]") {
  // The reference: bytes [a, a + n) of the sequence cut out piece by piece with append_slice.
  auto slices = [](const std::vector<Piece>& ps, std::int64_t a, std::int64_t n, std::vector<Piece>& out) {
    std::int64_t at = 0;
    for (const Piece& p : ps) {
      const std::int64_t lo = std::max(a, at);
      const std::int64_t hi = std::min(a + n, at + p.length);
      if (p.length > 0 && lo < hi) payload::append_slice(out, p, lo - at, hi - lo);
      at += p.length;
    }
  };
  std::mt19937_64 rng(11);
  const auto pick = picker(rng);
  for (int trial = 0; trial < 400; ++trial) {
    const std::vector<Piece> ps = random_pieces(rng, pick(1, 300));
    const std::int64_t total = payload::length_of(ps);
    // Sometimes a piece already there that the first take continues (a window filled in file order).
    std::vector<Piece> mine;
    if (pick(0, 1) == 1) {
      payload::PieceCursor probe(ps);
      if (!probe.done() && probe.source() >= 0 && probe.source() >= 3)
        mine.push_back(Piece{3, probe.source() - 3});
    }
    std::vector<Piece> expected = mine;
    payload::PieceCursor cursor(ps);
    for (std::int64_t a = 0; a < total;) {
      const std::int64_t n = std::min(total - a, pick(1, 9));
      cursor.take(n, mine);
      slices(ps, a, n, expected);
      a += n;
      INFO("trial " << trial << ", bytes " << a);
      REQUIRE(mine == expected);
    }
    CHECK(cursor.done());
    CHECK(well_formed(mine));
  }
}

TEST_CASE("strided pieces: a piece map agrees byte for byte with an array of sources under random edits",
          "[payload]") {
  constexpr std::int64_t kN = 300;
  std::mt19937_64 rng(14);
  const auto pick = picker(rng);
  std::int64_t grouped = 0;  // grouped pieces seen in the map: the edits exercise them
  for (int round = 0; round < 150; ++round) {
    payload::PieceMap m;
    std::vector<std::int64_t> ref(kN, payload::kUndefined);
    for (int op = 0; op < 40; ++op) {
      const std::int64_t pos = pick(0, kN - 1);
      const std::int64_t len = pick(1, kN - pos);
      if (pick(0, 5) == 0) {
        m.erase(pos, len);
        std::fill(ref.begin() + pos, ref.begin() + pos + len, payload::kUndefined);
      } else {
        const std::vector<Piece> ps = random_pieces(rng, len);
        REQUIRE(payload::length_of(ps) == len);
        m.assign(pos, ps);
        const std::vector<std::int64_t> src = expand(ps);
        std::copy(src.begin(), src.end(), ref.begin() + pos);
      }
      const std::vector<Piece> all = m.extract(0, kN);
      INFO("round " << round << " op " << op);
      if (!well_formed(all))
        for (const Piece& p : all)
          UNSCOPED_INFO(p.length << " " << p.source << " " << p.block << " " << p.stride);
      REQUIRE(well_formed(all));
      REQUIRE(expand(all) == ref);
      grouped += std::count_if(all.begin(), all.end(), [](const Piece& p) { return p.grouped(); });
      // The same contents cut in two: grouped pieces compared with their other halves, in step or not.
      const std::int64_t c = pick(1, kN - 1);
      std::vector<Piece> halves = m.extract(0, c);
      const std::vector<Piece> rest = m.extract(c, kN - c);
      halves.insert(halves.end(), rest.begin(), rest.end());
      REQUIRE(payload::same_contents(all, halves));
      REQUIRE(payload::same_contents(halves, all));
      for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].grouped()) {  // a group moved by one byte of x: different contents
          std::vector<Piece> moved = all;
          ++moved[i].gstride;
          REQUIRE_FALSE(payload::same_contents(moved, halves));
          REQUIRE_FALSE(payload::same_contents(halves, moved));
          break;
        }
      const std::int64_t lo = pick(0, kN - 1);
      const std::int64_t n = pick(1, kN - lo);
      const std::vector<Piece> part = m.extract(lo, n);
      REQUIRE(well_formed(part));
      REQUIRE(expand(part) == std::vector<std::int64_t>(ref.begin() + lo, ref.begin() + lo + n));
      // Compared by contents, however cut: equal to the byte-by-byte form, unequal to a changed one.
      REQUIRE(payload::same_contents(all, bytewise(ref)));
      std::vector<std::int64_t> changed = ref;
      const std::int64_t at = pick(0, kN - 1);
      changed[static_cast<std::size_t>(at)] = ref[static_cast<std::size_t>(at)] == 7 ? 8 : 7;
      REQUIRE_FALSE(payload::same_contents(all, bytewise(changed)));
      REQUIRE_FALSE(
          payload::same_contents(all, bytewise(std::vector<std::int64_t>(ref.begin(), ref.end() - 1))));
    }
  }
  CHECK(grouped > 1000);
}

TEST_CASE(
    "strided pieces: assign_ranges and extract_ranges equal one call per range, ranges close or far, forward "
    "or back",
    "[payload]") {
  constexpr std::int64_t kN = 400;
  std::mt19937_64 rng(1414);
  const auto pick = picker(rng);
  for (int round = 0; round < 200; ++round) {
    payload::PieceMap batched;
    payload::PieceMap one_by_one;
    std::vector<std::int64_t> ref(kN, payload::kUndefined);
    for (int op = 0; op < 12; ++op) {
      // A list request's regions: mostly ascending with small gaps (the walk), sometimes a jump past
      // many entries (the descent) or back (before the previous range), sometimes empty or overlapping.
      std::vector<payload::Range> ranges;
      std::int64_t total = 0;
      std::int64_t at = pick(0, kN / 2);
      for (int k = 0, n = static_cast<int>(pick(1, 12)); k < n; ++k) {
        const int how = static_cast<int>(pick(0, 9));
        if (how == 0) at = pick(0, kN - 1);  // anywhere
        const std::int64_t len = std::min<std::int64_t>(how == 1 ? 0 : pick(1, 9), kN - at);
        ranges.push_back(payload::Range{at, len});
        total += len;
        at = std::min<std::int64_t>(kN - 1, at + len + (how == 2 ? pick(60, 200) : pick(0, 5)));
      }
      const std::vector<Piece> ps = random_pieces(rng, total);
      batched.assign_ranges(ranges, ps);
      const std::vector<std::int64_t> src = expand(ps);
      std::int64_t used = 0;
      payload::PieceCursor next(ps);
      for (const payload::Range& r : ranges) {
        std::vector<Piece> mine;
        next.take(r.length, mine);
        if (r.length > 0) one_by_one.assign(r.pos, mine);  // assign_ranges skips empty ranges
        std::copy(src.begin() + used, src.begin() + used + r.length, ref.begin() + r.pos);
        used += r.length;
      }
      INFO("round " << round << " op " << op);
      const std::vector<Piece> all = batched.extract(0, kN);
      REQUIRE(well_formed(all));
      REQUIRE(all == one_by_one.extract(0, kN));
      REQUIRE(batched.entries() == one_by_one.entries());
      REQUIRE(expand(all) == ref);
      // Read back the same ranges shifted by a base, from a map shifted by it: one extract per range.
      const std::int64_t base = pick(0, 3) * 1000;
      payload::PieceMap shifted;
      shifted.assign(base, all);
      std::vector<Piece> got;
      std::vector<Piece> want;
      shifted.extract_ranges(got, ranges, base);
      for (const payload::Range& r : ranges) shifted.extract_into(want, base + r.pos, r.length);
      REQUIRE(got == want);
    }
  }
  // Pieces that do not fill the ranges exactly are refused before anything is assigned.
  payload::PieceMap m;
  const std::vector<payload::Range> two{{0, 4}, {10, 4}};
  CHECK_THROWS_AS(m.assign_ranges(two, std::vector<Piece>{{6, 0}}), std::logic_error);
  CHECK_THROWS_AS(m.assign_ranges(two, std::vector<Piece>{{9, 0}}), std::logic_error);
  CHECK(m.entries() == 0);
}

TEST_CASE("strided pieces: a buffer's regions scattered and gathered at once (unpack and pack at Bx = 1)",
          "[payload]") {
  const payload::ModeScope scope(payload::Mode::Elided);
  payload::Buffer memory(64);
  // Four 4-byte entries of a rank at a stride of 16 bytes: one strided piece goes to four regions.
  const std::vector<payload::Range> regions{{4, 4}, {20, 4}, {36, 4}, {52, 4}};
  payload::assign(memory, regions, std::vector<Piece>{{16, 100, 4, 40}});
  const std::vector<Piece> got = payload::pieces(memory);
  REQUIRE(got.size() == 9);  // hole, entry, hole, ...: the holes keep the entries apart
  CHECK(got[1] == Piece{4, 100});
  CHECK(got[7] == Piece{4, 220});
  std::vector<Piece> back;
  payload::append_pieces(back, memory, regions);
  CHECK(back == std::vector<Piece>{{16, 100, 4, 40}});
  // A region outside the buffer is refused, naming it, and nothing changes.
  const std::vector<payload::Range> outside{{4, 4}, {62, 4}};
  CHECK_THROWS_WITH(payload::assign(memory, outside, std::vector<Piece>{{8, 0}}),
                    Catch::Contains("[62, 66) outside a span of 64 bytes"));
  CHECK_THROWS_AS(payload::append_pieces(back, memory, outside), std::logic_error);
  CHECK(payload::pieces(memory) == got);
}

TEST_CASE("payload::append of ranges joins one that continues the last, keeps gaps, drops empty ones",
          "[payload]") {
  std::vector<payload::Range> r;
  payload::append(r, payload::Range{0, 4});
  payload::append(r, payload::Range{4, 4});   // continues: one range [0, 8)
  payload::append(r, payload::Range{8, 0});   // empty: nothing
  payload::append(r, payload::Range{12, 4});  // a gap: a new range
  payload::append(r, payload::Range{8, 4});   // before the last one's end: not joined
  REQUIRE(r.size() == 3);
  CHECK(r[0].pos == 0);
  CHECK(r[0].length == 8);
  CHECK(r[1].pos == 12);
  CHECK(r[1].length == 4);
  CHECK(r[2].pos == 8);
  CHECK(r[2].length == 4);
}

TEST_CASE("strided pieces: a distribution's entries as pieces equal appending them replica by replica",
          "[payload]") {
  // make_local_payload and expected_pieces (rank-major) add the replicas of a one-tuple datatype after
  // the second at once; the pieces must be exactly those of appending every replica in turn, whatever the
  // stride (contiguous, strided, overlapping), the replica count and the pieces already there.
  std::mt19937_64 rng(7);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  int at_once = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Distribution d;
    const int ranks = static_cast<int>(pick(1, 3));
    for (int r = 0; r < ranks; ++r) {
      Datatype dt;
      const std::int64_t ntuples = pick(0, 5) == 0 ? 2 : 1;
      for (std::int64_t t = 0; t < ntuples; ++t) dt.tuples.push_back(Tuple{pick(0, 40), pick(0, 4)});
      dt.count = pick(1, 9);
      const std::int64_t len = dt.tuples.front().length;
      const std::int64_t choices[] = {len, 2 * len, len + 1, pick(0, 12), 0};
      dt.stride = choices[pick(0, 4)];
      d.per_rank.push_back(dt);
    }
    const std::int64_t es = pick(1, 4);
    const std::int64_t base = pick(0, 3);
    std::vector<Piece> want;
    for (const Datatype& dt : d.per_rank)
      for (std::int64_t j = 0; j < dt.count; ++j)
        for (const Tuple& t : dt.tuples)
          payload::append(want, Piece{t.length * es, (base + t.offset + j * dt.stride) * es});
    const std::vector<Piece> got = expected_pieces(d, FileLayout::RankMajor, es, base);
    INFO("trial " << trial);
    REQUIRE(got == want);
    if (d.per_rank.front().count > 2 && d.per_rank.front().tuples.size() == 1) ++at_once;
  }
  CHECK(at_once > 1000);
}

TEST_CASE("strided pieces: a progression of ranges extracted at once equals range by range", "[payload]") {
  constexpr std::int64_t kN = 400;
  std::mt19937_64 rng(1415);
  const auto pick = picker(rng);
  std::int64_t at_once = 0;  // progressions the grouped fast path took whole
  for (int round = 0; round < 300; ++round) {
    payload::PieceMap m;
    m.assign(0, random_pieces(rng, kN));
    // A grouped region somewhere, as IEC's buffers hold one: strided pieces of one shape, sources shifted.
    const std::int64_t b = pick(1, 3);
    const std::int64_t size = b * pick(2, 4);
    const std::int64_t groups = pick(2, 12);
    const std::int64_t at = pick(0, kN - size * groups);
    std::int64_t stride = pick(-6, 12);
    if (stride == b) ++stride;
    const std::int64_t gstride = pick(-3, 40);
    std::vector<Piece> region;
    for (std::int64_t g = 0; g < groups; ++g)
      payload::append(region, Piece{size, 500 + g * gstride, b, stride});
    m.assign(at, region);
    for (int op = 0; op < 20; ++op) {
      std::int64_t pos = 0, len = 0, step = 0, count = 0;
      if (pick(0, 1) == 0) {  // aligned with the groups: the fast path's case, or near it
        const std::int64_t g0 = pick(0, groups - 1);
        const std::int64_t in = pick(0, size - 1);
        len = pick(1, size - in);
        step = size;
        count = pick(1, groups - g0);
        pos = at + g0 * size + in;
      } else {  // anything
        len = pick(1, 20);
        step = pick(1, 40);
        count = pick(1, 10);
        if ((count - 1) * step + len > kN) count = 1;
        pos = pick(0, kN - (count - 1) * step - len);
      }
      INFO("round " << round << " op " << op << ": pos " << pos << " len " << len << " step " << step
                    << " count " << count);
      std::vector<Piece> got;
      std::vector<Piece> want;
      m.extract_progression(got, pos, len, step, count);
      for (std::int64_t k = 0; k < count; ++k) m.extract_into(want, pos + k * step, len);
      REQUIRE(well_formed(got));
      REQUIRE(expand(got) == expand(want));
      if (got.size() == 1 && want.size() == 1 && count > 1 && step > len && got.front().grouped()) ++at_once;
    }
  }
  CHECK(at_once > 100);
}
