// Independent I/O, one contiguous request per piece.
// Thakur, Gropp, Lusk, "Data Sieving and Collective I/O in ROMIO", Frontiers '99, §2 (the unoptimised
// baseline: "a separate read/write call for each contiguous piece").
#include "algorithms/baselines/independent.hpp"

#include "algorithms/common/access_list.hpp"
#include "algorithms/common/distribution.hpp"

namespace ciosim::independent {

std::string check(const Distribution& d) {
  if (std::string why = check_partition(d); !why.empty())
    return "independent I/O needs a partition of x: " + why;
  return "";
}

void run_write(Process& p, const TechniqueInput& in, LocalData local) {
  check_input(p, in, local.size(), "independent");
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("write");
    std::size_t pos = 0;
    for_each_storage_piece(dt, in.element_size, [&](Offset off, Offset len) {
      p.compute(Work{.bytes_copied = 0, .tuples = 1});
      p.write_at(off, local.subspan(pos, static_cast<std::size_t>(len)));
      pos += static_cast<std::size_t>(len);
    });
  }
}

void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out) {
  check_input(p, in, out.size(), "independent");
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("read");
    std::size_t pos = 0;
    for_each_storage_piece(dt, in.element_size, [&](Offset off, Offset len) {
      p.compute(Work{.bytes_copied = 0, .tuples = 1});
      p.read_at(off, out.subspan(pos, static_cast<std::size_t>(len)));
      pos += static_cast<std::size_t>(len);
    });
  }
}

}  // namespace ciosim::independent
