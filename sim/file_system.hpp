// The platform's file system model, chosen by its [filesystem] kind (models/filesystem/kinds.hpp).
#pragma once

#include <memory>

#include "config/run_spec.hpp"
#include "models/filesystem/file_system_sim.hpp"

namespace ciosim::sim {

/// The model of platform.filesystem, serving `file`. `platform` must outlive it.
std::unique_ptr<filesystem::FileSystemSim> make_file_system(const PlatformSpec& platform,
                                                            filesystem::FileStore& file);

}  // namespace ciosim::sim
