// Deliberately breaks the layering rule: compiled as part of models/ or sim/ (with their poisoned
// include path), this file must fail to compile. See tests/layering/algorithm_includes_simgrid.cpp.
#include <mpi.h>

int model_that_calls_mpi() {
  return 0;
}
