// Each technique explained step by step for `ciosim list` (docs/techniques.md walks through the same
// steps with worked examples).
#pragma once

#include <string>
#include <vector>

namespace ciosim::app {

/// The steps of the technique registered as `name`, in order; empty when none are written yet (a test
/// checks that every registered technique has them).
const std::vector<std::string>& technique_steps(const std::string& name);

}  // namespace ciosim::app
