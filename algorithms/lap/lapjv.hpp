// The linear assignment problem solved with the shortest augmenting path method of Jonker and Volgenant
// (LAPJV): R. Jonker, A. Volgenant, "A Shortest Augmenting Path Algorithm for Dense and Sparse Linear
// Assignment Problems", Computing 38:325-340, 1987. It is the solver of the LAP aggregator assignment of
// Filgueira, Singh, Pichel, Isaila, Carretero, "Data Locality Aware Strategy for Two-Phase Collective
// I/O", VECPAR 2008 (LNCS 5336, 2009), whose code calls Roy Jonker's 1996 C implementation.
//
// Reimplemented from the algorithm's description (Jonker and Volgenant's paper; docs/two-phase.md, "LAP
// aggregator assignment", Solver), with that implementation's loop orders and tie rules so that the same
// matrices give the same assignments (column reduction scans columns from the last to the first and takes
// the first row of least cost; augmenting row reduction runs twice; Dijkstra-like augmentation keeps the
// columns at the current minimum in list order). No code copied. Two differences: costs are 64-bit, and
// the "infinite" sentinel is INT64_MAX instead of 100000 (the reference crashes when reduced costs exceed
// its BIG); entries are bounded (max_cost_magnitude) so no intermediate value can overflow.
#pragma once

#include <cstdint>
#include <vector>

namespace ciosim::lap {

using Cost = std::int64_t;

/// A dense square matrix, row-major.
struct Matrix {
  int n = 0;
  std::vector<Cost> a;  ///< n*n entries
  Matrix() = default;
  explicit Matrix(int dim, Cost fill = 0);
  Cost& at(int i, int j) { return a[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + j]; }
  Cost at(int i, int j) const { return a[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + j]; }
};

/// A solution: row i is assigned column row_sol[i], column j row col_sol[j]; u and v are the dual
/// variables (row and column reductions) of the minimisation solved; total is the objective of the
/// problem asked (cost for lapjv_min, benefit for lapjv_max).
struct Assignment {
  std::vector<int> row_sol;
  std::vector<int> col_sol;
  std::vector<Cost> u;
  std::vector<Cost> v;
  Cost total = 0;
  std::int64_t steps = 0;  ///< inner-loop iterations performed (a measure of the solver's CPU work)
};

/// The largest |entry| accepted for an n x n matrix: every reduced cost and dual value then stays far
/// inside 64 bits (a loose bound: (INT64_MAX / 8) / (n + 2)).
Cost max_cost_magnitude(int n);

/// Minimum-cost assignment of the n x n matrix `cost` (LAPJV). Throws std::invalid_argument when n < 1,
/// the matrix is not n x n, or an entry exceeds max_cost_magnitude(n) in absolute value.
Assignment lapjv_min(const Matrix& cost);

/// Maximum-benefit assignment: solves the cost matrix -benefit, as the LAP aggregator code does
/// (cost = benefit * (-1)); total is the benefit achieved.
Assignment lapjv_max(const Matrix& benefit);

}  // namespace ciosim::lap
