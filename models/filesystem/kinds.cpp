#include "models/filesystem/kinds.hpp"

#include <stdexcept>

namespace ciosim::filesystem {

const std::vector<KindInfo>& kinds() {
  static const std::vector<KindInfo> k = {
      {Kind::Pvfs, "pvfs",
       "PVFS-style parallel file system: a metadata server and io_servers I/O servers with a disk each, "
       "files striped round-robin ([pvfs] table)"},
  };
  return k;
}

Kind kind_of(std::string_view name) {
  for (const KindInfo& k : kinds())
    if (k.name == name) return k.kind;
  throw std::invalid_argument("unknown file system '" + std::string(name) + "'; valid: " + kind_names());
}

std::string kind_names() {
  std::string out;
  for (const KindInfo& k : kinds()) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

}  // namespace ciosim::filesystem
