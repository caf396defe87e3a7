// A file system's disk in the simulation: the SimGrid disk that moves the bytes, and, when the platform
// gives the disk a geometry (models/filesystem/disk_geometry.hpp), the head that must be moved first.
//
// Without a geometry every operation runs at once and concurrent ones share the disk's bandwidth (SimGrid's
// max-min sharing), the model before positions existed. With one, the head serves one operation at a
// time: an operation that finds it busy waits in the disk's queue, and each time the head is free it goes
// to the waiting operation whose position comes next in the direction the head sweeps (C-LOOK: the lowest
// position at or after the head, else the lowest of all; equal positions in arrival order), as Linux's
// elevators order a device's queue. The queue holds what the file system has outstanding at the disk at
// once (a PVFS server's max_outstanding, the NFS server's threads, the ranks of the disk's node): no
// further bound applies. The operation then pays its positioning (seek and rotation, or a skip) and its
// transfer at the full media rate.
#pragma once

#include <cstdint>
#include <simgrid/s4u.hpp>
#include <vector>

#include "models/filesystem/disk_geometry.hpp"
#include "models/filesystem/disk_ops_sim.hpp"

namespace ciosim::filesystem {

class DiskSim {
 public:
  /// `disk` moves the bytes at its read and write bandwidths (the media rates the positioning uses).
  DiskSim(sg4::Disk* disk, const DiskGeometry& geometry, double read_Bps, double write_Bps)
      : disk_(disk), geometry_(geometry), read_Bps_(read_Bps), write_Bps_(write_Bps) {}
  DiskSim(const DiskSim&) = delete;
  DiskSim& operator=(const DiskSim&) = delete;

  /// When an operation had the disk: from `start` (the head began to move, or the transfer began) to the
  /// moment its transfer ended; the transfer began at `transfer`.
  struct Service {
    double start = 0;
    double transfer = 0;
  };
  /// Writes (or reads) `bytes` at `position` through `ops`; returns when the transfer is complete.
  Service io(DiskOps& ops, bool write, std::int64_t position, std::int64_t bytes);

  [[nodiscard]] bool positioned() const { return geometry_.positioned(); }
  [[nodiscard]] sg4::Disk* disk() const { return disk_; }
  /// Where the head is: the end of the last operation served (0 before the first).
  [[nodiscard]] std::int64_t head() const { return head_; }

 private:
  struct Waiter {
    std::int64_t position;
    sg4::SemaphorePtr go;
  };
  /// Gives the head to the next waiting operation (C-LOOK), or marks it free.
  void hand_over();

  sg4::Disk* disk_;
  DiskGeometry geometry_;
  double read_Bps_;
  double write_Bps_;
  std::int64_t head_ = 0;
  bool busy_ = false;
  std::vector<Waiter> queue_;  ///< in arrival order
};

}  // namespace ciosim::filesystem
