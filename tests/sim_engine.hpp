// A SimGrid engine for a test that builds its own hosts and actors (one engine per process: ctest runs
// every TEST_CASE in its own). Contexts::threads runs the actors on threads, which such a test needs when
// daemons are killed at the end: exceptions thrown across SimGrid's raw context switches confuse the
// sanitizers (.ci/run).
#pragma once

#include <simgrid/s4u.hpp>

namespace ciosim::test {

class SimEngine {
 public:
  enum class Contexts { standard, threads };
  explicit SimEngine(Contexts contexts = Contexts::standard)
      : argc_(contexts == Contexts::threads ? 2 : 1), engine_(&argc_, argv_) {}
  simgrid::s4u::Engine& operator*() { return engine_; }
  simgrid::s4u::Engine* operator->() { return &engine_; }

 private:
  char name_[5] = "test";
  char cfg_[30] = "--cfg=contexts/factory:thread";
  char* argv_[3] = {name_, cfg_, nullptr};
  int argc_;
  simgrid::s4u::Engine engine_;
};

}  // namespace ciosim::test
