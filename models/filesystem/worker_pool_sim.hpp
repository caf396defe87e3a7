// A server's request actors, recycled instead of started and ended one per request.
//
// A PVFS I/O daemon and an NFS server serve each request in an actor of its own, so that requests
// proceed concurrently as the real servers' threads or state machines let them. Starting and ending a
// SimGrid actor costs the simulator far more than the request's few activities: a stack allocated and
// its guard page protected (an mprotect each way), a context, the actor's bookkeeping and its clean-up
// (List I/O's 4-byte regions make 2,048,000 requests at 500 MiB; docs/benchmarks.md).
//
// A WorkerPool hands each request to an idle worker of the server and starts a new worker only when
// none is idle, so no request ever waits for a worker: the servers' concurrency, and every simulated
// time, stay as they were. The dispatcher makes the same number of simcalls either way (start and
// daemonize a new worker; or wake an idle one and yield), so the woken worker, and the dispatcher after
// it, run at the same places in SimGrid's scheduling rounds as a new actor and its dispatcher did.
//
// SimGrid 3.32 keeps every disk operation an actor issues on that actor's list of activities until the
// actor ends (disk_ops_sim.hpp). A worker therefore ends once the requests it served have issued
// DiskOps::kDirect disk operations themselves, and the pool starts a new one when it next needs one.
#pragma once

#include <functional>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>

namespace ciosim::filesystem {

namespace sg4 = simgrid::s4u;

class WorkerPool {
 public:
  /// A request's work, run in a worker's actor; returns the disk operations it issued itself (not through
  /// DiskOps helpers), which stay on the worker's activity list.
  using Job = std::function<int()>;

  /// Workers run on `host`, named `name`.
  WorkerPool(sg4::Host* host, std::string name);

  /// Runs `job` on an idle worker, or on a new one when none is idle. Called by the server's dispatcher
  /// actor; returns without waiting for the job.
  void submit(Job job);

  /// Workers started so far (a new one each time none was idle).
  [[nodiscard]] long started() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace ciosim::filesystem
