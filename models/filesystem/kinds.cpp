#include "models/filesystem/kinds.hpp"

#include <stdexcept>

namespace ciosim::filesystem {

const std::vector<KindInfo>& kinds() {
  static const std::vector<KindInfo> k = {
      {Kind::Pvfs, "pvfs",
       "PVFS-style parallel file system: a metadata server and io_servers I/O servers with a disk each, "
       "files striped round-robin ([pvfs] table)"},
      {Kind::Nfs, "nfs",
       "NFSv3: one server host with one disk on the I/O network; clients cut requests into rsize/wsize "
       "RPCs, sync or async commit ([nfs] table)"},
      {Kind::Local, "local",
       "a node's own disk, no network: the file lives on one node and only that node's ranks may read or "
       "write it ([local] table)"},
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

std::vector<std::string> kind_list() {
  std::vector<std::string> out;
  for (const KindInfo& k : kinds()) out.emplace_back(k.name);
  return out;
}

}  // namespace ciosim::filesystem
