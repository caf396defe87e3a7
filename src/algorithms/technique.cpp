// The registry of collective I/O techniques and the data every technique is checked against (DESIGN.md:
// "A registry of named techniques ... Register explicitly, no static-constructor magic").
#include "algorithms/technique.hpp"

#include <cstring>
#include <stdexcept>

#include "algorithms/block_io.hpp"
#include "algorithms/iec.hpp"

namespace ciosim {

namespace {

const char* const kIecCitation =
    "D. E. Singh, F. Isaila, J. C. Pichel, J. Carretero, \"A collective I/O implementation based on "
    "inspector-executor paradigm\", The Journal of Supercomputing 47(1):53-75, 2009";

std::vector<TechniqueInfo> make_registry() {
  std::vector<TechniqueInfo> list;
  list.push_back(TechniqueInfo{
      "iec",
      "Inspector-Executor Collective I/O (IEC I/O): an inspector, run once, generates offset-length "
      "datatypes "
      "for log2(Np) butterfly exchange phases by tracking the logical and physical address of every entry a "
      "rank "
      "owns and exchanging datatypes recursively with its partners; each execution then swaps Nx/(2Np) "
      "entries "
      "with the phase partner in every phase, packs the now contiguous chunk of Nx/Np entries and writes it "
      "with "
      "one contiguous request at the bit-reversed rank's offset. Needs a power-of-two Np and a distribution "
      "that "
      "halves evenly at every phase (e.g. block-cyclic with Nx divisible by Np^2*Bx).",
      std::string(kIecCitation) + ", §3",
      FileLayout::Logical,
      iec::check,
      iec::run,
  });
  list.push_back(TechniqueInfo{
      "block",
      "Block I/O, the reference of the IEC comparison: every rank writes its local entries, in storage "
      "order, as "
      "one contiguous request right after those of the lower ranks. No communication and maximal locality, "
      "but "
      "the file is not in x's order (rank-major), so it is not a valid collective write; it bounds what any "
      "technique can achieve.",
      std::string(kIecCitation) + ", §4.2",
      FileLayout::RankMajor,
      block_io::check,
      block_io::run,
  });
  return list;
}

}  // namespace

const std::vector<TechniqueInfo>& techniques() {
  static const std::vector<TechniqueInfo> registry = make_registry();  // immutable once built
  return registry;
}

const TechniqueInfo& technique(const std::string& name) {
  const auto& all = techniques();
  for (const TechniqueInfo& t : all)
    if (t.name == name) return t;
  std::string valid;
  for (const TechniqueInfo& t : all) valid += (valid.empty() ? "" : ", ") + t.name;
  throw std::invalid_argument("unknown algorithm '" + name + "' (valid: " + valid + ")");
}

void fill_entry(std::int64_t i, std::span<std::byte> out) {
  const auto v = static_cast<std::uint64_t>(i);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = static_cast<std::byte>((v >> (8 * (k % 8))) & 0xFF);
}

std::vector<std::byte> make_local_data(const Distribution& d, int rank, std::int64_t element_size) {
  if (rank < 0 || rank >= d.nprocs())
    throw std::invalid_argument("make_local_data: rank must be in [0, Np) (rank=" + std::to_string(rank) +
                                ", Np=" + std::to_string(d.nprocs()) + ")");
  if (element_size <= 0)
    throw std::invalid_argument("make_local_data: element size must be positive (got " +
                                std::to_string(element_size) + ")");
  const Datatype& dt = d.per_rank[static_cast<std::size_t>(rank)];
  const auto es = static_cast<std::size_t>(element_size);
  std::vector<std::byte> out(static_cast<std::size_t>(dt.size()) * es);
  std::size_t k = 0;
  for (std::int64_t j = 0; j < dt.count; ++j)
    for (const Tuple& t : dt.tuples)
      for (std::int64_t i = 0; i < t.length; ++i, ++k)
        fill_entry(t.offset + j * dt.stride + i, std::span<std::byte>(out).subspan(k * es, es));
  return out;
}

std::vector<std::byte> expected_file(const Distribution& d, FileLayout layout, std::int64_t element_size) {
  if (element_size <= 0)
    throw std::invalid_argument("expected_file: element size must be positive (got " +
                                std::to_string(element_size) + ")");
  if (layout == FileLayout::RankMajor) {
    std::vector<std::byte> out;
    for (int r = 0; r < d.nprocs(); ++r) {
      std::vector<std::byte> part = make_local_data(d, r, element_size);
      out.insert(out.end(), part.begin(), part.end());
    }
    return out;
  }
  const auto es = static_cast<std::size_t>(element_size);
  std::vector<std::byte> out(static_cast<std::size_t>(d.nx) * es);
  for (std::int64_t i = 0; i < d.nx; ++i)
    fill_entry(i, std::span<std::byte>(out).subspan(static_cast<std::size_t>(i) * es, es));
  return out;
}

}  // namespace ciosim
