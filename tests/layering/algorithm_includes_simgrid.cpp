// Deliberately breaks the layering rule: compiled as part of algorithms/ (with its poisoned include
// path), this file must fail to compile. The test "layering: ..." in CMakeLists.txt builds it and expects
// the rule's message. Never part of any real target.
#include <simgrid/s4u.hpp>

int algorithm_that_peeks_at_the_simulator() {
  return 0;
}
