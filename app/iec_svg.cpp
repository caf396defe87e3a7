// `ciosim plan --svg FILE`: the IEC memory layout per phase as an SVG picture (the worked example's
// figures in Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on
// inspector-executor paradigm", J. Supercomputing 2009, Figs. 3-7), drawn from the real plan and data
// movement. Plain SVG written here: deterministic, no dependency.
#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "app/plan_views.hpp"
#include "app/svg_canvas.hpp"
#include "config/params.hpp"

namespace ciosim::app {
namespace {

using svg::Canvas;
using svg::kPalette;

}  // namespace

std::string iec_svg(const std::string& title, const Distribution& d,
                    const std::vector<iec::RankPlan>& plans) {
  const int np = d.nprocs();
  const std::int64_t nx = d.nx;
  const std::int64_t slots = plans.front().buffer_entries;
  const std::int64_t chunk = nx / np;
  constexpr std::int64_t kMaxSlots = 128;
  if (slots > kMaxSlots || np > 64)
    throw config::ConfigError("--svg draws at most " + std::to_string(kMaxSlots) +
                              " memory slots and 64 ranks; this plan has " + std::to_string(slots) +
                              " slots and " + std::to_string(np) + " ranks (use a smaller --nx or --np)");
  const int nph = iec::num_phases(np);
  std::vector<int> owner_of_chunk(static_cast<std::size_t>(np), 0);
  for (const iec::RankPlan& p : plans)
    owner_of_chunk[static_cast<std::size_t>(p.file_offset / chunk)] = p.rank;
  const auto fill = [&](std::int64_t x) {
    if (x < 0) return "#ffffff";
    return kPalette[static_cast<std::size_t>(owner_of_chunk[static_cast<std::size_t>(x / chunk)]) % 10];
  };

  Canvas c;
  c.cell = slots <= 32 ? 22 : 14;
  const int margin = 16;
  const int x0 = margin + c.label_w;
  int y = margin + 14;
  c.text(margin, y, title, 13, "start", "bold");
  y += 18;
  c.text(
      margin, y,
      "colour: the rank that writes the entry in the end; number: i of x[i]; red outline: sent in the next "
      "phase",
      10);
  y += 14;

  for (int k = 0; k <= nph; ++k) {
    const auto mem = iec::simulate_memory(d, plans, k);
    y += 22;
    std::string heading = k == 0 ? "Initial placement (slots from alloc_offset)"
                                 : "After exchange phase " + std::to_string(k) + " of " + std::to_string(nph);
    if (k < nph)
      heading += " - outlined: sent in phase " + std::to_string(k + 1) + " to partner r XOR " +
                 std::to_string(1 << k);
    c.text(margin, y, heading, 11, "start", "bold");
    y += 8;
    for (int s = 0; s < slots; ++s)
      if (s % (c.cell >= 20 ? 1 : 4) == 0)
        c.text(x0 + s * c.cell + c.cell / 2, y + 2, std::to_string(s), 8, "middle");
    y += 6;
    for (const iec::RankPlan& p : plans) {
      const auto r = static_cast<std::size_t>(p.rank);
      std::vector<char> sent(static_cast<std::size_t>(slots), 0);
      if (k < nph)
        for (const Tuple& t : p.phases[static_cast<std::size_t>(k)].send.datatype().flatten())
          for (std::int64_t j = 0; j < t.length; ++j) sent[static_cast<std::size_t>(t.offset + j)] = 1;
      c.text(margin, y + c.cell / 2 + 4, "P" + std::to_string(p.rank), 11);
      for (std::int64_t s = 0; s < slots; ++s) {
        const std::int64_t v = mem[r][static_cast<std::size_t>(s)];
        c.box(x0 + static_cast<int>(s) * c.cell, y, fill(v), sent[static_cast<std::size_t>(s)] != 0, v);
      }
      if (k < nph) {
        const iec::Phase& f = p.phases[static_cast<std::size_t>(k)];
        c.text(x0 + static_cast<int>(slots) * c.cell + 8, y + c.cell / 2 + 4,
               "to P" + std::to_string(f.partner) + "; receives at slot " + std::to_string(f.recv_offset),
               10);
      }
      y += c.cell + 2;
    }
  }

  y += 22;
  c.text(margin, y, "Packed and written: one contiguous request per rank at file_offset", 11, "start",
         "bold");
  y += 8;
  const auto mem = iec::simulate_memory(d, plans);
  for (const iec::RankPlan& p : plans) {
    std::vector<std::int64_t> packed;
    for (const Tuple& t : p.pack.datatype().flatten())
      for (std::int64_t j = 0; j < t.length; ++j)
        packed.push_back(mem[static_cast<std::size_t>(p.rank)][static_cast<std::size_t>(t.offset + j)]);
    c.text(margin, y + c.cell / 2 + 4, "P" + std::to_string(p.rank), 11);
    for (std::size_t s = 0; s < packed.size(); ++s)
      c.box(x0 + static_cast<int>(s) * c.cell, y, fill(packed[s]), false, packed[s]);
    c.text(x0 + static_cast<int>(packed.size()) * c.cell + 8, y + c.cell / 2 + 4,
           "file entries " + std::to_string(p.file_offset) + "-" + std::to_string(p.file_offset + chunk - 1),
           10);
    y += c.cell + 2;
  }
  y += margin;
  return c.document(x0 + static_cast<int>(slots) * c.cell, y, margin);
}

}  // namespace ciosim::app
