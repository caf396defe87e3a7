// What a simulated run's actors did, recorded while it runs (no SimGrid here: the S4U code passes clock
// values in). Two levels:
//  - always: the busy time of every resource (each rank's CPU work, each server's CPU, each disk, each
//    host's network link in each direction), as the union of the intervals during which at least one
//    operation used it, merged as they arrive, with the bytes moved. It feeds the per-phase "where the
//    time goes" summary (config/time_use.hpp) and costs a few doubles per operation;
//  - only when a timeline is requested (`full`): every call of every rank, every MPI message, every
//    file-system request at a server and every disk operation, written as Chrome trace-event JSON and
//    Paje (config/timeline.hpp). When `full` is false nothing of this is stored (one test of a bool).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ciosim::activity {

/// Kinds of resources whose busy time is tracked.
enum class ResourceKind : int {
  RankCpu,    ///< a rank's CPU work (compute)
  ServerCpu,  ///< a file-system server's CPU (request decoding, metadata)
  Disk,       ///< a disk
  LinkOut,    ///< a host's network link, sending direction
  LinkIn,     ///< a host's network link, receiving direction
  kCount
};
const char* resource_kind_name(ResourceKind k);

/// A closed interval of simulated time [start, end] in seconds, with the bytes moved in it.
struct Interval {
  double start = 0;
  double end = 0;
  double bytes = 0;
};

/// The busy time of one resource: merged intervals (an interval that overlaps or touches the last one
/// extends it; out-of-order arrivals are merged by finish()).
class Busy {
 public:
  void add(double start, double end, std::int64_t bytes);
  /// Sorts and merges; call once after the run, before the queries.
  void finish();
  /// Seconds of [t0, t1] during which the resource was busy.
  double busy_within(double t0, double t1) const;
  /// Bytes moved during [t0, t1], each merged interval's bytes prorated by its overlap with the window.
  double bytes_within(double t0, double t1) const;
  double total_busy() const;
  const std::vector<Interval>& intervals() const { return spans_; }

 private:
  std::vector<Interval> spans_;
};

struct Resource {
  ResourceKind kind = ResourceKind::Disk;
  std::string name;  ///< e.g. "iod3 disk", "node2 link out", "rank 5 cpu", "mds cpu"
  std::string host;
  Busy busy;
};

/// Who appears on the timeline: ranks, file-system servers (their request handling) and disks.
enum class ActorKind : int { Rank, Server, Disk };

struct Actor {
  ActorKind kind = ActorKind::Rank;
  std::string name;  ///< "rank 3", "iod0", "iod0 disk"
  std::string host;  ///< the host it runs on ("node1", "iod0")
  int rank = -1;     ///< ranks only
};

/// One interval of an actor: a rank's call ("alltoall", "write_list", "compute"), a server's request
/// ("write", "read", "open"...), a disk operation ("write", "read"). `name` points to a string literal.
struct Span {
  int actor = 0;
  const char* name = "";
  double start = 0;
  double end = 0;
  std::int64_t bytes = 0;
  int peer = -1;  ///< the rank a server request or message came from; -1 if none
};

/// One MPI message between ranks: start and end of its transfer as SimGrid simulated it. `within` is the
/// receiver's call that completed it ("wait", "alltoall", ...); tag < 0 marks a collective's internal
/// message.
struct Message {
  int src = 0;
  int dst = 0;
  int tag = 0;
  std::int64_t bytes = 0;
  double start = 0;
  double end = 0;
  const char* within = "";
};

class Log {
 public:
  bool full = false;  ///< record spans and messages for a timeline

  /// The resource of this kind and name (created on first use); its id for busy().
  int resource(ResourceKind kind, const std::string& name, const std::string& host);
  void busy(int resource, double start, double end, std::int64_t bytes = 0) {
    resources_[static_cast<std::size_t>(resource)].busy.add(start, end, bytes);
  }
  /// The actor of this kind and name (created on first use).
  int actor(ActorKind kind, const std::string& name, const std::string& host, int rank = -1);
  void span(int actor, const char* name, double start, double end, std::int64_t bytes = 0, int peer = -1) {
    if (full) spans_.push_back(Span{actor, name, start, end, bytes, peer});
  }
  void message(const Message& m) {
    if (full) messages_.push_back(m);
  }
  /// Merges every resource's intervals (after the run).
  void finish();

  const std::vector<Resource>& resources() const { return resources_; }
  const std::vector<Actor>& actors() const { return actors_; }
  const std::vector<Span>& spans() const { return spans_; }
  const std::vector<Message>& messages() const { return messages_; }

 private:
  std::vector<Resource> resources_;
  std::map<std::pair<int, std::string>, int> resource_ids_;
  std::vector<Actor> actors_;
  std::map<std::pair<int, std::string>, int> actor_ids_;
  std::vector<Span> spans_;
  std::vector<Message> messages_;
};

}  // namespace ciosim::activity
