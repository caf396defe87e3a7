#include "models/filesystem/file_store.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace ciosim::filesystem {

void FileStore::write(Offset offset, std::span<const std::byte> data) {
  if (offset < 0) throw std::invalid_argument("negative file offset");
  const auto end = static_cast<std::size_t>(offset) + data.size();
  if (end > bytes_.size()) bytes_.resize(end);
  if (!data.empty()) std::memcpy(bytes_.data() + offset, data.data(), data.size());
}

void FileStore::read(Offset offset, std::span<std::byte> out) const {
  if (offset < 0) throw std::invalid_argument("negative file offset");
  std::fill(out.begin(), out.end(), std::byte{0});
  if (static_cast<std::size_t>(offset) >= bytes_.size()) return;
  const std::size_t n = std::min(out.size(), bytes_.size() - static_cast<std::size_t>(offset));
  std::memcpy(out.data(), bytes_.data() + offset, n);
}

void FileStore::export_to(const std::string& path) const {
  const std::string tmp = path + ".partial";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write '" + tmp + "'");
    f.write(reinterpret_cast<const char*>(bytes_.data()), static_cast<std::streamsize>(bytes_.size()));
    if (!f) throw std::runtime_error("cannot write '" + tmp + "'");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename to '" + path + "'");
}

}  // namespace ciosim::filesystem
