// See worker_pool_sim.hpp for why a server's request actors are recycled.
#include "models/filesystem/worker_pool_sim.hpp"

#include <utility>
#include <vector>

#include "models/filesystem/actor_budget_sim.hpp"
#include "models/filesystem/disk_ops_sim.hpp"

namespace ciosim::filesystem {

namespace {

/// One worker: the job it is given, and the semaphore it waits on while idle.
struct Worker {
  sg4::SemaphorePtr go = sg4::Semaphore::create(0);
  WorkerPool::Job job;
};

}  // namespace

struct WorkerPool::State {
  sg4::Host* host = nullptr;
  std::string name;
  std::vector<std::shared_ptr<Worker>> idle;  ///< waiting on their semaphore; the last one is woken first
  long started = 0;
};

WorkerPool::WorkerPool(sg4::Host* host, std::string name) : state_(std::make_shared<State>()) {
  state_->host = host;
  state_->name = std::move(name);
}

long WorkerPool::started() const {
  return state_->started;
}

void WorkerPool::submit(Job job) {
  State& s = *state_;
  if (!s.idle.empty()) {
    std::shared_ptr<Worker> w = std::move(s.idle.back());
    s.idle.pop_back();
    w->job = std::move(job);
    // Two simcalls, as starting and daemonizing a new worker below: the worker runs in the next scheduling
    // round (its wait answered by this release, as a new actor is scheduled when it is started), and this
    // dispatcher after it.
    w->go->release();
    sg4::this_actor::yield();
    return;
  }
  check_actor_budget();
  auto w = std::make_shared<Worker>();
  w->job = std::move(job);
  ++s.started;
  // A worker is a daemon, as a server's request actor was: it never holds the simulation open.
  sg4::Actor::create(s.name, s.host, [state = state_, w] {
    int kept = 0;  // disk operations on this actor's list of activities
    for (;;) {
      kept += w->job();
      w->job = nullptr;
      if (kept >= DiskOps::kDirect) return;  // ends, so that SimGrid frees them; a new worker takes over
      state->idle.push_back(w);
      w->go->acquire();
    }
  })->daemonize();
}

}  // namespace ciosim::filesystem
