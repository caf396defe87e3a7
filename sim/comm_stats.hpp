// Diagnostics for issue 14 item 4 (CIOSIM_COMM_STATS=1): how many SimGrid communications each list
// that SimGrid 3.32 scans on every completion holds. In 3.32 a detached send sits in the maestro's
// pending-activity list (one list for the whole simulation) from its start until its transfer ends, and
// every completion of a detached comm removes it from that list with a full scan (and once more when
// the receiver waits on it after the transfer ended); a non-detached comm sits in its waiting actor's
// own list. Eager sends are the only detached comms ciosim makes, so the maestro list's length over time
// follows from each eager message's start and transfer end, which the receiver sees.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ciosim::sim {

struct CommStats {
  struct Eager {
    double posted = 0;     ///< the detached send started
    double finished = -1;  ///< its transfer ended (the receiver's comm finish time)
    double waited = -1;    ///< the receiver called wait
  };
  explicit CommStats(int ranks)
      : held(static_cast<std::size_t>(ranks)),
        held_max(static_cast<std::size_t>(ranks)),
        unmatched(static_cast<std::size_t>(ranks)),
        unmatched_max(static_cast<std::size_t>(ranks)) {}
  std::vector<Eager> eager;
  /// Per rank: kernel comms the rank holds (posted receives, rendezvous sends): its actor's own list.
  std::vector<std::int64_t> held, held_max;
  /// Per rank: eager messages sent to it and not yet matched by a receive (its permanent mailboxes).
  std::vector<std::int64_t> unmatched, unmatched_max;
  double held_at_wait_sum = 0;  ///< sum over waits of the waiting rank's list length (its scan)
  std::int64_t waits = 0;

  /// Eager messages by the sender's outermost Process call ("alltoall", "isend", ...).
  std::map<std::string, std::int64_t> eager_by_call;

  std::int64_t add_eager(double now, int dst, const char* call);
  void matched(int dst);
  void hold(int rank, int delta);
  void wait(int rank);
  void report(std::ostream& out) const;
};

}  // namespace ciosim::sim
