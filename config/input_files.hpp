// Files a user names as input (scenarios, platforms, workload files): what is at the path when it is not a
// regular file, so that a directory, a FIFO or /dev/null is named for what it is, not "not found".
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace ciosim::config {

/// What `st` is, for a message: "a directory", "a regular file", "a symbolic link" (a symlink_status),
/// "a FIFO (named pipe)", "a socket", "a device", else "not a regular file".
std::string file_kind(const std::filesystem::file_status& st);

/// "scenario file X is a directory; give a TOML file" (a FIFO, a device, a socket, ...), or
/// "scenario file X not found" when nothing is there. `what` names the role ("scenario file").
std::string not_a_file(const std::string& what, const std::filesystem::path& path,
                       const std::string& give = "a TOML file");

/// The one door for an input file the user names: opens `path` for reading after checking, before reading a
/// byte, that it is a regular file (through symbolic links; a FIFO would block, a device like /dev/zero never
/// ends) and that it holds at most `max_bytes`. Throws std::invalid_argument with one line naming `what`,
/// the path and the problem ("... is a FIFO (named pipe); give <give>", "... is N bytes, more than the M
/// <why>").
std::ifstream open_input(const std::string& what, const std::filesystem::path& path, std::uintmax_t max_bytes,
                         const std::string& give, const std::string& why);

}  // namespace ciosim::config
