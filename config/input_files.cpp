#include "config/input_files.hpp"

#include <stdexcept>

namespace ciosim::config {

namespace fs = std::filesystem;

std::string file_kind(const fs::file_status& st) {
  switch (st.type()) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::regular:  // for a path that must be something else (a directory)
      return "a regular file";
    case fs::file_type::symlink:
      return "a symbolic link";
    case fs::file_type::fifo:
      return "a FIFO (named pipe)";
    case fs::file_type::socket:
      return "a socket";
    case fs::file_type::character:
    case fs::file_type::block:
      return "a device";
    default:
      return "not a regular file";
  }
}

std::string not_a_file(const std::string& what, const fs::path& path, const std::string& give) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // through symbolic links: what they point at
  const std::string head = what + " " + path.string();
  if (st.type() == fs::file_type::not_found || st.type() == fs::file_type::none)
    return fs::is_symlink(fs::symlink_status(path, ec)) ? head + " is a symbolic link to nothing"
                                                        : head + " not found";
  return head + " is " + file_kind(st) + "; give " + give;
}

std::ifstream open_input(const std::string& what, const fs::path& path, std::uintmax_t max_bytes,
                         const std::string& give, const std::string& why) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw std::invalid_argument(not_a_file(what, path, give));
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw std::invalid_argument(what + " " + path.string() + " cannot be read: " + ec.message());
  if (size > max_bytes)
    throw std::invalid_argument(what + " " + path.string() + " is " + std::to_string(size) +
                                " bytes, more than the " + std::to_string(max_bytes) + " " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(what + " " + path.string() + " cannot be read");
  return in;
}

}  // namespace ciosim::config
