// Diagnostics of the simulator's message matching cost (CIOSIM_COMM_STATS=1): how long the lists are that
// SimGrid 3.32 scans on every completion. A comm sits in the pending-activity list of each actor that posted
// it until that actor waits on it (a test does not take it off), and a detached comm sits instead in the
// maestro's single list until its transfer ends; every removal is a full std::list::remove. Until 2026-11-25
// ciosim's eager sends were detached, so that list held every eager message in flight in the whole
// simulation; the line "eager messages in flight" gives what it held then (nothing is detached now).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ciosim::sim {

struct CommStats {
  struct Eager {
    double posted = 0;     ///< the send started
    double finished = -1;  ///< its transfer ended (the receiver's comm finish time)
    double waited = -1;    ///< the receiver called wait
  };
  explicit CommStats(int ranks)
      : held(static_cast<std::size_t>(ranks)),
        held_max(static_cast<std::size_t>(ranks)),
        unmatched(static_cast<std::size_t>(ranks)),
        unmatched_max(static_cast<std::size_t>(ranks)) {}
  std::vector<Eager> eager;
  /// Per rank: kernel comms the rank holds (posted receives, rendezvous sends, eager sends not yet
  /// released): its actor's own list.
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
