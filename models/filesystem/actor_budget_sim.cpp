// See actor_budget_sim.hpp.
#include "models/filesystem/actor_budget_sim.hpp"

#include <simgrid/s4u.hpp>
#include <utility>

namespace ciosim::filesystem {

namespace sg4 = simgrid::s4u;

namespace {

// One simulation per process (docs/architecture.md, "One run, end to end"): the budget of the one running.
struct Budget {
  long max_actors = 0;
  std::string message;
  std::function<void(const std::string&)> fail;
};
Budget budget;

}  // namespace

void set_actor_budget(long max_actors, std::string message, std::function<void(const std::string&)> fail) {
  budget = Budget{max_actors, std::move(message), std::move(fail)};
}

void clear_actor_budget() {
  budget = Budget{};
}

void check_actor_budget() {
  if (budget.max_actors <= 0) return;
  if (static_cast<long>(sg4::Engine::get_instance()->get_actor_count()) < budget.max_actors) return;
  if (budget.fail) budget.fail(budget.message);
  sg4::Actor::kill_all();   // every other actor: the simulation cannot go on without this one
  sg4::this_actor::exit();  // and this one; the engine's run returns
}

}  // namespace ciosim::filesystem
