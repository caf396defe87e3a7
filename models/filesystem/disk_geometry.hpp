// Where a disk's head is and what moving it costs: the positioning model of the file systems' disks
// (PVFS I/O servers, the NFS server, a node's own disk). Pure C++, so that the closed forms the tests and
// docs use are the code the simulation runs (models/filesystem/disk_sim.cpp).
//
// After Ruemmler and Wilkes, "An Introduction to Disk Drive Modeling" (IEEE Computer 27(3), 1994): a
// request's service time is its positioning (a seek whose time grows with the square root of the distance
// for the short seeks a file's data needs, plus the rotational latency) followed by the transfer at the
// media rate. The model keeps what decides collective I/O's locality effects and drops the rest:
//  - a request that starts where the previous one ended costs no positioning (the head is there, the
//    platter streams on);
//  - a short forward skip (less than one track's bytes) costs the time the skipped bytes take to pass
//    under the head, or a seek and half a revolution if that is shorter;
//  - any other request costs seek(distance) + half a revolution (the mean rotational latency; the model is
//    deterministic, so it charges the mean, not a random angle);
//  - seek(d) = track + (full - track) * sqrt(d / capacity) for 0 < d <= capacity: the track-to-track value
//    (settle included) for the shortest seek, the full-stroke value across the whole disk;
//  - positions are byte offsets in the file's data on that disk (a PVFS server's local file, the NFS
//    server's file, the node's file), laid out contiguously from offset 0, where the head starts.
// A geometry whose values are all 0 is a disk without position: a bandwidth shared by whatever requests
// run at once, the model before positions existed.
#pragma once

#include <cstdint>
#include <string>

namespace ciosim::filesystem {

struct DiskGeometry {
  double rpm = 0;             ///< spindle speed, revolutions per minute (0: no rotational latency)
  double seek_track_s = 0;    ///< track-to-track seek, settle included, s
  double seek_full_s = 0;     ///< full-stroke seek, s
  double capacity_bytes = 0;  ///< the span a full-stroke seek crosses, bytes

  /// Whether the disk has a head to move (any value above 0).
  [[nodiscard]] bool positioned() const { return rpm > 0 || seek_track_s > 0 || seek_full_s > 0; }
  /// One revolution, s (0 without rpm).
  [[nodiscard]] double revolution_s() const { return rpm > 0 ? 60.0 / rpm : 0.0; }
  /// The seek across `distance` bytes, s: 0 for 0.
  [[nodiscard]] double seek_s(double distance) const;
  /// Positioning before a request at `position` when the head is at `head`, for data moving at
  /// `media_Bps` (the disk's sequential bandwidth in the request's direction), s.
  [[nodiscard]] double positioning_s(std::int64_t head, std::int64_t position, double media_Bps) const;
  /// The mean of seek_s over two independent uniform positions on the disk: track + 8/15 (full - track),
  /// what a datasheet calls the average seek.
  [[nodiscard]] double average_seek_s() const;
  /// "" when the values describe a disk (or none), else what is wrong, naming the keys under `prefix`
  /// ("pvfs.disk_").
  [[nodiscard]] std::string problem(const std::string& prefix) const;
};

}  // namespace ciosim::filesystem
