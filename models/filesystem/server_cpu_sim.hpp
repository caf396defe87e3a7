// A file-system server's CPU time: on a host of its own the server's CPU is its own (the time passes);
// beside a compute node it runs on that node's cores, shared with the ranks' CPU work there
// (SimProcess::do_compute executes on the same host), so each slows the other once the node's cores are
// all busy.
#pragma once

#include <simgrid/s4u.hpp>

namespace ciosim::filesystem {

/// Spends `seconds` of one core's time from the calling actor: on `node`'s cores when given, else as
/// time passing on a CPU of the server's own.
inline void spend_cpu(simgrid::s4u::Host* node, double seconds) {
  if (node == nullptr) {
    simgrid::s4u::this_actor::sleep_for(seconds);
  } else if (seconds > 0) {
    simgrid::s4u::this_actor::exec_init(seconds * node->get_speed())->set_host(node)->wait();
  }
}

}  // namespace ciosim::filesystem
