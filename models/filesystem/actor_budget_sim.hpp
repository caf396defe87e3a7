// The most SimGrid actors a simulation may hold at once, checked where the file-system models start actors
// during a run (a server's request workers, disk-operation helpers).
//
// With SimGrid's default guard pages every actor's stack is two memory maps, and Linux refuses a process
// more than vm.max_map_count of them: SimGrid then aborts deep inside a context switch with a backtrace.
// The ranks are counted before simulating (config/point_checks.hpp); the servers' request actors depend on
// how many requests wait at once, which only the run knows. So the simulation sets a budget, and the model
// that would start the actor one past it stops the simulation instead, with a message that names the limit
// and the ways out.
#pragma once

#include <functional>
#include <string>

namespace ciosim::filesystem {

/// Sets the budget for the simulation about to run: at most `max_actors` actors alive (0: no limit). When
/// an actor would exceed it, `fail(message)` is called with `message`, every actor is killed and the
/// simulation ends (its caller reports the failure). clear_actor_budget() after the run.
void set_actor_budget(long max_actors, std::string message, std::function<void(const std::string&)> fail);
void clear_actor_budget();

/// Called by an actor about to start one more actor: returns when there is room, else fails the
/// simulation as set_actor_budget says (and does not return).
void check_actor_budget();

}  // namespace ciosim::filesystem
