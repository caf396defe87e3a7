// Files a user names as input (scenarios, platforms, workload files): what is at the path when it is not a
// regular file, so that a directory, a FIFO or /dev/null is named for what it is, not "not found".
#pragma once

#include <filesystem>
#include <string>

namespace ciosim::config {

/// "scenario file X is a directory; give a TOML file" (a FIFO, a device, a socket, ...), or
/// "scenario file X not found" when nothing is there. `what` names the role ("scenario file").
std::string not_a_file(const std::string& what, const std::filesystem::path& path);

}  // namespace ciosim::config
