// `ciosim plan SCENARIO` for multiple-phase: what each rank holds before and after every communication
// phase, what it sends and receives in each, and the file regions it writes in the end, from the
// technique's own functions (algorithms/multiple_phase/multiple_phase.hpp).
// D. E. Singh, F. Isaila, A. Calderón, F. García, J. Carretero, "Multiple-Phase Collective I/O Technique for
// Improving Data Access Locality", 15th Euromicro PDP, 2007, §4, Figs. 3-5, eq. (1).
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

/// The file regions of `held` (positions of x): its tuples with adjacent ones joined.
std::vector<Tuple> regions_of(const Datatype& held) {
  std::vector<Tuple> out;
  for (const Tuple& t : held.flatten()) {
    if (t.length == 0) continue;
    if (!out.empty() && out.back().offset + out.back().length == t.offset)
      out.back().length += t.length;
    else
      out.push_back(t);
  }
  return out;
}

std::string planes_text(const multiple_phase::Planes& p) {
  if (p.size() == 0) return "none";
  return p.size() == 1 ? num(p.begin) : num(p.begin) + ".." + num(p.end - 1);
}

/// One row per rank: the planes it is responsible for, the pieces of a plane it holds, its entries and the
/// file regions they make.
void holdings(std::ostringstream& out, const multiple_phase::Layout& l, int k, std::int64_t es) {
  out << "  " << left("rank", 6) << left("planes", 14) << right("pieces/plane", 14) << right("entries", 12)
      << right("bytes", 12) << right("file regions", 14) << "\n";
  for (int r = 0; r < l.nprocs(); ++r) {
    const Datatype h = multiple_phase::held(l, r, k);
    out << "  " << left("P" + num(r), 6)
        << left(planes_text(multiple_phase::planes_after(r, k, l.planes)), 14)
        << right(num(static_cast<std::int64_t>(multiple_phase::pieces_after(l, r, k).size())), 14)
        << right(num(h.size()), 12) << right(num(h.size() * es), 12)
        << right(num(static_cast<std::int64_t>(regions_of(h).size())), 14) << "\n";
  }
}

char rank_char(int r) {
  return r < 10 ? static_cast<char>('0' + r) : static_cast<char>('a' + (r - 10) % 26);
}

/// Each rank's memory after k phases: one character per entry of x, the digit of the rank whose entry it
/// holds there, '.' for a gap; planes separated by '|'.
void memory_map(std::ostringstream& out, const multiple_phase::Layout& l, int k, const std::vector<int>& of) {
  for (int r = 0; r < l.nprocs(); ++r) {
    std::string row(static_cast<std::size_t>(l.plane * l.planes), '.');
    for (const Tuple& t : multiple_phase::held(l, r, k).flatten())
      for (std::int64_t i = t.offset; i < t.offset + t.length; ++i)
        row[static_cast<std::size_t>(i)] = rank_char(of[static_cast<std::size_t>(i)]);
    std::string shown;
    for (std::int64_t w = 0; w < l.planes; ++w)
      shown += (w ? "|" : "") +
               row.substr(static_cast<std::size_t>(w * l.plane), static_cast<std::size_t>(l.plane));
    out << "    " << left("P" + num(r), 5) << shown << "\n";
  }
}

}  // namespace

std::vector<int> entry_owners(const multiple_phase::Layout& l) {
  std::vector<int> of(static_cast<std::size_t>(l.plane * l.planes), -1);
  for (int r = 0; r < l.nprocs(); ++r)
    for (const Tuple& t : l.pieces[static_cast<std::size_t>(r)])
      for (std::int64_t w = 0; w < l.planes; ++w)
        for (std::int64_t i = t.offset; i < t.offset + t.length; ++i)
          of[static_cast<std::size_t>(w * l.plane + i)] = r;
  return of;
}

std::string multiple_phase_text(const std::string& title, const multiple_phase::Layout& l, int phases,
                                std::int64_t element_size) {
  const int P = l.nprocs();
  int all = 0;
  while ((1 << all) < P) ++all;
  // The memory map fits a line of about 100 columns.
  const bool mapped = l.plane * l.planes + l.planes <= 96;
  const std::vector<int> of = mapped ? entry_owners(l) : std::vector<int>{};
  std::ostringstream out;
  out << title << "\n\n";
  out << wrap("The array x is " + num(l.planes) + " planes of " + num(l.plane) +
                  " entries (entry i lies in plane i / " + num(l.plane) + " at position i % " + num(l.plane) +
                  "; " + num(element_size) +
                  " bytes each), and every rank holds the same pieces of every plane. Each rank keeps the "
                  "whole array's memory, its own entries at their positions and gaps elsewhere (Fig. 3). "
                  "Then " +
                  num(phases) + " of the log2 " + num(P) + " = " + num(all) +
                  " butterfly phases (eq. (1), Fig. 5) gather, at each rank, the pieces of more ranks for "
                  "fewer planes, so that its part of the file gets more contiguous; then it writes.",
              0)
      << "\n\nBefore the first phase each rank holds its own pieces:\n";
  holdings(out, l, 0, element_size);
  if (mapped) {
    out << "  memory (the rank whose entry each slot holds; '.' a gap; '|' between planes):\n";
    memory_map(out, l, 0, of);
  }
  for (int ph = 0; ph < phases; ++ph) {
    out << "\n"
        << wrap("Phase " + num(ph) + " (\"exchange" + num(ph) + "\"): rank r pairs with r XOR " +
                    num(1 << ph) +
                    "; the pair splits its planes in two, the lower rank keeping the lower half; each sends "
                    "what it holds of the other's half and receives the partner's entries of its own half, "
                    "stored at their own positions (no packing on arrival).",
                0)
        << "\n";
    out << "  " << left("rank", 6) << left("partner", 9) << left("keeps planes", 14) << right("sends", 12)
        << right("bytes", 12) << right("receives", 12) << right("bytes", 12) << "\n";
    for (int r = 0; r < P; ++r) {
      const multiple_phase::Step s = multiple_phase::step(l, r, ph);
      out << "  " << left("P" + num(r), 6) << left("P" + num(s.partner), 9)
          << left(planes_text(multiple_phase::planes_after(r, ph + 1, l.planes)), 14)
          << right(num(s.send.size()), 12) << right(num(s.send.size() * element_size), 12)
          << right(num(s.recv.size()), 12) << right(num(s.recv.size() * element_size), 12) << "\n";
    }
    out << "  after it:\n";
    holdings(out, l, ph + 1, element_size);
    if (mapped) memory_map(out, l, ph + 1, of);
  }
  out << "\n"
      << wrap(
             "Write (\"write\"): each rank writes what it holds with one access through a file view: a "
             "list write of its regions when it has several, one contiguous write when it has one:",
             0)
      << "\n";
  out << "  " << left("rank", 6) << right("first byte", 14) << right("last byte", 14) << right("regions", 10)
      << right("bytes", 12) << "\n";
  std::int64_t most = 0;
  for (int r = 0; r < P; ++r) {
    const std::vector<Tuple> reg = regions_of(multiple_phase::held(l, r, phases));
    std::int64_t bytes = 0;
    for (const Tuple& t : reg) bytes += t.length * element_size;
    most = std::max(most, static_cast<std::int64_t>(reg.size()));
    out << "  " << left("P" + num(r), 6)
        << right(reg.empty() ? "-" : num(reg.front().offset * element_size), 14)
        << right(reg.empty() ? "-" : num((reg.back().offset + reg.back().length) * element_size - 1), 14)
        << right(num(static_cast<std::int64_t>(reg.size())), 10) << right(num(bytes), 12) << "\n";
  }
  out << "\n"
      << wrap(most <= 1
                  ? "Every rank writes one contiguous block: the most locality the technique reaches."
                  : "With " + num(phases) + " of " + num(all) + " phases a rank writes up to " + num(most) +
                        " regions; each further phase halves its planes and doubles the rows it holds "
                        "contiguously (`--set run.phases=" +
                        num(all) + "` shows all of them).",
              0)
      << "\n";
  return out.str();
}

}  // namespace ciosim::app
