// Datatypes held as strided segments (strided_datatype.hpp). pack and unpack by them are in datatype.cpp,
// beside the Datatype versions they share their loop with.
#include "algorithms/common/strided_datatype.hpp"

#include <stdexcept>
#include <string>

namespace ciosim {

StridedDatatype::StridedDatatype() : d_(std::make_shared<const Data>()) {}

StridedDatatype::StridedDatatype(const Datatype& dt) {
  check_datatype_range(dt);
  auto d = std::make_shared<Data>();
  d->count = dt.count;
  d->stride = dt.stride;
  d->tuples = static_cast<std::int64_t>(dt.tuples.size());
  std::int64_t entries = 0;
  for (const Tuple& t : dt.tuples) {
    if (!d->segs.empty()) {
      Segment& s = d->segs.back();
      // t continues the progression (offsets far apart enough to overflow never do: a new segment).
      std::int64_t step = 0;
      std::int64_t at = 0;
      const bool continues =
          s.length == t.length &&
          (s.tuples == 1 ? !__builtin_sub_overflow(t.offset, s.offset, &step)
                         : !__builtin_mul_overflow(s.tuples, s.step, &at) &&
                               !__builtin_add_overflow(s.offset, at, &at) && at == t.offset);
      if (continues) {
        if (s.tuples == 1) s.step = step;
        ++s.tuples;
        entries += t.length;
        continue;
      }
    }
    d->segs.push_back(Segment{t.offset, t.length, 0, 1, entries});
    entries += t.length;
  }
  d->segs.shrink_to_fit();
  d->replica = entries;
  d_ = std::move(d);
}

Datatype StridedDatatype::datatype() const {
  Datatype dt;
  dt.count = d_->count;
  dt.stride = d_->stride;
  dt.tuples.reserve(static_cast<std::size_t>(d_->tuples));
  for_tuples([&](std::int64_t off, std::int64_t len) { dt.tuples.push_back(Tuple{off, len}); });
  return dt;
}

std::size_t StridedDatatype::segment_at(std::int64_t within) const {
  const std::vector<Segment>& segs = d_->segs;
  const auto it = std::upper_bound(segs.begin(), segs.end(), within,
                                   [](std::int64_t w, const Segment& s) { return w < s.first; });
  return static_cast<std::size_t>(it - segs.begin() - 1);
}

std::int64_t StridedDatatype::map(std::int64_t k) const {
  if (k < 0 || k >= size()) throw_range_error(k, 1);
  const std::int64_t within = k % d_->replica;
  const Segment& s = d_->segs[segment_at(within)];
  const std::int64_t in_seg = within - s.first;
  return s.offset + (in_seg / s.length) * s.step + in_seg % s.length + (k / d_->replica) * d_->stride;
}

bool StridedDatatype::operator==(const StridedDatatype& o) const {
  if (d_ == o.d_) return true;
  if (count() != o.count() || stride() != o.stride() || d_->segs.size() != o.d_->segs.size()) return false;
  for (std::size_t i = 0; i < d_->segs.size(); ++i) {
    const Segment& a = d_->segs[i];
    const Segment& b = o.d_->segs[i];
    // A segment of one tuple has no step (the first tuple of a compression sets it).
    if (a.offset != b.offset || a.length != b.length || a.tuples != b.tuples ||
        (a.tuples > 1 && a.step != b.step))
      return false;
  }
  return true;
}

void StridedDatatype::throw_range_error(std::int64_t first, std::int64_t n) const {
  throw std::out_of_range("datatype: entries [" + std::to_string(first) + ", " + std::to_string(first + n) +
                          ") outside [0, " + std::to_string(size()) + ")");
}

}  // namespace ciosim
