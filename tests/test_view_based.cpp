// View-based collective I/O (García Blas, Isaila, Singh, Carretero, "View-based collective I/O for
// MPI-IO", CCGrid 2008), the pure pieces: the view a rank ships at set_view, the view-to-file map the
// aggregators scatter through, the round-robin block ownership and the LRU pool. Expected values are
// worked by hand or checked against a brute-force walk of every entry.
#include <algorithm>
#include <catch2/catch.hpp>

#include "algorithms/common/distribution.hpp"
#include "algorithms/view_based/view_based.hpp"

using namespace ciosim;
using namespace ciosim::view_based;

namespace {

/// File byte of every view byte, by walking the entries one by one (the oracle for ViewMap).
std::vector<Offset> brute_file_bytes(const View& v) {
  std::vector<Offset> out;
  for (std::int64_t j = 0; j < v.filetype.count; ++j)
    for (const Tuple& t : v.filetype.tuples)
      for (std::int64_t i = 0; i < t.length; ++i)
        for (std::int64_t b = 0; b < v.element_size; ++b)
          out.push_back(v.displacement + (t.offset + j * v.filetype.stride + i) * v.element_size + b);
  return out;
}

}  // namespace

TEST_CASE("view-based: a view ships as 5 + 2*tuples words and comes back identical") {
  // The paper's Fig. 1 view of rank 0: a vector of 4 one-byte elements with stride 4 (here one tuple
  // replicated 4 times), at displacement 8.
  View v{8, 1, Datatype{{{0, 1}}, 4, 4}};
  const std::vector<std::int64_t> w = serialize(v);
  CHECK(w == std::vector<std::int64_t>{8, 1, 4, 4, 1, 0, 1});
  CHECK(deserialize(w) == v);
  std::vector<std::int64_t> bad = w;
  bad.pop_back();
  CHECK_THROWS_AS(deserialize(bad), std::invalid_argument);
}

TEST_CASE("view-based: a view in file order ships as built, one out of file order ships sorted") {
  bool ordered = false;
  const Datatype strided{{{0, 2}, {5, 1}}, 3, 10};
  View v = make_view(strided, 4, 0, ordered);
  CHECK(ordered);
  CHECK(v.filetype == strided);  // the compact hvector form, not its flattening
  const Datatype permuted{{{6, 2}, {0, 3}}, 1, 0};
  v = make_view(permuted, 4, 16, ordered);
  CHECK_FALSE(ordered);
  CHECK(v.displacement == 16);
  CHECK(v.filetype.tuples == std::vector<Tuple>{{0, 3}, {6, 2}});
}

TEST_CASE("view-based: view intervals per block and their file runs agree with a walk of every byte") {
  // Blocks of 6 bytes cut 4-byte entries in two; the view is strided with a displacement.
  const View v{3, 4, Datatype{{{1, 2}, {4, 1}}, 3, 7}};
  const ViewMap m(v);
  const std::vector<Offset> bytes = brute_file_bytes(v);
  REQUIRE(m.bytes() == static_cast<Offset>(bytes.size()));
  CHECK(m.file_begin() == bytes.front());
  CHECK(m.file_end() == bytes.back() + 1);
  for (Offset vb = 0; vb < m.bytes(); ++vb) CHECK(m.file_byte(vb) == bytes[static_cast<std::size_t>(vb)]);
  const Offset bs = 6;
  Offset total = 0;
  for (const Piece& pc : pieces_of(m, 5, bs)) {
    CHECK(pc.rank == 5);
    // The interval holds exactly the view bytes whose file byte is in the block.
    for (Offset vb = 0; vb < m.bytes(); ++vb) {
      const bool inside = bytes[static_cast<std::size_t>(vb)] / bs == pc.block;
      CHECK(inside == (vb >= pc.view_start && vb < pc.view_start + pc.length));
    }
    Offset seen = 0;
    m.for_runs(pc.view_start, pc.length, [&](Offset f, Offset vb, Offset n) {
      CHECK(vb == pc.view_start + seen);  // runs come in view order, back to back
      for (Offset i = 0; i < n; ++i) CHECK(bytes[static_cast<std::size_t>(vb + i)] == f + i);
      seen += n;
    });
    CHECK(seen == pc.length);
    total += pc.length;
  }
  CHECK(total == m.bytes());
}

TEST_CASE("view-based: blocks are owned round-robin by aggregators spread evenly over the ranks") {
  CHECK(aggregator_ranks(8, 0) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(aggregator_ranks(8, 3) == std::vector<int>{0, 2, 5});
  CHECK(aggregator_ranks(4, 9) == std::vector<int>{0, 1, 2, 3});
  CHECK(owner_index(0, 3) == 0);
  CHECK(owner_index(4, 3) == 1);
  CHECK(owner_index(8, 3) == 2);
  IoHints h;
  CHECK(block_size(h) == h.cb_buffer_size);  // the paper: the stripe defaults to the collective buffer
  CHECK(pool_buffers(h) == 4);               // 64 MiB of 16 MiB buffers
  h.vb_buffer_size = 4 << 20;
  CHECK(pool_buffers(h) == 16);  // the paper's setting: 64 MiB of 4 MiB buffers
  h.vb_pool_size = 1;
  CHECK(pool_buffers(h) == 1);  // never less than one buffer
}

TEST_CASE("view-based: the pieces of a block-cyclic distribution cover each block exactly once") {
  const Distribution d = block_cyclic(90, 3, 5);
  const Offset bs = 40;  // 10 entries of 4 bytes: blocks cut the 5-entry chunks
  std::vector<int> hits(90 * 4, 0);
  for (int r = 0; r < 3; ++r) {
    bool ordered = false;
    const ViewMap m(make_view(d.per_rank[static_cast<std::size_t>(r)], 4, 0, ordered));
    for (const Piece& pc : pieces_of(m, r, bs))
      m.for_runs(pc.view_start, pc.length, [&](Offset f, Offset, Offset n) {
        for (Offset i = 0; i < n; ++i) {
          CHECK((f + i) / bs == pc.block);
          ++hits[static_cast<std::size_t>(f + i)];
        }
      });
  }
  CHECK(std::count(hits.begin(), hits.end(), 1) == static_cast<std::ptrdiff_t>(hits.size()));
}

TEST_CASE("view-based: byte ranges merge what touches and answer coverage") {
  ByteRanges r;
  r.add(10, 5);
  r.add(30, 5);
  r.add(15, 5);  // touches [10,15): merged
  CHECK(r.ranges() == std::vector<Extent>{{10, 10}, {30, 5}});
  CHECK(r.covers(12, 8));
  CHECK_FALSE(r.covers(12, 9));
  CHECK_FALSE(r.covers(25, 1));
  r.add_all(std::vector<Extent>{{20, 10}, {0, 2}});
  CHECK(r.ranges() == std::vector<Extent>{{0, 2}, {10, 25}});
  CHECK(r.covers(10, 25));
  // Two ranks' runs interleaved (Bx = 1), each list in order, one starting where a held range starts.
  r.add_all(std::vector<Extent>{{40, 4}, {48, 4}, {56, 4}});
  r.add_all(std::vector<Extent>{{40, 2}, {44, 4}, {52, 4}});
  CHECK(r.ranges() == std::vector<Extent>{{0, 2}, {10, 25}, {40, 20}});
}

TEST_CASE("view-based: the pool evicts the least recently used buffer and hands it over") {
  BufferPool pool(2);
  std::vector<std::int64_t> evicted;
  const auto evict = [&](Buffer& b) { evicted.push_back(b.block); };
  pool.get(7, evict).dirty.add(0, 1);
  pool.get(3, evict);
  CHECK(pool.find(7) != nullptr);  // 7 is now the most recent: 3 goes first
  pool.get(9, evict);
  CHECK(evicted == std::vector<std::int64_t>{3});
  pool.get(3, evict);
  CHECK(evicted == std::vector<std::int64_t>{3, 7});
  CHECK(pool.size() == 2);
  const std::vector<Buffer*> order = pool.by_block();
  REQUIRE(order.size() == 2);
  CHECK(order[0]->block == 3);
  CHECK(order[1]->block == 9);
}

TEST_CASE("view-based: a call's interval clips the pieces; network buffers coalesce them in order") {
  // Pieces of blocks 0, 2, 4 and 6 at view bytes [0, 100), [100, 130), [130, 430), [430, 440).
  const std::vector<Piece> pcs{{0, 3, 0, 100}, {2, 3, 100, 30}, {4, 3, 130, 300}, {6, 3, 430, 10}};
  // A call on view bytes [50, 250): half of the first piece, the second whole, 120 bytes of the third.
  const std::vector<Piece> part = clip(pcs, 50, 250);
  REQUIRE(part.size() == 3);
  CHECK((part[0].block == 0 && part[0].view_start == 50 && part[0].length == 50));
  CHECK((part[1].block == 2 && part[1].view_start == 100 && part[1].length == 30));
  CHECK((part[2].block == 4 && part[2].view_start == 130 && part[2].length == 120));
  CHECK(clip(pcs, 440, 500).empty());
  // Buffers of 128 bytes: 100 + 30 > 128, so the second starts a new buffer; the third (300 bytes) does not
  // fit the 98 left and is longer than a buffer: a new buffer, cut into 128 + 128 + 44, and the last piece
  // (10 bytes) joins the 44.
  const auto msgs = coalesce(pcs, 128);
  REQUIRE(msgs.size() == 5);
  CHECK(message_bytes(msgs[0]) == 100);
  CHECK(message_bytes(msgs[1]) == 30);
  CHECK(message_bytes(msgs[2]) == 128);
  CHECK(message_bytes(msgs[3]) == 128);
  CHECK(message_bytes(msgs[4]) == 54);
  REQUIRE(msgs[4].size() == 2);
  CHECK((msgs[4][0].block == 4 && msgs[4][0].view_start == 386 && msgs[4][0].length == 44));
  CHECK((msgs[4][1].block == 6 && msgs[4][1].view_start == 430));
  // A buffer that holds everything: one message; the pieces' bytes in order, none lost.
  const auto one = coalesce(pcs, 1 << 20);
  REQUIRE(one.size() == 1);
  CHECK(one[0] == pcs);
  CHECK(coalesce({}, 128).empty());
  CHECK_THROWS_AS(coalesce(pcs, 0), std::invalid_argument);
}
