// The bytes of the simulated shared file, kept so that every run can be verified and exported.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/process.hpp"

namespace ciosim::filesystem {

class FileStore {
 public:
  /// Stores data at offset, growing the file (holes read as zero bytes).
  void write(Offset offset, std::span<const std::byte> data);
  /// Reads; bytes past the end read as zero.
  void read(Offset offset, std::span<std::byte> out) const;
  Offset size() const { return static_cast<Offset>(bytes_.size()); }
  const std::vector<std::byte>& bytes() const { return bytes_; }
  /// Writes the file to `path` (through a temporary file renamed into place). Throws on failure.
  void export_to(const std::string& path) const;

 private:
  std::vector<std::byte> bytes_;
};

}  // namespace ciosim::filesystem
