#include "models/filesystem/file_store.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace ciosim::filesystem {

namespace {

/// Throws std::logic_error unless `data` (not empty) is elided exactly when the store is.
void check_mode(bool store_elided, std::span<const std::byte> data, bool writing) {
  if (store_elided == payload::is_elided(data)) return;
  if (writing)
    throw std::logic_error(store_elided ? "the elided file store was given real bytes to write"
                                        : "an elided buffer written to a file store of bytes");
  throw std::logic_error(store_elided ? "the elided file store was read into real bytes"
                                      : "a file store of bytes read into an elided buffer");
}

/// Holes of the file (never written) read as zero bytes.
void holes_as_zeros(std::span<payload::Piece> ps) {
  for (payload::Piece& p : ps)
    if (p.source == payload::kUndefined) p.source = payload::kZero;
}

/// Calls fn(first, last) for each maximal run ps[first..last) of placements whose data ranges follow
/// each other in the buffer.
template <class Fn>
void for_data_runs(std::span<const Placement> ps, Fn&& fn) {
  std::size_t first = 0;
  for (std::size_t k = 1; k <= ps.size(); ++k)
    if (k == ps.size() || ps[k].data_offset != ps[k - 1].data_offset + ps[k - 1].length) {
      fn(first, k);
      first = k;
    }
}

/// The placements' data as one span (ps[first..last) are consecutive in the buffer).
template <class Byte>
std::span<Byte> data_of(std::span<const Placement> ps, std::size_t first, std::size_t last, Byte* data) {
  const Offset n = ps[last - 1].data_offset + ps[last - 1].length - ps[first].data_offset;
  return {data + ps[first].data_offset, static_cast<std::size_t>(n)};
}

bool elided_data(std::span<const Placement> ps, const std::byte* data) {
  for (const Placement& p : ps)
    if (p.length > 0) return payload::is_elided(data + p.data_offset);
  return false;
}

}  // namespace

void FileStore::write(Offset offset, std::span<const std::byte> data) {
  if (offset < 0) throw std::invalid_argument("negative file offset");
  if (elided_ || payload::is_elided(data)) {
    if (data.empty()) return;
    check_mode(elided_, data, true);
    write_pieces(offset, payload::pieces(data));
    return;
  }
  const auto end = static_cast<std::size_t>(offset) + data.size();
  if (end > bytes_.size()) bytes_.resize(end);
  if (!data.empty()) std::memcpy(bytes_.data() + offset, data.data(), data.size());
}

void FileStore::write_pieces(Offset offset, std::span<const payload::Piece> ps) {
  if (!elided_) throw std::logic_error("pieces written to a file store of bytes");
  if (offset < 0) throw std::invalid_argument("negative file offset");
  pieces_.assign(offset, ps);
  const Offset n = payload::length_of(ps);
  if (n > 0) elided_size_ = std::max(elided_size_, offset + n);
}

void FileStore::read(Offset offset, std::span<std::byte> out) const {
  if (offset < 0) throw std::invalid_argument("negative file offset");
  if (elided_ || payload::is_elided(std::span<const std::byte>(out))) {
    if (out.empty()) return;
    check_mode(elided_, out, false);
    std::vector<payload::Piece> ps = pieces_.extract(offset, static_cast<std::int64_t>(out.size()));
    holes_as_zeros(ps);
    payload::assign(out, ps);
    return;
  }
  std::fill(out.begin(), out.end(), std::byte{0});
  if (static_cast<std::size_t>(offset) >= bytes_.size()) return;
  const std::size_t n = std::min(out.size(), bytes_.size() - static_cast<std::size_t>(offset));
  std::memcpy(out.data(), bytes_.data() + offset, n);
}

void FileStore::write_ranges(std::span<const Placement> ps, const std::byte* data) {
  if (!elided_ && !elided_data(ps, data)) {
    for (const Placement& p : ps)
      write(p.file_offset, std::span(data + p.data_offset, static_cast<std::size_t>(p.length)));
    return;
  }
  thread_local std::vector<payload::Piece> pieces;
  thread_local std::vector<payload::Range> ranges;
  pieces.clear();
  ranges.clear();
  Offset end = 0;
  for (const Placement& p : ps) {
    if (p.file_offset < 0) throw std::invalid_argument("negative file offset");
    ranges.push_back(payload::Range{p.file_offset, p.length});
    if (p.length > 0) end = std::max(end, p.file_offset + p.length);
  }
  for_data_runs(ps, [&](std::size_t first, std::size_t last) {
    const std::span<const std::byte> run = data_of(ps, first, last, data);
    if (run.empty()) return;
    check_mode(elided_, run, true);
    payload::append_pieces(pieces, run);
  });
  pieces_.assign_ranges(ranges, pieces);
  elided_size_ = std::max(elided_size_, end);
}

void FileStore::read_ranges(std::span<const Placement> ps, std::byte* data) const {
  if (!elided_ && !elided_data(ps, data)) {
    for (const Placement& p : ps)
      read(p.file_offset, std::span(data + p.data_offset, static_cast<std::size_t>(p.length)));
    return;
  }
  thread_local std::vector<payload::Piece> pieces;
  thread_local std::vector<payload::Range> ranges;
  for_data_runs(ps, [&](std::size_t first, std::size_t last) {
    const std::span<std::byte> run = data_of(ps, first, last, data);
    if (run.empty()) return;
    check_mode(elided_, run, false);
    ranges.clear();
    for (std::size_t k = first; k < last; ++k) {
      if (ps[k].file_offset < 0) throw std::invalid_argument("negative file offset");
      ranges.push_back(payload::Range{ps[k].file_offset, ps[k].length});
    }
    pieces.clear();
    pieces_.extract_ranges(pieces, ranges);
    holes_as_zeros(pieces);
    payload::assign(run, pieces);
  });
}

const std::vector<std::byte>& FileStore::bytes() const {
  if (elided_) throw std::logic_error("the file store is elided (run.payload = elided): it keeps no bytes");
  return bytes_;
}

std::vector<payload::Piece> FileStore::pieces() const {
  if (!elided_) throw std::logic_error("the file store keeps bytes, not pieces");
  return pieces_.extract(0, elided_size_);
}

void FileStore::export_to(const std::string& path) const {
  if (elided_)
    throw std::invalid_argument(
        "run.export_file needs the file's bytes: it cannot be used with "
        "run.payload = elided");
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
