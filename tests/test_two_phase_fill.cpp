// Two-phase's aggregator scatters a round's received pieces into its collective buffer (fill_window,
// algorithms/two_phase/two_phase_internal.hpp): sender by sender as ROMIO does, or, when the buffer is
// elided and no two pieces overlap, in file order over all senders. Either way every byte must land where
// the sender-by-sender scatter puts it, and an elided buffer filled in file order is one piece.
#include <catch2/catch.hpp>

#include "algorithms/two_phase/two_phase_internal.hpp"

using namespace ciosim;
using namespace ciosim::two_phase::detail;
using payload::Piece;

namespace {

/// A round of `offsets`/`lens` per sender, every piece whole, the window at file offset 0; sender i's stream
/// holds `sources[i]`.
struct Round {
  OthersReq o;
  Cursor c;
  std::vector<payload::Buffer> streams;
  Round(const std::vector<std::vector<Offset>>& offsets, const std::vector<std::vector<Offset>>& lens,
        const std::vector<std::vector<Piece>>& sources)
      : c(offsets.size()) {
    o.count.resize(offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      o.count[i] = static_cast<std::int32_t>(offsets[i].size());
      std::vector<Offset> pairs = offsets[i];
      pairs.insert(pairs.end(), lens[i].begin(), lens[i].end());
      o.pairs.push_back(pairs);
      c.count[i] = static_cast<std::int64_t>(offsets[i].size());
      Offset bytes = 0;
      for (const Offset l : lens[i]) bytes += l;
      c.bytes[i] = static_cast<std::int32_t>(bytes);
      streams.emplace_back(static_cast<std::size_t>(bytes));
      payload::assign(streams.back(), sources[i]);
    }
  }
};

}  // namespace

TEST_CASE(
    "fill_window: an elided window filled in file order holds what sender by sender gives, as one piece",
    "[payload][two-phase]") {
  const payload::ModeScope scope(payload::Mode::Elided);
  // Block-cyclic Bx = 1 over 4 senders, 4-byte entries, file offset = source: sender i sends entries
  // i, i + 4, i + 8, ..., one strided piece.
  std::vector<std::vector<Offset>> offs(4);
  std::vector<std::vector<Offset>> lens(4);
  std::vector<std::vector<Piece>> sources;
  for (Offset e = 0; e < 64; ++e) {
    offs[static_cast<std::size_t>(e % 4)].push_back(4 * e);
    lens[static_cast<std::size_t>(e % 4)].push_back(4);
  }
  for (std::int64_t i = 0; i < 4; ++i) sources.push_back({Piece{64, 4 * i, 4, 16}});
  Round merged(offs, lens, sources);
  payload::Buffer window(256);
  const std::size_t before = payload::live_entries();
  payload::reset_peak_entries();
  fill_window(merged.o, merged.c, 0, window, merged.streams);
  CHECK(payload::peak_entries() == before + 1);  // the window one map entry at every step, joined as it grew
  CHECK(payload::pieces(window) == std::vector<Piece>{{256, 0}});
  Round by_sender(offs, lens, sources);
  payload::Buffer reference(256);
  const std::size_t base = payload::live_entries();
  payload::reset_peak_entries();
  for (std::size_t i = 0; i < 4; ++i)
    copy_pieces(by_sender.o, by_sender.c, i, 0, reference, by_sender.streams[i], true);
  CHECK(payload::same_contents(payload::pieces(window), payload::pieces(reference)));
  CHECK(payload::peak_entries() >= base + 16);  // sender by sender: sender 0's 16 entries apart at first
}

TEST_CASE("fill_window: overlapping pieces go sender by sender, so the later sender's bytes win",
          "[payload][two-phase]") {
  const payload::ModeScope scope(payload::Mode::Elided);
  // Sender 0 writes [4, 12), sender 1 writes [0, 8): bytes 4..8 are sender 1's, as ROMIO's loop leaves
  // them (in file order sender 0's would land last).
  Round r({{4}, {0}}, {{8}, {8}}, {{Piece{8, 0}}, {Piece{8, 1000}}});
  payload::Buffer window(12);
  fill_window(r.o, r.c, 0, window, r.streams);
  CHECK(payload::pieces(window) == std::vector<Piece>{{8, 1000}, {4, 4}});
  // A sender whose list is not ascending keeps the senders' order too: its first piece goes to [8, 12).
  Round back({{8, 0}, {4}}, {{4, 4}, {4}}, {{Piece{8, 0}}, {Piece{4, 1000}}});
  payload::Buffer w2(12);
  fill_window(back.o, back.c, 0, w2, back.streams);
  CHECK(payload::same_contents(payload::pieces(w2), std::vector<Piece>{{4, 4}, {4, 1000}, {4, 0}}));
}
