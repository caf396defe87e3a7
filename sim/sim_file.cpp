// File access of the simulated Process: every call goes to the platform's file system through the
// file-system seam (models/filesystem/file_system_sim.hpp).
#include "sim/sim_process.hpp"

namespace ciosim::sim {

void SimProcess::do_file_open(const std::string&) {
  world_.fs->open(rank_);
}
void SimProcess::do_file_close() {
  world_.fs->close(rank_);
}

void SimProcess::do_write_at(Offset offset, std::span<const std::byte> data) {
  const Extent e{offset, static_cast<Offset>(data.size())};
  world_.fs->write(rank_, std::span(&e, 1), data);
}

void SimProcess::do_read_at(Offset offset, std::span<std::byte> data) {
  const Extent e{offset, static_cast<Offset>(data.size())};
  world_.fs->read(rank_, std::span(&e, 1), data);
}

void SimProcess::do_write_list(std::span<const Extent> regions, std::span<const std::byte> data) {
  world_.fs->write(rank_, regions, data);
}

void SimProcess::do_read_list(std::span<const Extent> regions, std::span<std::byte> data) {
  world_.fs->read(rank_, regions, data);
}

void SimProcess::do_file_sync() {
  world_.fs->sync(rank_);
}

}  // namespace ciosim::sim
