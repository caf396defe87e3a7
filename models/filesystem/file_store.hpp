// The bytes of the simulated shared file, kept so that every run can be verified and exported.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/payload.hpp"
#include "algorithms/common/process.hpp"

namespace ciosim::filesystem {

class FileStore {
 public:
  /// An elided store (run.payload = elided) keeps which source bytes each range holds
  /// (algorithms/common/payload.hpp) instead of bytes; it takes and gives elided buffers only. Set before
  /// the first write.
  void set_elided(bool on) { elided_ = on; }
  bool elided() const { return elided_; }
  /// Stores data at offset, growing the file (holes read as zero bytes).
  void write(Offset offset, std::span<const std::byte> data);
  /// An elided store's write of `pieces` at offset (laying a file out before a run).
  void write_pieces(Offset offset, std::span<const payload::Piece> pieces);
  /// Reads; bytes past the end read as zero.
  void read(Offset offset, std::span<std::byte> out) const;
  Offset size() const { return elided_ ? elided_size_ : static_cast<Offset>(bytes_.size()); }
  /// The bytes (throws std::logic_error on an elided store).
  const std::vector<std::byte>& bytes() const;
  /// What an elided store holds, as pieces of [0, size()) (unwritten ranges: kUndefined).
  std::vector<payload::Piece> pieces() const;
  /// Writes the file to `path` (through a temporary file renamed into place). Throws on failure.
  void export_to(const std::string& path) const;

 private:
  std::vector<std::byte> bytes_;
  bool elided_ = false;
  payload::PieceMap pieces_;
  Offset elided_size_ = 0;
};

}  // namespace ciosim::filesystem
