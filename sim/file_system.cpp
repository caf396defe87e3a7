#include "sim/file_system.hpp"

#include <stdexcept>

#include "models/filesystem/kinds.hpp"
#include "models/local/local_sim.hpp"
#include "models/nfs/nfs_sim.hpp"
#include "models/pvfs/pvfs_sim.hpp"

namespace ciosim::sim {

std::unique_ptr<filesystem::FileSystemSim> make_file_system(const PlatformSpec& platform,
                                                            filesystem::FileStore& file) {
  switch (filesystem::kind_of(platform.filesystem)) {
    case filesystem::Kind::Pvfs:
      return std::make_unique<pvfs::PvfsSim>(platform.pvfs, file);
    case filesystem::Kind::Nfs:
      return std::make_unique<nfs::NfsSim>(platform.nfs, file);
    case filesystem::Kind::Local:
      return std::make_unique<local::LocalDiskSim>(platform.local, file);
  }
  throw std::logic_error("no model for file system " + platform.filesystem);
}

}  // namespace ciosim::sim
