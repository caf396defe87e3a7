// `ciosim plan --svg FILE` for multiple-phase: each rank's memory before and after every phase as the
// paper draws it (Singh, Isaila, Calderón, García, Carretero, "Multiple-Phase Collective I/O Technique for
// Improving Data Access Locality", PDP 2007, Figs. 3-4), drawn from the technique's own functions.
#include <algorithm>
#include <string>

#include "app/plan_views.hpp"
#include "app/svg_canvas.hpp"
#include "config/params.hpp"

namespace ciosim::app {
namespace {

constexpr std::int64_t kMaxEntries = 128;
constexpr int kMaxRanks = 64;
constexpr int kPlaneGap = 6;  // pixels between two planes

}  // namespace

std::string multiple_phase_svg(const std::string& title, const multiple_phase::Layout& l, int phases) {
  const int P = l.nprocs();
  const std::int64_t n = l.plane * l.planes;
  if (n > kMaxEntries || P > kMaxRanks)
    throw config::ConfigError("--svg draws at most " + std::to_string(kMaxEntries) + " entries and " +
                              std::to_string(kMaxRanks) + " ranks; this array has " + std::to_string(n) +
                              " entries on " + std::to_string(P) + " ranks (use a smaller workload)");
  const std::vector<int> of = entry_owners(l);

  svg::Canvas c;
  c.cell = n <= 48 ? 22 : 14;
  const int margin = 16;
  const int x0 = margin + c.label_w;
  const auto x_of = [&](std::int64_t i) {
    return x0 + static_cast<int>(i) * c.cell + static_cast<int>(i / l.plane) * kPlaneGap;
  };
  int y = margin + 14;
  c.text(margin, y, title, 13, "start", "bold");
  y += 18;
  c.text(margin, y,
         "colour: the rank whose entry it is; number: i of x[i]; white: a gap; red outline: sent in the next "
         "phase; planes of " +
             std::to_string(l.plane) + " entries apart",
         10);
  y += 14;
  for (int k = 0; k <= phases; ++k) {
    y += 22;
    std::string heading = k == 0 ? "Before the first phase: every rank's own pieces of every plane"
                                 : "After phase " + std::to_string(k - 1) + " (exchange" +
                                       std::to_string(k - 1) + "), " + std::to_string(k) + " of " +
                                       std::to_string(phases);
    if (k < phases)
      heading +=
          " - outlined: sent in phase " + std::to_string(k) + " to partner r XOR " + std::to_string(1 << k);
    c.text(margin, y, heading, 11, "start", "bold");
    y += 8;
    for (std::int64_t i = 0; i < n; i += (c.cell >= 20 ? 1 : 4))
      c.text(x_of(i) + c.cell / 2, y + 2, std::to_string(i), 8, "middle");
    y += 6;
    for (int r = 0; r < P; ++r) {
      std::vector<char> held(static_cast<std::size_t>(n), 0), sent(static_cast<std::size_t>(n), 0);
      for (const Tuple& t : multiple_phase::held(l, r, k).flatten())
        for (std::int64_t i = t.offset; i < t.offset + t.length; ++i) held[static_cast<std::size_t>(i)] = 1;
      if (k < phases)
        for (const Tuple& t : multiple_phase::step(l, r, k).send.flatten())
          for (std::int64_t i = t.offset; i < t.offset + t.length; ++i) sent[static_cast<std::size_t>(i)] = 1;
      c.text(margin, y + c.cell / 2 + 4, "P" + std::to_string(r), 11);
      for (std::int64_t i = 0; i < n; ++i) {
        const bool h = held[static_cast<std::size_t>(i)] != 0;
        c.box(x_of(i), y, h ? svg::rank_colour(of[static_cast<std::size_t>(i)]) : "#ffffff",
              sent[static_cast<std::size_t>(i)] != 0, h ? i : -1);
      }
      if (k < phases)
        c.text(x_of(n - 1) + c.cell + 8, y + c.cell / 2 + 4,
               "with P" + std::to_string(multiple_phase::step(l, r, k).partner) + ", keeps planes " +
                   std::to_string(multiple_phase::planes_after(r, k + 1, l.planes).begin) + "-" +
                   std::to_string(multiple_phase::planes_after(r, k + 1, l.planes).end - 1),
               10);
      y += c.cell + 2;
    }
  }
  y += margin;
  return c.document(x_of(n - 1) + c.cell, y, margin);
}

}  // namespace ciosim::app
