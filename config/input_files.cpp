#include "config/input_files.hpp"

namespace ciosim::config {

namespace fs = std::filesystem;

std::string not_a_file(const std::string& what, const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // through symbolic links: what they point at
  const std::string head = what + " " + path.string();
  std::string kind;
  switch (st.type()) {
    case fs::file_type::not_found:
    case fs::file_type::none:
      return fs::is_symlink(fs::symlink_status(path, ec)) ? head + " is a symbolic link to nothing"
                                                          : head + " not found";
    case fs::file_type::directory:
      kind = "a directory";
      break;
    case fs::file_type::fifo:
      kind = "a FIFO (named pipe)";
      break;
    case fs::file_type::socket:
      kind = "a socket";
      break;
    case fs::file_type::character:
    case fs::file_type::block:
      kind = "a device";
      break;
    default:
      kind = "not a regular file";
  }
  return head + " is " + kind + "; give a TOML file";
}

}  // namespace ciosim::config
