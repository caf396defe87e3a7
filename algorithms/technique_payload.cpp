// The workload's data as elided payloads (algorithms/common/payload.hpp): the sources of the bytes
// make_local_data and expected_file (algorithms/technique.cpp) produce, without the bytes.
#include <stdexcept>
#include <string>

#include "algorithms/technique.hpp"

namespace ciosim {

namespace {

/// The pieces of the entries `dt` selects, in its order: entry i's bytes are sources
/// [(base + i) * es, (base + i + 1) * es).
void append_entries(std::vector<payload::Piece>& out, const Datatype& dt, std::int64_t es,
                    std::int64_t base) {
  for (std::int64_t j = 0; j < dt.count; ++j) {
    for (const Tuple& t : dt.tuples)
      payload::append(out, payload::Piece{t.length * es, (base + t.offset + j * dt.stride) * es});
    if (j == 1 && dt.tuples.size() == 1 && dt.count > 2 && !out.empty()) {
      // A replica of one run (block-cyclic: Bx = 1 is a replica per entry). If replica 2 would extend the
      // last piece (continue it, or be its next run at its stride), then replica 1 was that piece's last
      // run, so every later replica extends it the same way (payload::join): all of them at once.
      const std::int64_t len = dt.tuples.front().length * es;
      const std::int64_t next = (base + dt.tuples.front().offset + 2 * dt.stride) * es;
      const payload::Piece& b = out.back();
      const bool extends = len > 0 && next >= 0 && b.source >= 0 && !b.grouped() &&
                           (b.strided() ? b.block == len && next == b.source + b.runs() * b.stride
                                        : next == b.source + b.length);
      if (extends) {
        out.back().length += (dt.count - 2) * len;
        return;
      }
    }
  }
}

void check_element_size(std::int64_t element_size, const char* who) {
  if (element_size <= 0)
    throw std::invalid_argument(std::string(who) + ": element size must be positive (got " +
                                std::to_string(element_size) + ")");
}

}  // namespace

std::string why_not_elided(const TechniqueInfo& t, bool sequence) {
  if (!t.elided) {
    std::string valid;
    for (const TechniqueInfo& u : techniques())
      if (u.elided) valid += (valid.empty() ? "" : ", ") + u.name;
    return "technique " + t.name + " moves real bytes (techniques that run elided: " + valid + ")";
  }
  if (sequence) return "run.sequence checks every step's bytes";
  return "";
}

bool auto_elided(double data_bytes, double regions, double array_copies, bool few_pieces) {
  constexpr double kAutoBytes = 1024.0 * 1024 * 1024;
  constexpr double kAutoRegionBytes = 4096;
  constexpr double kAutoArrayCopies = 128;  // where multiple-phase elided is as fast as with bytes (above)
  if (data_bytes >= kAutoBytes && (few_pieces || data_bytes >= regions * kAutoRegionBytes)) return true;
  return array_copies >= kAutoArrayCopies && array_copies * data_bytes >= kAutoBytes;
}

payload::Buffer make_local_payload(const Distribution& d, int rank, std::int64_t element_size,
                                   std::int64_t base) {
  if (rank < 0 || rank >= d.nprocs())
    throw std::invalid_argument("make_local_payload: rank must be in [0, Np) (rank=" + std::to_string(rank) +
                                ", Np=" + std::to_string(d.nprocs()) + ")");
  check_element_size(element_size, "make_local_payload");
  const Datatype& dt = d.per_rank[static_cast<std::size_t>(rank)];
  payload::Buffer out(static_cast<std::size_t>(dt.size() * element_size), payload::Mode::Elided);
  std::vector<payload::Piece> ps;
  append_entries(ps, dt, element_size, base);
  payload::assign(out, ps);
  return out;
}

std::vector<payload::Piece> expected_pieces(const Distribution& d, FileLayout layout,
                                            std::int64_t element_size, std::int64_t base) {
  check_element_size(element_size, "expected_pieces");
  std::vector<payload::Piece> out;
  if (layout == FileLayout::RankMajor) {
    for (const Datatype& dt : d.per_rank) append_entries(out, dt, element_size, base);
    return out;
  }
  payload::append(out, payload::Piece{d.nx * element_size, base * element_size});
  return out;
}

}  // namespace ciosim
