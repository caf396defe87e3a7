// Offset-length access lists (ROMIO's ADIOI_Calc_my_off_len, ad_read_coll.c; docs/two-phase.md).
#include "algorithms/common/access_list.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace ciosim {

std::int64_t storage_piece_count(const Datatype& dt, std::int64_t element_size) {
  std::int64_t n = 0;
  for_each_storage_piece(dt, element_size, [&](Offset, Offset) { ++n; });
  return n;
}

AccessList file_access(const Datatype& dt, std::int64_t element_size) {
  if (element_size <= 0)
    throw std::invalid_argument("access list: element size must be positive (got " +
                                std::to_string(element_size) + ")");
  AccessList a;
  bool monotone = true;
  for_each_storage_piece(dt, element_size, [&](Offset off, Offset len) {
    if (!a.offsets.empty() && off < a.offsets.back() + a.lens.back()) monotone = false;
    a.offsets.push_back(off);
    a.lens.push_back(len);
    a.bytes += len;
  });
  if (a.offsets.empty()) return a;  // start 0, end -1: ROMIO's empty access at displacement 0
  if (!monotone) {
    // Memory order is storage order; sort the pieces by file offset and keep where each one lives.
    const std::size_t n = a.offsets.size();
    std::vector<Offset> mem(n);
    Offset pos = 0;
    for (std::size_t i = 0; i < n; ++i) {
      mem[i] = pos;
      pos += a.lens[i];
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return a.offsets[x] < a.offsets[y]; });
    AccessList s;
    s.bytes = a.bytes;
    for (std::size_t k : order) {
      if (!s.offsets.empty()) {
        const Offset prev_end = s.offsets.back() + s.lens.back();
        if (a.offsets[k] < prev_end)
          throw std::invalid_argument("access list: two entries overlap in the file at byte " +
                                      std::to_string(a.offsets[k]));
        if (a.offsets[k] == prev_end && s.mem.back() + s.lens.back() == mem[k]) {
          s.lens.back() += a.lens[k];
          continue;
        }
      }
      s.offsets.push_back(a.offsets[k]);
      s.lens.push_back(a.lens[k]);
      s.mem.push_back(mem[k]);
    }
    // Sorted pieces that turn out to follow memory order need no memory offsets.
    bool in_order = true;
    Offset expect = 0;
    for (std::size_t i = 0; i < s.offsets.size() && in_order; ++i) {
      in_order = s.mem[i] == expect;
      expect += s.lens[i];
    }
    if (in_order) s.mem.clear();
    a = std::move(s);
  }
  a.start = a.offsets.front();
  a.end = a.offsets.back() + a.lens.back() - 1;
  return a;
}

}  // namespace ciosim
