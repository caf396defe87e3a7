// Datatypes held as strided segments (strided_datatype.hpp). pack and unpack by them are in datatype.cpp,
// beside the Datatype versions they share their loop with.
#include "algorithms/common/strided_datatype.hpp"

#include <stdexcept>
#include <string>

namespace ciosim {

StridedDatatype::StridedDatatype() : d_(std::make_shared<const Data>()) {}

StridedDatatype::StridedDatatype(const Datatype& dt) {
  check_datatype_range(dt);
  Builder b;
  for (const Tuple& t : dt.tuples) b.append(t.offset, t.length);
  *this = b.finish(dt.count, dt.stride);
}

// ---- Builder

void StridedDatatype::Builder::append(std::int64_t offset, std::int64_t length) {
  if (length < 0) throw std::invalid_argument("datatype: negative tuple length " + std::to_string(length));
  Data& d = *d_;
  if (!d.segs.empty()) {
    Segment& s = d.segs.back();
    // The tuple continues the progression (offsets far apart enough to overflow never do: a new segment).
    std::int64_t step = 0;
    std::int64_t at = 0;
    const bool continues = s.length == length &&
                           (s.tuples == 1 ? !__builtin_sub_overflow(offset, s.offset, &step)
                                          : !__builtin_mul_overflow(s.tuples, s.step, &at) &&
                                                !__builtin_add_overflow(s.offset, at, &at) && at == offset);
    if (continues) {
      if (s.tuples == 1) s.step = step;
      ++s.tuples;
      ++d.tuples;
      add_entries(length, 1);
      return;
    }
  }
  d.segs.push_back(Segment{offset, length, 0, 1, d.replica});
  ++d.tuples;
  add_entries(length, 1);
}

void StridedDatatype::Builder::add_entries(std::int64_t length, std::int64_t n) {
  std::int64_t add = 0;
  if (__builtin_mul_overflow(length, n, &add) || __builtin_add_overflow(d_->replica, add, &d_->replica))
    throw std::invalid_argument("datatype: the entry count overflows int64 (" + std::to_string(d_->tuples) +
                                " tuples)");
}

namespace {

/// The offset of a progression's last tuple, which bounds the others'.
std::int64_t last_offset(std::int64_t offset, std::int64_t step, std::int64_t n) {
  std::int64_t last = 0;
  if (__builtin_mul_overflow(n - 1, step, &last) || __builtin_add_overflow(offset, last, &last))
    throw std::invalid_argument("datatype: a progression's offsets overflow int64 (offset " +
                                std::to_string(offset) + ", step " + std::to_string(step) + ", " +
                                std::to_string(n) + " tuples)");
  return last;
}

}  // namespace

void StridedDatatype::Builder::append(std::int64_t offset, std::int64_t length, std::int64_t step,
                                      std::int64_t n) {
  if (n <= 0) return;
  last_offset(offset, step, n);
  // One tuple at a time until the last segment is this progression's (at most three: one may extend the
  // previous segment, which then ends; one starts a segment; the next sets its step), then the rest at once.
  while (n > 0) {
    append(offset, length);
    --n;
    Segment& s = d_->segs.back();
    if (n > 0 && s.tuples >= 2 && s.step == step) {
      s.tuples += n;
      d_->tuples += n;
      add_entries(length, n);
      return;
    }
    offset += step;
  }
}

void StridedDatatype::Builder::join(std::int64_t offset, std::int64_t length, std::int64_t step,
                                    std::int64_t n) {
  if (length <= 0 || n <= 0) return;
  auto extend = [&](std::int64_t off, std::int64_t len) {
    if (has_open_ && open_.offset + open_.length == off) {
      open_.length += len;
      return;
    }
    if (has_open_) append(open_.offset, open_.length);
    open_ = Tuple{off, len};
    has_open_ = true;
  };
  const std::int64_t last = last_offset(offset, step, n);
  if (step == length) {  // one run
    extend(offset, last + length - offset);
    return;
  }
  // Otherwise no tuple of the progression starts where the previous one ends: the first may extend the open
  // run, the last stays open, those between are runs of their own.
  extend(offset, length);
  if (n == 1) return;
  append(open_.offset, open_.length);
  append(offset + step, length, step, n - 2);
  open_ = Tuple{last, length};
}

StridedDatatype StridedDatatype::Builder::finish(std::int64_t count, std::int64_t stride) {
  if (has_open_) append(open_.offset, open_.length);
  has_open_ = false;
  Data& d = *d_;
  d.count = count;
  d.stride = stride;
  // check_datatype_range's checks (the entry count was checked as it grew; the ends of each segment's first
  // and last tuples bound the others').
  if (count < 0) throw std::invalid_argument("datatype: negative replica count " + std::to_string(count));
  std::int64_t shift = 0;  // the last replica's displacement
  std::int64_t all = 0;
  if ((count > 1 && __builtin_mul_overflow(count - 1, stride, &shift)) ||
      __builtin_mul_overflow(d.replica, count, &all))
    throw std::invalid_argument("datatype: the replicas overflow int64 (count " + std::to_string(count) +
                                ", stride " + std::to_string(stride) + ", " + std::to_string(d.replica) +
                                " entries a replica)");
  for (const Segment& s : d.segs)
    for (const std::int64_t off : {s.offset, s.offset + (s.tuples - 1) * s.step}) {
      std::int64_t end = 0;
      if (__builtin_add_overflow(off, s.length, &end) || __builtin_add_overflow(end, shift, &end))
        throw std::invalid_argument("datatype: a tuple's end overflows int64 (offset " + std::to_string(off) +
                                    ", length " + std::to_string(s.length) + ", last replica's shift " +
                                    std::to_string(shift) + ")");
    }
  d.segs.shrink_to_fit();
  StridedDatatype out;
  out.d_ = std::move(d_);
  d_ = std::make_shared<Data>();
  return out;
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
