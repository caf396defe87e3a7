// List I/O (independent, batches of offset-length regions per file-system request).
// A. Ching, A. Choudhary, W.-K. Liao, R. Ross, W. Gropp, "Noncontiguous I/O through PVFS", IEEE Cluster
// 2002; ROMIO's PVFS2 driver batches at most 64 regions per request (MAX_ARRAY_SIZE in ad_pvfs2;
// docs/two-phase.md, "List I/O, independent, gathered"). The comparison: Singh, Isaila, Pichel, Carretero,
// J. Supercomputing 47(1):53-75, 2009, §4.2.
#include "algorithms/baselines/list_io.hpp"

#include <stdexcept>
#include <vector>

#include "algorithms/common/access_list.hpp"
#include "algorithms/common/distribution.hpp"

namespace ciosim::list_io {

namespace {

/// Calls io(regions, first_byte, bytes) per batch of at most `batch` storage-order pieces.
template <class Io>
void for_each_batch(Process& p, const Datatype& dt, std::int64_t es, int batch, Io&& io) {
  if (batch < 1)
    throw std::invalid_argument("list I/O: the batch must hold >= 1 region (got " + std::to_string(batch) +
                                ")");
  std::vector<Extent> regions;
  regions.reserve(static_cast<std::size_t>(batch));
  Offset first = 0;  // buffer position of the batch's first byte
  Offset bytes = 0;
  auto flush = [&] {
    if (regions.empty()) return;
    p.compute(
        Work{.bytes_copied = 0, .tuples = static_cast<std::int64_t>(regions.size()), .step = Step::Regions});
    io(std::span<const Extent>(regions), first, bytes);
    first += bytes;
    bytes = 0;
    regions.clear();
  };
  for_each_storage_piece(dt, es, [&](Offset off, Offset len) {
    regions.push_back(Extent{off, len});
    bytes += len;
    if (static_cast<int>(regions.size()) == batch) flush();
  });
  flush();
}

}  // namespace

std::string check(const Distribution& d) {
  if (std::string why = check_partition(d); !why.empty()) return "list I/O needs a partition of x: " + why;
  return "";
}

void write_pieces(Process& p, const Datatype& dt, std::int64_t element_size, int batch, LocalData local) {
  for_each_batch(
      p, dt, element_size, batch, [&](std::span<const Extent> regions, Offset first, Offset bytes) {
        p.write_list(regions,
                     local.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(bytes)));
      });
}

void read_pieces(Process& p, const Datatype& dt, std::int64_t element_size, int batch,
                 std::span<std::byte> out) {
  for_each_batch(
      p, dt, element_size, batch, [&](std::span<const Extent> regions, Offset first, Offset bytes) {
        p.read_list(regions, out.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(bytes)));
      });
}

void run_write(Process& p, const TechniqueInput& in, LocalData local) {
  check_input(p, in, local.size(), "list-io");
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("write");
    write_pieces(p, dt, in.element_size, in.hints.listio_batch, local);
  }
}

void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out) {
  check_input(p, in, out.size(), "list-io");
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("read");
    read_pieces(p, dt, in.element_size, in.hints.listio_batch, out);
  }
}

}  // namespace ciosim::list_io
