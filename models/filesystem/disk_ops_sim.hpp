// Disk operations issued so that they do not slow down the actor that asks for them.
//
// SimGrid 3.32 appends every activity an actor starts to that actor's list of activities
// (ActorImpl::activities_, a std::list). A finished communication is taken off its waiter's list with
// std::list::remove, which walks the whole list; a finished disk operation (IoImpl) is never taken off:
// it stays until the actor ends. So an actor that alternates disk operations and communication waits —
// a PVFS server streaming one long request chunk by chunk, a rank writing to its node's own disk —
// pays for every earlier disk operation at every wait: quadratic in the chunks (measured: one 256 MiB
// request per rank on 8 I/O servers spent 50 % of the run in that walk; docs/history/benchmarks-log.md).
//
// DiskOps issues a short-lived caller's first few operations itself (a short list costs nothing) and the
// rest from helper actors on the same host, each retired after a fixed number of operations so that the disk
// operations it keeps alive stay few. The caller blocks on a semaphore (which SimGrid 3.32 does not keep
// in any list) until its operation is complete, so the operation starts and ends at the same simulated
// instants as if the caller had issued it.
#pragma once

#include <cstdint>
#include <memory>
#include <simgrid/s4u.hpp>

namespace ciosim::filesystem {

namespace sg4 = simgrid::s4u;

class DiskOps {
 public:
  /// Helpers run on `host` (the disk's host, or the caller's). The caller issues its first `direct`
  /// operations itself: kDirect for an actor that ends soon (a server's request), 0 for one that lives on
  /// (a rank), whose list would otherwise keep them to its end.
  explicit DiskOps(sg4::Host* host, int direct = kDirect) : host_(host), direct_(direct) {}
  ~DiskOps();
  DiskOps(const DiskOps&) = delete;
  DiskOps& operator=(const DiskOps&) = delete;

  /// Writes (or reads) `bytes` on `disk`; returns when the operation is complete.
  void run(sg4::Disk* disk, bool write, std::int64_t bytes);

  /// Operations the caller issued itself so far: they stay on its list of activities until it ends.
  [[nodiscard]] int direct_issued() const { return issued_; }

  /// Operations issued by the caller itself before helpers take over: a list this short is walked in
  /// no measurable time. A performance constant, not a model parameter: it changes no simulated time.
  static constexpr int kDirect = 16;
  /// Operations one helper issues before it ends (and a new one is started): bounds the disk operations
  /// a helper keeps alive. Also a performance constant.
  static constexpr int kPerHelper = 256;

 private:
  struct Channel;
  void stop_helper();

  sg4::Host* host_;
  int direct_;
  int issued_ = 0;      ///< operations issued by the caller itself (at most direct_)
  int helper_ops_ = 0;  ///< operations the current helper has been given
  std::shared_ptr<Channel> channel_;
};

}  // namespace ciosim::filesystem
