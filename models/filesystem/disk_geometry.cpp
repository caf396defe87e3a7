// The disk positioning model; see disk_geometry.hpp.
#include "models/filesystem/disk_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ciosim::filesystem {

namespace {
std::string num(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}
}  // namespace

double DiskGeometry::seek_s(double distance) const {
  if (distance <= 0) return 0.0;
  const double frac = capacity_bytes > 0 ? std::min(1.0, distance / capacity_bytes) : 1.0;
  return seek_track_s + (seek_full_s - seek_track_s) * std::sqrt(frac);
}

double DiskGeometry::positioning_s(std::int64_t head, std::int64_t position, double media_Bps) const {
  if (!positioned() || position == head) return 0.0;
  const double distance = std::abs(static_cast<double>(position) - static_cast<double>(head));
  const double reposition = seek_s(distance) + revolution_s() / 2;
  const double track_bytes = media_Bps * revolution_s();
  if (position > head && distance < track_bytes) return std::min(distance / media_Bps, reposition);
  return reposition;
}

double DiskGeometry::average_seek_s() const {
  // E[sqrt|X - Y|] for X, Y uniform on [0, 1] is the integral of 2 (1 - u) sqrt(u) over [0, 1] = 8/15.
  return seek_track_s + (seek_full_s - seek_track_s) * 8.0 / 15.0;
}

std::string DiskGeometry::problem(const std::string& prefix) const {
  if (!positioned()) {
    if (capacity_bytes > 0)
      return prefix + "capacity_bytes is set but " + prefix + "rpm, " + prefix + "seek_track_s and " +
             prefix + "seek_full_s are 0 (a disk without position); set them or leave the capacity 0";
    return "";
  }
  if (seek_full_s < seek_track_s)
    return prefix + "seek_full_s (" + num(seek_full_s) + " s) must be at least " + prefix + "seek_track_s (" +
           num(seek_track_s) + " s): a full-stroke seek crosses every track";
  if (capacity_bytes <= 0)
    return prefix + "capacity_bytes must be > 0 for a disk with position (" + prefix +
           "rpm or a seek time is set): the seek curve spans it";
  return "";
}

}  // namespace ciosim::filesystem
