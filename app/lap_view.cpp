// `ciosim plan SCENARIO` for two-phase with the LAP aggregator assignment (hints.lap = acn | avn): the
// intervals, each host's count in each (the ACN or AVN benefit matrix), the hosts LAPJV chooses against
// ROMIO's default, then the two-phase plan with the chosen cb_config_list; from the technique's own
// functions (algorithms/lap/aggregation_interval.hpp).
// R. Filgueira, D. E. Singh, J. C. Pichel, F. Isaila, J. Carretero, "Data Locality Aware Strategy for
// Two-Phase Collective I/O", VECPAR 2008, LNCS 5336 (2009).
#include <algorithm>
#include <sstream>

#include "app/commands.hpp"
#include "app/plan_views.hpp"
#include "app/text_columns.hpp"

namespace ciosim::app {
namespace {

using columns::left;
using columns::num;
using columns::right;

constexpr int kMatrixColumns = 16;  // intervals shown as columns of the matrix (about 100 characters)

}  // namespace

LapAssignment lap_assignment(const Distribution& d, const std::vector<std::string>& rank_hosts,
                             LapCriterion criterion) {
  LapAssignment a{lap::group_hosts(rank_hosts), {}, {}, {}};
  const int H = static_cast<int>(a.hosts.names.size());
  a.intervals = lap::make_intervals(d.nx / d.unit, H);
  std::vector<std::vector<std::int64_t>> counts;
  for (const Datatype& dt : d.per_rank)
    counts.push_back(lap::interval_counts(lap::item_blocks(dt, d.unit), a.intervals, criterion));
  a.benefit = lap::benefit_matrix(a.hosts, counts);
  a.choice = lap::choose(a.hosts, a.benefit);
  return a;
}

std::string lap_text(const std::string& title, const Distribution& d,
                     const std::vector<std::string>& rank_hosts, IoHints hints, std::int64_t element_size,
                     int max_rounds) {
  const bool acn = hints.lap == LapCriterion::Acn;
  const std::string what = acn ? "pieces" : "items";
  const std::int64_t unit = d.unit;
  const LapAssignment a = lap_assignment(d, rank_hosts, hints.lap);
  const lap::Hosts& hosts = a.hosts;
  const int H = static_cast<int>(hosts.names.size());
  const lap::Intervals& iv = a.intervals;
  const lap::Matrix& w = a.benefit;
  const lap::Choice& choice = a.choice;

  std::ostringstream out;
  out << title << "\n\n";
  out << wrap("Step 1 (phase st3_lap). The " + num(d.nx / unit) + " items (" + num(unit) +
                  (unit == 1 ? " entry, " : " entries, ") + num(unit * element_size) +
                  " bytes each) are cut into one interval per host, " + num(H) +
                  " in all, floor(N / hosts) = " + num(iv.size) + " items each (the last takes the rest):",
              0)
      << "\n";
  out << "  " << left("interval", 10) << right("first item", 12) << right("last item", 12) << "\n";
  for (int k = 0; k < H; ++k)
    out << "  " << left("I" + num(k), 10) << right(num(iv.begin[static_cast<std::size_t>(k)]), 12)
        << right(num(iv.end[static_cast<std::size_t>(k)]), 12) << "\n";

  out << "\n"
      << wrap("Step 2. Each rank counts, in each interval, the " +
                  std::string(acn ? "contiguous pieces of its data (ACN: aggregation by communication number)"
                                  : "items of its data (AVN: aggregation by volume number)") +
                  "; rank 0 gathers the counts and sums them per host: the benefit of making that host the "
                  "interval's aggregator (the data it would not have to receive).",
              0)
      << "\n";
  std::size_t names_w = 0;  // the longest host name and a gap: the width of the host columns below
  for (const auto& n : hosts.names) names_w = std::max(names_w, n.size() + 2);
  if (H <= kMatrixColumns) {
    const std::size_t hw = std::max<std::size_t>(6, names_w);
    out << "  " << left("host", hw);
    for (int k = 0; k < H; ++k) out << right("I" + num(k), 8);
    out << "\n";
    for (int h = 0; h < H; ++h) {
      out << "  " << left(hosts.names[static_cast<std::size_t>(h)], hw);
      for (int k = 0; k < H; ++k) out << right(num(w.at(h, k)), 8);
      out << "\n";
    }
  } else {
    out << "  (" << H << " x " << H << " matrix: too wide to show; step 3 lists the chosen entries)\n";
  }

  out << "\n"
      << wrap(
             "Step 3. Rank 0 solves the linear assignment problem (LAPJV: each interval to a different host, "
             "the total benefit as large as possible) and broadcasts the hosts as cb_config_list. Against "
             "ROMIO's default (cb_config_list *:1, file domain k to the k-th host):",
             0)
      << "\n";
  const std::size_t hw = std::max<std::size_t>(8, names_w);
  out << "  " << left("interval", 10) << left("LAP host", hw) << right(what, 10) << "   "
      << left("default", hw) << right(what, 10) << "\n";
  std::int64_t lap_total = 0;
  std::int64_t default_total = 0;
  for (int k = 0; k < H; ++k) {
    const int h = choice.interval_host[static_cast<std::size_t>(k)];
    lap_total += w.at(h, k);
    default_total += w.at(k, k);
    out << "  " << left("I" + num(k), 10) << left(hosts.names[static_cast<std::size_t>(h)], hw)
        << right(num(w.at(h, k)), 10) << "   " << left(hosts.names[static_cast<std::size_t>(k)], hw)
        << right(num(w.at(k, k)), 10) << "\n";
  }
  out << "  " << left("total", 10) << left("", hw) << right(num(lap_total), 10) << "   " << left("", hw)
      << right(num(default_total), 10) << "\n";
  out << "  cb_config_list = \"" << choice.cb_config_list << "\"\n\n";

  hints.cb_config_list = choice.cb_config_list;
  const two_phase::WritePlan plan = two_phase::plan_write(d, element_size, hints, rank_hosts);
  out << two_phase_text("Then two-phase's write with that cb_config_list (phases st1_offsets .. st8_write):",
                        plan, element_size, hints.cb_buffer_size, max_rounds);
  return out.str();
}

}  // namespace ciosim::app
