// The actor budget (models/filesystem/actor_budget_sim.hpp): a run whose file system would start more
// actors than the kernel's memory maps allow stops with the reason instead of SimGrid's abort. One SimGrid
// engine per TEST_CASE (ctest runs every TEST_CASE in its own process); threads, since the stop kills
// actors (tests/sim_engine.hpp).
#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "config/point_checks.hpp"
#include "models/filesystem/actor_budget_sim.hpp"
#include "models/filesystem/worker_pool_sim.hpp"
#include "tests/sim_engine.hpp"

namespace sg4 = simgrid::s4u;
using namespace ciosim;

namespace {

/// A server whose pool serves `jobs` requests that each take 1 s, all arriving at time 0 (so each needs a
/// worker of its own), and a client that waits 5 s. Returns the simulated time the engine stopped at.
double serve_concurrent(int jobs, int* served) {
  test::SimEngine engine(test::SimEngine::Contexts::threads);
  auto* zone = sg4::create_full_zone("zone");
  sg4::Host* host = zone->create_host("h", 1e9);
  zone->seal();
  sg4::Actor::create("server", host, [host, jobs, served] {
    sg4::Actor::self()->daemonize();
    filesystem::WorkerPool pool(host, "worker");
    for (int i = 0; i < jobs; ++i)
      pool.submit([served] {
        sg4::this_actor::sleep_for(1);
        ++*served;
        return 0;
      });
    sg4::this_actor::sleep_for(100);
  });
  sg4::Actor::create("client", host, [] { sg4::this_actor::sleep_for(5); });
  engine->run();
  return sg4::Engine::get_clock();
}

}  // namespace

TEST_CASE("actor budget: with room for every worker the workers run", "[budget]") {
  std::vector<std::string> failures;
  {
    filesystem::set_actor_budget(16, "too many", [&](const std::string& m) { failures.push_back(m); });
    int served = 0;
    const double end = serve_concurrent(10, &served);  // 2 actors + 10 workers
    filesystem::clear_actor_budget();
    CHECK(failures.empty());
    CHECK(served == 10);
    CHECK(end == Approx(5));
  }
}

TEST_CASE("actor budget: one worker too many stops the run with the reason", "[budget]") {
  std::vector<std::string> failures;
  {
    filesystem::set_actor_budget(11, "too many", [&](const std::string& m) { failures.push_back(m); });
    int served = 0;
    const double end = serve_concurrent(10, &served);  // the 10th worker would be the 12th actor
    filesystem::clear_actor_budget();
    REQUIRE(failures.size() == 1);
    CHECK(failures[0] == "too many");
    CHECK(served == 0);  // stopped at time 0: every actor killed
    CHECK(end == 0);
    CHECK(sg4::Engine::get_instance()->get_actor_count() == 0);
  }
}

TEST_CASE("actor budget from the kernel's limit on memory maps", "[budget]") {
  CHECK(config::actor_budget(65530, "") == 32509);  // (65,530 - 512 of the process's own) / 2
  CHECK(config::actor_budget(65530, "contexts/factory:thread") == 32509);
  CHECK(config::actor_budget(65530, "contexts/guard-size:0;contexts/stack-size:16") == 0);  // no guard pages
  CHECK(config::actor_budget(0, "") == 0);                                                  // limit unknown
  CHECK(config::check_memory_maps(32509, 65530, "").empty());
  CHECK(!config::check_memory_maps(32510, 65530, "").empty());
  const std::string why = config::actors_refusal(32509, 65530);
  CHECK(why.find("more than 32509 SimGrid actors") != std::string::npos);
  CHECK(why.find("vm.max_map_count = 65530") != std::string::npos);
  CHECK(why.find("contexts/guard-size:0") != std::string::npos);
}
