// File access of the simulated Process: every call goes to the platform's file system through the
// file-system seam (models/filesystem/file_system_sim.hpp).
#include "sim/sim_process.hpp"

namespace ciosim::sim {

void SimProcess::do_file_open(const std::string&) {
  const Activity a(*this, config::Use::FileSystem, "file_open");
  world_.fs->open(rank_);
}
void SimProcess::do_file_close() {
  // The MPI-IO library's own barrier before it closes (platform key filesystem.close = "barrier"): a rank
  // that finished early waits there for the slowest. Not counted as a call of the technique: the library
  // makes it, inside MPI_File_close.
  if (world_.spec->platform.close == "barrier") do_barrier();
  const Activity a(*this, config::Use::FileSystem, "file_close");
  world_.fs->close(rank_);
}

void SimProcess::do_write_at(Offset offset, std::span<const std::byte> data) {
  const Activity a(*this, config::Use::FileSystem, "write_at", static_cast<std::int64_t>(data.size()));
  const Extent e{offset, static_cast<Offset>(data.size())};
  world_.fs->write(rank_, std::span(&e, 1), data);
}

void SimProcess::do_read_at(Offset offset, std::span<std::byte> data) {
  const Activity a(*this, config::Use::FileSystem, "read_at", static_cast<std::int64_t>(data.size()));
  const Extent e{offset, static_cast<Offset>(data.size())};
  world_.fs->read(rank_, std::span(&e, 1), data);
}

void SimProcess::do_write_list(std::span<const Extent> regions, std::span<const std::byte> data) {
  const Activity a(*this, config::Use::FileSystem, "write_list", static_cast<std::int64_t>(data.size()));
  world_.fs->write(rank_, regions, data);
}

void SimProcess::do_read_list(std::span<const Extent> regions, std::span<std::byte> data) {
  const Activity a(*this, config::Use::FileSystem, "read_list", static_cast<std::int64_t>(data.size()));
  world_.fs->read(rank_, regions, data);
}

void SimProcess::do_file_sync() {
  const Activity a(*this, config::Use::FileSystem, "file_sync");
  world_.fs->sync(rank_);
}

}  // namespace ciosim::sim
