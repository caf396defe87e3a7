// The file-system seam: every file call of the simulated Process (sim/sim_file.cpp) reaches one
// FileSystemSim, chosen by the platform file's [filesystem] kind (sim/file_system.cpp). A file system
// adds its own hosts and disks while the platform is built, starts its server actors, and serves the
// client calls inside the calling rank's actor. Implementations: models/pvfs/pvfs_sim.cpp,
// models/nfs/nfs_sim.cpp, models/local/local_sim.cpp.
#pragma once

#include <cstddef>
#include <functional>
#include <simgrid/s4u.hpp>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/process.hpp"
#include "models/filesystem/file_store.hpp"

namespace ciosim::filesystem {

namespace sg4 = simgrid::s4u;

/// What the platform builder offers a file system while the platform is being built.
struct PlatformHooks {
  /// Creates a server host reached over the I/O network (a NIC with the I/O profile) and returns it.
  std::function<sg4::Host*(const std::string& name)> add_server;
  /// The compute nodes' hosts, node 0 first.
  std::vector<sg4::Host*> nodes;
};

class FileSystemSim {
 public:
  explicit FileSystemSim(FileStore& file) : file_(file) {}
  virtual ~FileSystemSim() = default;
  FileSystemSim(const FileSystemSim&) = delete;
  FileSystemSim& operator=(const FileSystemSim&) = delete;

  /// Adds the file system's hosts and disks; called once, before the routes are built.
  virtual void build(const PlatformHooks& platform) = 0;
  /// Starts its server actors (if any); called once, after the platform is sealed.
  virtual void start() {}

  // Client side, called from rank `rank`'s actor on its node's host; each returns when the operation is
  // complete as the file system defines completion (e.g. data on disk, or in the server's memory).
  virtual void open(int rank) = 0;
  virtual void close(int rank) = 0;
  virtual void write(int rank, std::span<const Extent> regions, std::span<const std::byte> data) = 0;
  virtual void read(int rank, std::span<const Extent> regions, std::span<std::byte> data) = 0;
  virtual void sync(int rank) = 0;

 protected:
  FileStore& file() { return file_; }

 private:
  FileStore& file_;
};

}  // namespace ciosim::filesystem
