// Where ranks sit, one rule for both backends, and how real MPI runs are timed. The simulator places rank
// r on node_of(spec, r); the MPI backend names a rank's host "node<k>" with k = host_indices(names)[r]
// (names in order of first appearance), and `ciosim validate` simulates that same placement, so techniques
// that group ranks by host see the same groups on both backends.
#pragma once

#include <string>
#include <vector>

#include "config/run_spec.hpp"

namespace ciosim::config {

/// The node of rank r: spec.rank_nodes[r] when given, else r / platform.cores_per_node.
int node_of(const RunSpec& spec, int r);

/// Each rank's host as an index: distinct names numbered in order of first appearance.
std::vector<int> host_indices(const std::vector<std::string>& names);

/// Throws ConfigError unless `mode` is "warm" (freed memory kept, one untimed run first: the steady state
/// the model predicts) or "cold" (every run timed, first-touch page faults included).
void check_memory_mode(const std::string& option, const std::string& mode);

}  // namespace ciosim::config
