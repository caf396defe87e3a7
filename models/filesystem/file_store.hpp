// The bytes of the simulated shared file, kept so that every run can be verified and exported.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/payload.hpp"
#include "algorithms/common/process.hpp"

namespace ciosim::filesystem {

/// One range of a scattered write or read: `length` bytes at `file_offset` in the file and at
/// `data_offset` in the caller's buffer.
struct Placement {
  Offset file_offset = 0;
  Offset data_offset = 0;
  Offset length = 0;
};

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
  /// write or read of every placement in order, between the file and `data` (a server's chunk of a list
  /// request). The same as one call per placement; an elided store takes the pieces of consecutive data
  /// ranges at once and walks its map from range to range.
  void write_ranges(std::span<const Placement> ps, const std::byte* data);
  void read_ranges(std::span<const Placement> ps, std::byte* data) const;
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
