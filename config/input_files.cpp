#include "config/input_files.hpp"

#include <stdexcept>

namespace ciosim::config {

namespace fs = std::filesystem;

std::string not_a_file(const std::string& what, const fs::path& path, const std::string& give) {
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
    case fs::file_type::regular:  // for a path that must be something else (a directory)
      kind = "a regular file";
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
  return head + " is " + kind + "; give " + give;
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
