// `ciosim plan --svg FILE` for two-phase with the LAP aggregator assignment: the host x interval benefit
// matrix (ACN pieces or AVN items), LAPJV's choice and ROMIO's default, drawn from the technique's own
// functions (algorithms/lap/aggregation_interval.hpp).
// R. Filgueira, D. E. Singh, J. C. Pichel, F. Isaila, J. Carretero, "Data Locality Aware Strategy for
// Two-Phase Collective I/O", VECPAR 2008, LNCS 5336 (2009).
#include <algorithm>
#include <cstdio>
#include <string>

#include "app/plan_views.hpp"
#include "app/svg_canvas.hpp"
#include "config/params.hpp"

namespace ciosim::app {
namespace {

constexpr int kMaxHosts = 64;

/// White for 0 to a full blue for the matrix's largest value.
std::string shade(std::int64_t v, std::int64_t max) {
  const double f = max > 0 ? static_cast<double>(v) / static_cast<double>(max) : 0.0;
  const auto mix = [f](int full) { return static_cast<int>(255.0 + (full - 255.0) * f + 0.5); };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", mix(0x6b), mix(0xae), mix(0xd6));
  return buf;
}

}  // namespace

std::string lap_svg(const std::string& title, const LapAssignment& a, LapCriterion criterion) {
  const int H = static_cast<int>(a.hosts.names.size());
  if (H > kMaxHosts)
    throw config::ConfigError("--svg draws at most " + std::to_string(kMaxHosts) + " hosts; this point has " +
                              std::to_string(H));
  std::int64_t max = 0;
  for (int h = 0; h < H; ++h)
    for (int k = 0; k < H; ++k) max = std::max(max, a.benefit.at(h, k));
  const bool acn = criterion == LapCriterion::Acn;

  svg::Canvas c;
  c.cell = H <= 16 ? 40 : 16;
  std::size_t longest = 0;
  for (const auto& n : a.hosts.names) longest = std::max(longest, n.size());
  c.label_w = 12 + static_cast<int>(longest) * 7;
  const int margin = 16;
  const int x0 = margin + c.label_w;
  int y = margin + 14;
  c.text(margin, y, title, 13, "start", "bold");
  y += 18;
  y = c.notes(
          margin, y,
          {std::string("cell: the ") + (acn ? "contiguous pieces (ACN)" : "items (AVN)") +
               " of the host's ranks in the interval, the benefit of making it the interval's aggregator "
               "(darker: more)",
           "red outline: the host LAPJV chooses for the interval; dot: ROMIO's default (interval k to the "
           "k-th host)"}) -
      14;
  y += 22;
  for (int k = 0; k < H; ++k)
    c.text(x0 + k * c.cell + c.cell / 2, y, "I" + std::to_string(k), c.cell >= 40 ? 10 : 7, "middle");
  y += 6;
  std::int64_t lap_total = 0, default_total = 0;
  for (int h = 0; h < H; ++h) {
    c.text(margin, y + c.cell / 2 + 4, a.hosts.names[static_cast<std::size_t>(h)], 11);
    for (int k = 0; k < H; ++k) {
      const std::int64_t v = a.benefit.at(h, k);
      const bool chosen = a.choice.interval_host[static_cast<std::size_t>(k)] == h;
      if (chosen) lap_total += v;
      if (h == k) default_total += v;
      const std::string fill = shade(v, max);
      c.box(x0 + k * c.cell, y, fill.c_str(), chosen, c.cell >= 40 ? v : -1);
      if (h == k)
        c.body << "<circle cx=\"" << x0 + k * c.cell + 5 << "\" cy=\"" << y + 5
               << "\" r=\"2.5\" fill=\"#222222\"/>\n";
    }
    y += c.cell;
  }
  y += 20;
  c.text(margin, y,
         "total benefit: LAP " + std::to_string(lap_total) + ", default " + std::to_string(default_total) +
             "; cb_config_list = \"" + a.choice.cb_config_list + "\"",
         11);
  y += margin;
  return c.document(x0 + H * c.cell, y, margin);
}

}  // namespace ciosim::app
