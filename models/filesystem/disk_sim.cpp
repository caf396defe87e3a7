// A disk with a head and an elevator queue; see disk_sim.hpp.
#include "models/filesystem/disk_sim.hpp"

namespace ciosim::filesystem {

DiskSim::Service DiskSim::io(DiskOps& ops, bool write, std::int64_t position, std::int64_t bytes) {
  if (!geometry_.positioned()) {
    const double t0 = sg4::Engine::get_clock();
    ops.run(disk_, write, bytes);
    return {t0, t0};
  }
  if (busy_) {
    const sg4::SemaphorePtr go = sg4::Semaphore::create(0);
    queue_.push_back(Waiter{position, go});
    go->acquire();  // hand_over() passed the head to this operation
  }
  busy_ = true;
  const double start = sg4::Engine::get_clock();
  const double positioning = geometry_.positioning_s(head_, position, write ? write_Bps_ : read_Bps_);
  if (positioning > 0) sg4::this_actor::sleep_for(positioning);
  const double transfer = sg4::Engine::get_clock();
  if (bytes > 0) ops.run(disk_, write, bytes);
  head_ = position + bytes;
  hand_over();
  return {start, transfer};
}

void DiskSim::hand_over() {
  if (queue_.empty()) {
    busy_ = false;
    return;
  }
  std::size_t next = queue_.size();  // the lowest position at or after the head
  std::size_t lowest = 0;            // the lowest position of all
  for (std::size_t i = 0; i < queue_.size(); ++i) {
    const std::int64_t p = queue_[i].position;
    if (p >= head_ && (next == queue_.size() || p < queue_[next].position)) next = i;
    if (p < queue_[lowest].position) lowest = i;
  }
  if (next == queue_.size()) next = lowest;
  const sg4::SemaphorePtr go = queue_[next].go;
  queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(next));
  go->release();  // busy_ stays true: the head passes to that operation
}

}  // namespace ciosim::filesystem
