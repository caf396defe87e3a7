// Sequential output: gather at rank 0, one contiguous write.
// Singh, Isaila, Calderón, García, Carretero, "Multiple-Phase Collective I/O Technique for Improving
// Data Access Locality", PDP 2007,
// §5: "Both sequential techniques require additional communication operations for gathering the data (as
// shown labeled with 1st Level in the figures)"; STEM-II's Gather step (Fig. 1).
#include "algorithms/baselines/sequential.hpp"

#include <vector>

#include "algorithms/common/distribution.hpp"
#include "algorithms/common/payload.hpp"

namespace ciosim::sequential {

namespace {

constexpr int kRoot = 0;

}  // namespace

std::string check(const Distribution& d) {
  if (std::string why = check_partition(d); !why.empty()) return "sequential needs a partition of x: " + why;
  return "";
}

void run_write(Process& p, const TechniqueInput& in, LocalData local) {
  check_input(p, in, local.size(), "sequential");
  const Distribution& d = *in.dist;
  const std::int64_t es = in.element_size;
  const bool root = p.rank() == kRoot;
  // The root knows every rank's share from the (regular) distribution, as STEM-II's root does.
  std::vector<std::int64_t> counts;
  std::int64_t tuples = 0;
  for (const Datatype& dt : d.per_rank) {
    counts.push_back(dt.size() * es);
    tuples += dt.all_tuples();
  }
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("gather");
    payload::Buffer gathered(root ? static_cast<std::size_t>(d.nx * es) : 0);
    p.gatherv(local, gathered, counts, kRoot);
    payload::Buffer array(root ? static_cast<std::size_t>(d.nx * es) : 0);
    if (root) {  // each rank's entries to their places in x (MPI_Unpack by the rank's datatype)
      std::size_t pos = 0;
      for (std::size_t r = 0; r < d.per_rank.size(); ++r) {
        const auto n = static_cast<std::size_t>(counts[r]);
        unpack(gathered.span().subspan(pos, n), d.per_rank[r], es, array);
        pos += n;
      }
      p.compute(Work{.bytes_copied = d.nx * es, .tuples = tuples});
    }
    p.phase("write");
    if (root) p.write_at(0, array);
  }
}

}  // namespace ciosim::sequential
