// `ciosim plan --nx N --np P`: the IEC inspector's memory layout per phase, as text and as SVG, drawn
// from the real plan (iec::inspect_all) and the real data movement (iec::simulate_memory).
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor
// paradigm", The Journal of Supercomputing 47(1):53-75, 2009: Tables 1-4, Figs. 3-7 of the worked example.
#include <algorithm>
#include <sstream>

#include "app/commands.hpp"
#include "app/plan_views.hpp"

namespace ciosim::app {
namespace {

using Memory = std::vector<std::vector<std::int64_t>>;

/// Memory slots shown per row: what fits in about 100 columns with cells `cw` wide (at least 16).
std::size_t slots_shown(std::size_t cw) {
  return std::max<std::size_t>(16, 96 / cw);
}

/// Memory slots a datatype selects, in its order.
std::vector<std::int64_t> slots_of(const Datatype& dt) {
  std::vector<std::int64_t> out;
  for (const Tuple& t : dt.flatten())
    for (std::int64_t j = 0; j < t.length; ++j) out.push_back(t.offset + j);
  return out;
}

/// "2-3, 6" for {2, 3, 6}.
std::string ranges(const std::vector<std::int64_t>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(v[i]);
    if (j > i) out += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

/// "x 8 12" (at most 16 values shown).
std::string values(const std::vector<std::int64_t>& slots, const std::vector<std::int64_t>& memory) {
  std::string out = "x";
  for (std::size_t k = 0; k < slots.size() && k < 16; ++k)
    out += " " + std::to_string(memory[static_cast<std::size_t>(slots[k])]);
  if (slots.size() > 16) out += " ...";
  return out;
}

std::string right(const std::string& s, std::size_t w) {
  return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
}

std::string cell(std::int64_t v, std::size_t w) {
  return right(v < 0 ? "." : std::to_string(v), w);
}

std::string label(int r, std::size_t w) {
  std::string s = "P" + std::to_string(r);
  return s + std::string(w > s.size() ? w - s.size() : 0, ' ');
}

void grid(std::ostringstream& out, const Memory& mem, std::size_t cw, std::size_t lw) {
  for (std::size_t r = 0; r < mem.size(); ++r) {
    out << "  " << label(static_cast<int>(r), lw) << " |";
    const auto shown = std::min(mem[r].size(), slots_shown(cw));
    for (std::size_t k = 0; k < shown; ++k) out << cell(mem[r][k], cw);
    out << (shown < mem[r].size() ? " ... (" + std::to_string(mem[r].size() - shown) + " more slots)" : " |")
        << "\n";
  }
}

void slot_header(std::ostringstream& out, std::int64_t slots, std::size_t cw, std::size_t lw) {
  out << "  " << std::string(lw, ' ') << " |";
  for (std::int64_t k = 0; k < std::min(slots, static_cast<std::int64_t>(slots_shown(cw))); ++k)
    out << cell(k, cw);
  out << "   <- memory slot\n";
}

}  // namespace

std::string iec_text(const std::string& title, const Distribution& d,
                     const std::vector<iec::RankPlan>& plans) {
  const int np = d.nprocs();
  const std::int64_t nx = d.nx;
  const int nph = iec::num_phases(np);
  const std::int64_t slots = plans.front().buffer_entries;
  const std::int64_t half = nx / (2 * np);
  const std::size_t cw = std::to_string(std::max<std::int64_t>(nx - 1, slots - 1)).size() + 1;
  const std::size_t lw = std::to_string(np - 1).size() + 1;
  std::ostringstream out;
  out << title << "\n"
      << wrap("Nph = ceil(log2 Np) = " + std::to_string(nph) + " butterfly phases. Each rank allocates " +
                  std::to_string(slots) + " memory slots: Nx/Np = " + std::to_string(nx / np) +
                  " for its own entries and Nx/(2 Np) = " + std::to_string(half) +
                  " for what it receives in each phase. A cell is the index i of the entry x[i] held in that "
                  "slot; '.' is a slot not written yet.",
              0)
      << "\n\n";

  out << "Summary (the paper's Tables 1-4)\n  rank  alloc_offset";
  for (int ph = 0; ph < nph; ++ph) out << "  partner_ph" << ph + 1 << "  recv_offset_ph" << ph + 1;
  out << "  file_offset\n";
  for (const iec::RankPlan& p : plans) {
    out << "  " << right("P" + std::to_string(p.rank), 4) << right(std::to_string(p.alloc_offset), 14);
    for (const iec::Phase& ph : p.phases)
      out << right("P" + std::to_string(ph.partner), 12) << right(std::to_string(ph.recv_offset), 16);
    out << right(std::to_string(p.file_offset), 13) << "\n";
  }

  Memory mem = iec::simulate_memory(d, plans, 0);
  const std::string n = std::to_string(nx / np), h = std::to_string(half);
  out << "\n"
      << wrap("Step 1. Initial placement: rank r copies its " + n +
                  " entries, in the order it stores them, into slots alloc_offset(r) = popcount(r) * Nx/(2 "
                  "Np) "
                  "onwards (Table 1).",
              0)
      << "\n";
  slot_header(out, slots, cw, lw);
  grid(out, mem, cw, lw);

  for (int ph = 0; ph < nph; ++ph) {
    out << "\n"
        << wrap("Step " + std::to_string(ph + 2) + ". Exchange phase " + std::to_string(ph + 1) + " of " +
                    std::to_string(nph) + ": rank r pairs with r XOR " + std::to_string(1 << ph) +
                    " (Table 2), sends it the " + h +
                    " entries that belong to the partner's half of their common file range, and stores the " +
                    h +
                    " it receives consecutively from slot recv_offset (Table 3). Sent slots keep their old "
                    "value, unused from now on.",
                0)
        << "\n";
    for (const iec::RankPlan& p : plans) {
      const iec::Phase& f = p.phases[static_cast<std::size_t>(ph)];
      const std::vector<std::int64_t> sent = slots_of(f.send.datatype());
      out << "  P" << p.rank << " -> P" << f.partner << ": slots " << ranges(sent) << " ("
          << values(sent, mem[static_cast<std::size_t>(p.rank)]) << "); receives into slots " << f.recv_offset
          << "-" << f.recv_offset + half - 1 << "\n";
    }
    mem = iec::simulate_memory(d, plans, ph + 1);
    out << "  memory after phase " << ph + 1 << ":\n";
    slot_header(out, slots, cw, lw);
    grid(out, mem, cw, lw);
  }

  out << "\n"
      << wrap("Step " + std::to_string(nph + 2) +
                  ". Pack and write: each rank packs the slots it now owns, in logical order (the pack "
                  "datatype), "
                  "into one buffer of Nx/Np entries and writes it with one contiguous request at file entry "
                  "file_offset(r) = bitreverse(r) * Nx/Np (Table 4).",
              0)
      << "\n";
  for (const iec::RankPlan& p : plans) {
    const std::vector<std::int64_t> packed = slots_of(p.pack.datatype());
    out << "  P" << p.rank << " packs slots " << ranges(packed) << " ("
        << values(packed, mem[static_cast<std::size_t>(p.rank)]) << ") -> file entries " << p.file_offset
        << "-" << p.file_offset + nx / np - 1 << "\n";
  }
  return out.str();
}

}  // namespace ciosim::app
