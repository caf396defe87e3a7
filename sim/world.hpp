// Everything one simulation run shares between its actors: the platform's hosts, the profiles, the
// simulated file, and per-rank records. Owned by simulate(); never global.
#pragma once

#include <cstdint>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/common/process.hpp"
#include "config/run_spec.hpp"
#include "config/run_summary.hpp"
#include "models/activity/activity_log.hpp"
#include "models/filesystem/file_store.hpp"
#include "models/filesystem/file_system_sim.hpp"
#include "models/network/profiles.hpp"
#include "sim/comm_stats.hpp"

namespace ciosim::sim {

namespace sg4 = simgrid::s4u;

/// Per rank: start/end clocks, phase marks, counters and (when spec.trace_file is set) the call trace.
using RankRecord = config::RankRecord;

struct World {
  const RunSpec* spec = nullptr;
  const NetworkProfile* mpi = nullptr;
  const NetworkProfile* io = nullptr;
  std::vector<sg4::Host*> rank_hosts;  ///< host of each rank
  /// The disk standing for the memory of each rank's node (nodes.memory_Bps), which the node's concurrent
  /// copies share; null when the platform does not give the key.
  std::vector<sg4::Disk*> rank_memory;
  std::vector<sg4::Host*> servers;  ///< the file system's server hosts (its traffic is not MPI's)
  std::vector<sg4::ActorPtr> rank_actors;
  filesystem::FileStore file;
  std::unique_ptr<filesystem::FileSystemSim> fs;  ///< the platform's file system, serving `file`
  std::vector<RankRecord> records;
  activity::Log log;  ///< busy times always; every call and message when a timeline is written
  /// Per rank, activity-log ids: its timeline actor, its CPU resource, its host's link out and in.
  std::vector<int> rank_actor, rank_cpu, link_out, link_in;
  int finished = 0;                 ///< ranks whose actor ran to its end
  std::vector<std::string> errors;  ///< exceptions caught inside actors, reported after run()
  bool out_of_memory = false;       ///< an actor's allocation failed (rethrown as std::bad_alloc after run())
  std::unique_ptr<CommStats> comm_stats;  ///< CIOSIM_COMM_STATS=1: list lengths, reported on stderr
};

}  // namespace ciosim::sim
