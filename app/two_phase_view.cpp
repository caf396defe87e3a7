// `ciosim plan SCENARIO`: the plan of one two-phase collective write as text, step by step, from
// two_phase::plan_write (the technique's own functions).
// Thakur, Choudhary, "An Extended Two-Phase Method for Accessing Sections of Out-of-Core Arrays",
// Scientific Programming 5(4), 1996; Thakur, Gropp, Lusk, "Data Sieving and Collective I/O in ROMIO",
// Frontiers '99.
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

}  // namespace

std::string two_phase_text(const std::string& title, const two_phase::WritePlan& plan,
                           std::int64_t element_size, std::int64_t cb_buffer_size, int max_rounds) {
  const int P = static_cast<int>(plan.access.size());
  std::size_t hw = 4;
  for (const auto& h : plan.hosts) hw = std::max(hw, h.size() + 2);
  std::ostringstream out;
  out << title << "\n\n";
  out << wrap("Step 1. Each rank flattens its view into offset-length pieces of the file (bytes; " +
                  num(element_size) + " bytes per entry):",
              0)
      << "\n";
  out << "  " << left("rank", 6) << left("host", hw) << right("first byte", 12) << right("last byte", 12)
      << right("pieces", 10) << right("bytes", 12) << "\n";
  for (int r = 0; r < P; ++r) {
    const auto& a = plan.access[static_cast<std::size_t>(r)];
    out << "  " << left("P" + num(r), 6) << left(plan.hosts[static_cast<std::size_t>(r)], hw)
        << right(num(a.start), 12) << right(num(a.end), 12) << right(num(a.pieces), 10)
        << right(num(a.bytes), 12) << "\n";
  }
  std::string step2 =
      "Step 2. Two Allgathers share every rank's first and last byte; the interleave test finds " +
      num(plan.interleaved) + " rank(s) whose range starts before its left neighbour's ends. ";
  if (!plan.collective) {
    out << "\n"
        << wrap(step2 +
                    "So romio_cb_write sends every rank to independent I/O: each writes its own pieces (one "
                    "request, or list I/O when it has several). No aggregation.",
                0)
        << "\n";
    return out.str();
  }
  out << "\n" << wrap(step2 + "The write is collective.", 0) << "\n";

  std::string aggs;
  for (int r : plan.ranklist) aggs += " P" + num(r);
  out << "\nStep 3. Aggregators (cb_config_list and cb_nodes, chosen once at the open), in file-domain "
         "order:\n"
      << "  aggregators:" << aggs << "\n";
  out << "  The accessed range is split into " << plan.aggregators.size()
      << " file domains of fd_size = " << plan.fd_size << " bytes (the last ones may be short or empty):\n";
  out << "  " << left("aggregator", 12) << left("host", hw) << right("domain first", 14)
      << right("domain last", 14) << right("data first", 12) << right("data last", 12) << right("rounds", 8)
      << "\n";
  for (const auto& ag : plan.aggregators) {
    out << "  " << left("P" + num(ag.rank), 12) << left(plan.hosts[static_cast<std::size_t>(ag.rank)], hw)
        << right(num(ag.domain_start), 14) << right(num(ag.domain_end), 14) << right(num(ag.data_start), 12)
        << right(num(ag.data_end), 12) << right(num(static_cast<std::int64_t>(ag.rounds.size())), 8) << "\n";
  }

  out << "\n"
      << wrap(
             "Step 4. Each rank cuts its pieces at the domain boundaries and tells each aggregator which "
             "pieces "
             "it will send (Alltoall of counts, then the offset-length lists). Pieces (row: sender; column: "
             "aggregator):",
             0)
      << "\n";
  const std::size_t cw = 10;
  out << "  " << left("", 6);
  for (const auto& ag : plan.aggregators) out << right("->P" + num(ag.rank), cw);
  out << "\n";
  for (int r = 0; r < P; ++r) {
    out << "  " << left("P" + num(r), 6);
    for (std::int64_t c : plan.pieces[static_cast<std::size_t>(r)]) out << right(num(c), cw);
    out << "\n";
  }

  out << "\n"
      << wrap(
             "Step 5. Rounds: each aggregator handles the data of its domain in windows of cb_buffer_size "
             "= " +
                 num(cb_buffer_size) +
                 " bytes. In each round the ranks exchange sizes (Alltoall), send the aggregator their bytes "
                 "of "
                 "the window (Isend/Irecv, Waitall), and the aggregator writes the window with one "
                 "contiguous "
                 "request (reading it first when the data leave holes). Every rank takes part in " +
                 num(plan.max_rounds) + " round(s), the most any aggregator needs.",
             0)
      << "\n";
  for (const auto& ag : plan.aggregators) {
    out << "  Aggregator P" << ag.rank << ": " << ag.rounds.size() << " round(s)\n";
    const auto shown =
        std::min<std::size_t>(ag.rounds.size(), static_cast<std::size_t>(std::max(max_rounds, 0)));
    for (std::size_t m = 0; m < shown; ++m) {
      const auto& round = ag.rounds[m];
      std::string line = "round " + std::to_string(m + 1) + ": bytes " + num(round.offset) + "-" +
                         num(round.offset + round.size - 1) + " from";
      std::int64_t total = 0;
      for (const auto& s : round.senders) {
        line += " P" + num(s.sender) + " (" + num(s.pieces) + " piece" + (s.pieces == 1 ? "" : "s") + ", " +
                num(s.bytes) + " B),";
        total += s.bytes;
      }
      if (round.senders.empty()) line += " nobody,";
      line.pop_back();
      out << "    " << wrap(line + "; " + num(total) + " B written", 8) << "\n";
    }
    if (shown < ag.rounds.size())
      out << "    ... " << ag.rounds.size() - shown << " more round(s) (--rounds N shows more)\n";
  }
  return out.str();
}

}  // namespace ciosim::app
