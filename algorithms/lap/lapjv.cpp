// LAPJV (Jonker, Volgenant, Computing 38, 1987), the solver of the LAP aggregator assignment of
// Filgueira, Singh, Pichel, Isaila, Carretero, "Data Locality Aware Strategy for Two-Phase Collective
// I/O", VECPAR 2008. Reimplemented from the algorithm's description with the reference implementation's
// loop orders and tie rules (see lapjv.hpp); no code copied.
#include "algorithms/lap/lapjv.hpp"

#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace ciosim::lap {

namespace {

constexpr Cost kInf = std::numeric_limits<Cost>::max();

struct Solver {
  const Matrix& c;
  int n;
  std::vector<int> row_sol, col_sol;
  std::vector<Cost> v;
  std::vector<int> free_rows;  ///< rows without a column, in the order they are processed
  std::int64_t steps = 0;

  explicit Solver(const Matrix& m)
      : c(m),
        n(m.n),
        row_sol(static_cast<std::size_t>(n), -1),
        col_sol(static_cast<std::size_t>(n), -1),
        v(static_cast<std::size_t>(n), 0) {}

  Cost reduced(int i, int j) const { return c.at(i, j) - v[static_cast<std::size_t>(j)]; }

  /// Column reduction, last column first: v[j] = the column's minimum, taken by the first row reaching
  /// it; a row that is the minimum of several columns keeps the first (highest) one it was given.
  /// Then reduction transfer: a row assigned once passes its slack to its column's price; rows never
  /// chosen become free (in increasing order).
  void column_reduction(std::vector<int>& times_chosen) {
    for (int j = n - 1; j >= 0; --j) {
      int best = 0;
      steps += n;
      for (int i = 1; i < n; ++i)
        if (c.at(i, j) < c.at(best, j)) best = i;
      v[static_cast<std::size_t>(j)] = c.at(best, j);
      if (++times_chosen[static_cast<std::size_t>(best)] == 1) {
        row_sol[static_cast<std::size_t>(best)] = j;
        col_sol[static_cast<std::size_t>(j)] = best;
      } else {
        col_sol[static_cast<std::size_t>(j)] = -1;
      }
    }
    for (int i = 0; i < n; ++i) {
      const int times = times_chosen[static_cast<std::size_t>(i)];
      if (times == 0) {
        free_rows.push_back(i);
      } else if (times == 1) {
        const int own = row_sol[static_cast<std::size_t>(i)];
        Cost slack = kInf;
        steps += n;
        for (int j = 0; j < n; ++j)
          if (j != own && reduced(i, j) < slack) slack = reduced(i, j);
        if (slack != kInf) v[static_cast<std::size_t>(own)] -= slack;  // n == 1: nothing to transfer
      }
    }
  }

  /// Augmenting row reduction (run twice): each free row takes its cheapest column (first of the least
  /// reduced cost, the second-cheapest found as the reference scans); when the minimum is strict the
  /// column's price drops to the second minimum and a displaced row is processed next; on a tie the
  /// second column is taken if the first is assigned, and a displaced row waits for the next pass.
  void augmenting_row_reduction() {
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<int> todo;
      todo.swap(free_rows);
      std::size_t k = 0;
      while (k < todo.size()) {
        const int i = todo[k++];
        Cost umin = reduced(i, 0);
        Cost usubmin = kInf;
        int j1 = 0;
        int j2 = 0;
        steps += n;
        for (int j = 1; j < n; ++j) {
          const Cost h = reduced(i, j);
          if (h >= usubmin) continue;
          if (h >= umin) {
            usubmin = h;
            j2 = j;
          } else {
            usubmin = umin;
            umin = h;
            j2 = j1;
            j1 = j;
          }
        }
        int displaced = col_sol[static_cast<std::size_t>(j1)];
        const bool strict = umin < usubmin;
        if (strict) {
          v[static_cast<std::size_t>(j1)] -= usubmin - umin;  // n >= 2 here, so usubmin is finite
        } else if (displaced >= 0) {
          j1 = j2;
          displaced = col_sol[static_cast<std::size_t>(j2)];
        }
        row_sol[static_cast<std::size_t>(i)] = j1;
        col_sol[static_cast<std::size_t>(j1)] = i;
        if (displaced < 0) continue;
        if (strict)
          todo[--k] = displaced;  // continue the augmenting path from the displaced row at once
        else
          free_rows.push_back(displaced);
      }
    }
  }

  /// Shortest augmenting path from `start` (Dijkstra on reduced costs). Columns are kept in `cols`:
  /// [0, low) settled, [low, up) at the current minimum distance, [up, n) not yet reached.
  void augment(int start) {
    const auto N = static_cast<std::size_t>(n);
    std::vector<Cost> d(N);
    std::vector<int> pred(N, start);
    std::vector<int> cols(N);
    for (int j = 0; j < n; ++j) {
      d[static_cast<std::size_t>(j)] = reduced(start, j);
      cols[static_cast<std::size_t>(j)] = j;
    }
    int low = 0, up = 0, last = 0, end = -1;
    Cost dmin = 0;
    while (end < 0) {
      if (up == low) {
        last = low - 1;
        steps += n - up;
        dmin = d[static_cast<std::size_t>(cols[static_cast<std::size_t>(up++)])];
        for (int k = up; k < n; ++k) {
          const int j = cols[static_cast<std::size_t>(k)];
          const Cost h = d[static_cast<std::size_t>(j)];
          if (h > dmin) continue;
          if (h < dmin) {
            up = low;
            dmin = h;
          }
          cols[static_cast<std::size_t>(k)] = cols[static_cast<std::size_t>(up)];
          cols[static_cast<std::size_t>(up++)] = j;
        }
        for (int k = low; k < up; ++k)
          if (col_sol[static_cast<std::size_t>(cols[static_cast<std::size_t>(k)])] < 0) {
            end = cols[static_cast<std::size_t>(k)];
            break;
          }
      }
      if (end >= 0) break;
      const int j1 = cols[static_cast<std::size_t>(low++)];
      const int i = col_sol[static_cast<std::size_t>(j1)];
      const Cost h = reduced(i, j1) - dmin;
      steps += n - up;
      for (int k = up; k < n; ++k) {
        const int j = cols[static_cast<std::size_t>(k)];
        const Cost dist = reduced(i, j) - h;
        if (dist >= d[static_cast<std::size_t>(j)]) continue;
        pred[static_cast<std::size_t>(j)] = i;
        if (dist == dmin) {
          if (col_sol[static_cast<std::size_t>(j)] < 0) {
            end = j;
            break;
          }
          cols[static_cast<std::size_t>(k)] = cols[static_cast<std::size_t>(up)];
          cols[static_cast<std::size_t>(up++)] = j;
        }
        d[static_cast<std::size_t>(j)] = dist;
      }
    }
    for (int k = 0; k <= last; ++k) {  // settled columns' prices
      const auto j = static_cast<std::size_t>(cols[static_cast<std::size_t>(k)]);
      v[j] += d[j] - dmin;
    }
    int i = -1;
    do {  // flip the alternating path back to the start row
      i = pred[static_cast<std::size_t>(end)];
      col_sol[static_cast<std::size_t>(end)] = i;
      const int next = row_sol[static_cast<std::size_t>(i)];
      row_sol[static_cast<std::size_t>(i)] = end;
      end = next;
    } while (i != start);
  }
};

}  // namespace

Matrix::Matrix(int dim, Cost fill)
    : n(dim),
      a(static_cast<std::size_t>(dim < 0 ? 0 : dim) * static_cast<std::size_t>(dim < 0 ? 0 : dim), fill) {}

Cost max_cost_magnitude(int n) {
  return (std::numeric_limits<Cost>::max() / 8) / (static_cast<Cost>(n) + 2);
}

Assignment lapjv_min(const Matrix& cost) {
  const int n = cost.n;
  if (n < 1)
    throw std::invalid_argument("lapjv: the matrix must be at least 1 x 1 (got n = " + std::to_string(n) +
                                ")");
  if (cost.a.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n))
    throw std::invalid_argument("lapjv: a " + std::to_string(n) + " x " + std::to_string(n) +
                                " matrix needs " + std::to_string(static_cast<std::int64_t>(n) * n) +
                                " entries, got " + std::to_string(cost.a.size()));
  const Cost bound = max_cost_magnitude(n);
  for (Cost x : cost.a)
    if (x > bound || x < -bound)
      throw std::invalid_argument("lapjv: entry " + std::to_string(x) + " exceeds the bound +-" +
                                  std::to_string(bound) + " for n = " + std::to_string(n));
  Solver s(cost);
  std::vector<int> times(static_cast<std::size_t>(n), 0);
  s.column_reduction(times);
  s.augmenting_row_reduction();
  const std::vector<int> remaining = s.free_rows;
  for (int r : remaining) s.augment(r);

  Assignment out;
  out.u.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int j = s.row_sol[static_cast<std::size_t>(i)];
    out.u[static_cast<std::size_t>(i)] = s.reduced(i, j);
    out.total += cost.at(i, j);
  }
  out.row_sol = std::move(s.row_sol);
  out.col_sol = std::move(s.col_sol);
  out.v = std::move(s.v);
  out.steps = s.steps;
  return out;
}

Assignment lapjv_max(const Matrix& benefit) {
  Matrix cost = benefit;
  for (Cost& x : cost.a) x = -x;
  Assignment out = lapjv_min(cost);
  out.total = -out.total;
  return out;
}

}  // namespace ciosim::lap
