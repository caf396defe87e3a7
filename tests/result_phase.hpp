// A simulated run's phase by name, and its time, for tests that look into one (fails the test when it is
// missing).
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "config/run_spec.hpp"

namespace ciosim::test {

inline const PhaseTime& phase_of(const RunResult& r, const std::string& name) {
  for (const auto& p : r.phases)
    if (p.name == name) return p;
  FAIL("no phase " << name);
  return r.phases.front();
}

/// Its time (the maximum over ranks).
inline double phase_time(const RunResult& r, const std::string& name) {
  return phase_of(r, name).time_s;
}

}  // namespace ciosim::test
