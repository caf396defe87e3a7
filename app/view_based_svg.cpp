// `ciosim plan --svg FILE` for view-based I/O: the file's blocks and their owners, which blocks each rank's
// view touches (and whether its piece travels), and the owners' pools after one write of every view, drawn
// from the technique's own functions (algorithms/view_based/view_based.hpp).
// J. García Blas, F. Isaila, D. E. Singh, J. Carretero, "View-based collective I/O for MPI-IO", CCGrid 2008.
#include <algorithm>
#include <set>
#include <string>

#include "app/plan_views.hpp"
#include "app/svg_canvas.hpp"
#include "config/params.hpp"

namespace ciosim::app {
namespace {

constexpr std::int64_t kMaxBlocks = 512;
constexpr int kMaxRanks = 64;

}  // namespace

std::string view_based_svg(const std::string& title, const Distribution& d, const IoHints& hints,
                           std::int64_t element_size) {
  const int P = d.nprocs();
  const std::vector<view_based::ViewMap> maps = view_maps(d, element_size);
  const Offset B = view_based::block_size(hints);
  Offset file_end = 0;
  for (const auto& m : maps) file_end = std::max(file_end, m.file_end());
  const std::int64_t blocks = (file_end + B - 1) / B;
  if (blocks > kMaxBlocks || P > kMaxRanks)
    throw config::ConfigError("--svg draws at most " + std::to_string(kMaxBlocks) + " blocks and " +
                              std::to_string(kMaxRanks) + " ranks; this point has " + std::to_string(blocks) +
                              " blocks of " + std::to_string(B) + " bytes on " + std::to_string(P) +
                              " ranks (raise hints.vb_buffer_size or use a smaller workload)");
  const std::vector<int> aggs = view_based::aggregator_ranks(P, hints.vb_aggregators);
  const auto A = static_cast<int>(aggs.size());
  const int pool = view_based::pool_buffers(hints);

  // Which blocks each rank touches; per aggregator, the blocks touched, in order.
  std::vector<std::vector<char>> touches(static_cast<std::size_t>(P),
                                         std::vector<char>(static_cast<std::size_t>(blocks), 0));
  std::vector<std::set<std::int64_t>> owned(static_cast<std::size_t>(A));
  for (int r = 0; r < P; ++r)
    for (const auto& pc : view_based::pieces_of(maps[static_cast<std::size_t>(r)], r, B)) {
      touches[static_cast<std::size_t>(r)][static_cast<std::size_t>(pc.block)] = 1;
      owned[static_cast<std::size_t>(view_based::owner_index(pc.block, A))].insert(pc.block);
    }
  // Blocks in increasing order through an LRU pool: all but the last `pool` are written back in the call.
  std::vector<char> evicted(static_cast<std::size_t>(blocks), 0);
  for (const auto& set : owned) {
    const auto n = static_cast<std::int64_t>(set.size());
    std::int64_t i = 0;
    for (const std::int64_t b : set)
      if (i++ < n - pool) evicted[static_cast<std::size_t>(b)] = 1;
  }

  svg::Canvas c;
  c.cell = blocks <= 48 ? 22 : blocks <= 128 ? 10 : 5;
  c.label_w = 90;
  const int margin = 16;
  const int x0 = margin + c.label_w;
  const auto x_of = [&](std::int64_t b) { return x0 + static_cast<int>(b) * c.cell; };
  const auto owner_colour = [&](std::int64_t b) { return svg::rank_colour(view_based::owner_index(b, A)); };
  const bool numbers = c.cell >= 20;
  int y = margin + 14;
  c.text(margin, y, title, 13, "start", "bold");
  y += 18;
  y = c.notes(margin, y,
              {"the file in " + std::to_string(blocks) + " blocks of " + std::to_string(B) +
                   " bytes (hints.vb_buffer_size), block b owned by aggregator b mod " + std::to_string(A) +
                   "; colour: the owner",
               "rows P: the blocks the rank's view touches; red outline: its piece travels to another rank "
               "(else it is the rank's own block, copied)",
               "last row: after one write of every view, grey = written back during the call (the pool of " +
                   std::to_string(pool) + " buffer(s) was full), colour = dirty until the close"}) -
      14;
  y += 22;
  c.text(margin, y + c.cell / 2 + 4, "owners", 11, "start", "bold");
  for (std::int64_t b = 0; b < blocks; ++b)
    c.box(x_of(b), y, owner_colour(b), false, numbers ? view_based::owner_index(b, A) : -1);
  y += c.cell + 8;
  for (int r = 0; r < P; ++r) {
    const int k = static_cast<int>(std::find(aggs.begin(), aggs.end(), r) - aggs.begin());
    c.text(margin, y + c.cell / 2 + 4,
           "P" + std::to_string(r) + (k < A ? " (A" + std::to_string(k) + ")" : ""), 11);
    for (std::int64_t b = 0; b < blocks; ++b) {
      const bool t = touches[static_cast<std::size_t>(r)][static_cast<std::size_t>(b)] != 0;
      const bool away = t && aggs[static_cast<std::size_t>(view_based::owner_index(b, A))] != r;
      c.box(x_of(b), y, t ? owner_colour(b) : "#ffffff", away, -1);
    }
    y += c.cell + 2;
  }
  y += 8;
  c.text(margin, y + c.cell / 2 + 4, "pools", 11, "start", "bold");
  for (std::int64_t b = 0; b < blocks; ++b)
    c.box(x_of(b), y, evicted[static_cast<std::size_t>(b)] != 0 ? "#d0d0d0" : owner_colour(b), false, -1);
  y += c.cell + margin;
  return c.document(x_of(blocks), y, margin);
}

}  // namespace ciosim::app
