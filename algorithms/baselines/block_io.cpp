// Block I/O (the reference technique of §4.2).
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm",
// The Journal of Supercomputing 47(1):53-75, 2009, §4.2: "Block I/O technique consists of writing the
// distributed x entries in consecutive disk positions."
#include "algorithms/baselines/block_io.hpp"

#include <stdexcept>

#include "algorithms/common/distribution.hpp"

namespace ciosim::block_io {

std::int64_t rank_offset(const Distribution& d, int rank) {
  if (rank < 0 || rank >= d.nprocs())
    throw std::invalid_argument("block: rank must be in [0, Np) (rank=" + std::to_string(rank) +
                                ", Np=" + std::to_string(d.nprocs()) + ")");
  return d.entries_before(rank);
}

std::string check(const Distribution& d) {
  if (std::string why = check_partition(d); !why.empty()) return "Block I/O needs a partition of x: " + why;
  return "";
}

void run(Process& p, const TechniqueInput& in, LocalData local) {
  if (in.dist == nullptr)
    throw std::invalid_argument("block: TechniqueInput.dist is null (a distribution is required)");
  if (in.element_size <= 0)
    throw std::invalid_argument("block: element size must be positive (got " +
                                std::to_string(in.element_size) + ")");
  if (in.iterations < 1)
    throw std::invalid_argument("block: iterations must be >= 1 (got " + std::to_string(in.iterations) + ")");
  const Distribution& d = *in.dist;
  if (d.nprocs() != p.size())
    throw std::invalid_argument("block: the distribution has " + std::to_string(d.nprocs()) +
                                " ranks, the run has " + std::to_string(p.size()));
  const std::int64_t entries = d.per_rank[static_cast<std::size_t>(p.rank())].size();
  if (static_cast<std::int64_t>(local.size()) != entries * in.element_size)
    throw std::invalid_argument("block: rank " + std::to_string(p.rank()) + " got " +
                                std::to_string(local.size()) + " bytes of local data, needs " +
                                std::to_string(entries * in.element_size));
  const std::int64_t offset = rank_offset(d, p.rank()) * in.element_size;
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("write");
    p.write_at(offset, local);
  }
}

void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out) {
  check_input(p, in, out.size(), "block");
  const std::int64_t offset = rank_offset(*in.dist, p.rank()) * in.element_size;
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("read");
    p.read_at(offset, out);
  }
}

}  // namespace ciosim::block_io
