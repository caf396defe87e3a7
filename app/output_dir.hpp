// All-or-nothing output directories: files are written into a temporary directory next to the target,
// which is renamed into place at the end. A previous ciosim output directory at the target is replaced
// only once the new one is complete; any other existing path is refused.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ciosim::app {

/// Throws config::ConfigError when `dir` exists and is not replaceable: not a directory, or a non-empty
/// directory without a results.json (so not a ciosim output directory).
void check_output_dir(const std::filesystem::path& dir);

/// Writes `files` (name, content) as `dir`/name, atomically as described above. Throws
/// std::runtime_error (one line) on I/O failure, leaving nothing behind.
void write_output_dir(const std::filesystem::path& dir,
                      const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace ciosim::app
