// See disk_ops_sim.hpp for why disk operations are handed to helper actors.
#include "models/filesystem/disk_ops_sim.hpp"

#include <exception>

#include "models/filesystem/actor_budget_sim.hpp"

namespace ciosim::filesystem {

namespace {

void issue(sg4::Disk* disk, bool write, std::int64_t bytes) {
  if (write)
    disk->write(static_cast<sg_size_t>(bytes));
  else
    disk->read(static_cast<sg_size_t>(bytes));
}

}  // namespace

/// What a caller and its current helper share: the operation asked for, and two semaphores that hand it
/// over and back in zero simulated time.
struct DiskOps::Channel {
  sg4::SemaphorePtr go = sg4::Semaphore::create(0);
  sg4::SemaphorePtr done = sg4::Semaphore::create(0);
  sg4::Disk* disk = nullptr;
  bool write = true;
  std::int64_t bytes = 0;
  bool stop = false;
};

DiskOps::~DiskOps() {
  stop_helper();
}

void DiskOps::stop_helper() {
  // Not from maestro (a DiskOps outliving the simulation), nor while an exception unwinds the caller (an
  // actor being killed at the end of the simulation: a simcall then hangs with thread contexts): the
  // helper, a daemon, ends with the simulation.
  if (channel_ && helper_ops_ < kPerHelper && std::uncaught_exceptions() == 0 &&
      !sg4::this_actor::is_maestro()) {
    channel_->stop = true;  // the helper is waiting for another operation: let it end
    channel_->go->release();
  }
  channel_.reset();
  helper_ops_ = 0;
}

void DiskOps::run(sg4::Disk* disk, bool write, std::int64_t bytes) {
  if (issued_ < direct_) {
    ++issued_;
    issue(disk, write, bytes);
    return;
  }
  if (!channel_ || helper_ops_ == kPerHelper) {
    stop_helper();
    channel_ = std::make_shared<Channel>();
    check_actor_budget();
    sg4::Actor::create("disk-ops", host_, [ch = channel_] {
      // Its caller waits for each operation: a helper never needs to hold the simulation open.
      sg4::Actor::self()->daemonize();
      for (int k = 0; k < kPerHelper; ++k) {
        ch->go->acquire();
        if (ch->stop) return;
        issue(ch->disk, ch->write, ch->bytes);
        ch->done->release();
      }
    });
  }
  ++helper_ops_;
  channel_->disk = disk;
  channel_->write = write;
  channel_->bytes = bytes;
  channel_->go->release();
  channel_->done->acquire();
}

}  // namespace ciosim::filesystem
