// File access of the simulated Process: every call goes to the PVFS model.
#include "sim/pvfs_sim.hpp"
#include "sim/sim_process.hpp"

namespace ciosim::sim {

void SimProcess::do_file_open(const std::string&) {
  pvfs_open(world_, rank_);
}
void SimProcess::do_file_close() {
  pvfs_close(world_, rank_);
}

void SimProcess::do_write_at(Offset offset, std::span<const std::byte> data) {
  const Extent e{offset, static_cast<Offset>(data.size())};
  pvfs_write(world_, rank_, std::span(&e, 1), data);
}

void SimProcess::do_read_at(Offset offset, std::span<std::byte> data) {
  const Extent e{offset, static_cast<Offset>(data.size())};
  pvfs_read(world_, rank_, std::span(&e, 1), data);
}

void SimProcess::do_write_list(std::span<const Extent> regions, std::span<const std::byte> data) {
  pvfs_write(world_, rank_, regions, data);
}

void SimProcess::do_read_list(std::span<const Extent> regions, std::span<std::byte> data) {
  pvfs_read(world_, rank_, regions, data);
}

// The model has no server write-back cache: data is on disk when a write returns, so sync has nothing
// to flush.
void SimProcess::do_file_sync() {}

}  // namespace ciosim::sim
