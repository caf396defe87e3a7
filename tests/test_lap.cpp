// LAPJV (algorithms/lap/lapjv.*), the solver of the LAP aggregator assignment (Filgueira et al., VECPAR
// 2008): the slides' 4x4 benefit matrix, and every optimum cross-checked against brute force over all
// permutations and against Boost.Graph's successive_shortest_path_nonnegative_weights on random matrices
// (n <= 8, small value ranges so that ties are frequent). Pure unit tests, no simulation.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/successive_shortest_path_nonnegative_weights.hpp>
// find_flow_cost.hpp needs the declarations the header above pulls in.
#include <boost/graph/find_flow_cost.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <vector>

#include "algorithms/lap/lapjv.hpp"

using namespace ciosim::lap;

namespace {

Matrix from_rows(const std::vector<std::vector<Cost>>& rows) {
  Matrix m(static_cast<int>(rows.size()));
  for (int i = 0; i < m.n; ++i)
    for (int j = 0; j < m.n; ++j) m.at(i, j) = rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  return m;
}

/// Best benefit over all n! permutations.
Cost brute_force_max(const Matrix& b) {
  std::vector<int> p(static_cast<std::size_t>(b.n));
  std::iota(p.begin(), p.end(), 0);
  Cost best = std::numeric_limits<Cost>::min();
  do {
    Cost s = 0;
    for (int i = 0; i < b.n; ++i) s += b.at(i, p[static_cast<std::size_t>(i)]);
    best = std::max(best, s);
  } while (std::next_permutation(p.begin(), p.end()));
  return best;
}

/// The assignment as a min-cost flow (collective-io-notes §3): s -> row (cap 1, w 0), row -> col (cap 1,
/// w = max - b >= 0), col -> t (cap 1, w 0), each edge with its reverse (cap 0, w = -w). Returns the
/// benefit of the optimal flow.
Cost boost_max(const Matrix& b) {
  using namespace boost;
  using Traits = adjacency_list_traits<vecS, vecS, directedS>;
  using Graph = adjacency_list<
      vecS, vecS, directedS, no_property,
      property<edge_capacity_t, long,
               property<edge_residual_capacity_t, long,
                        property<edge_reverse_t, Traits::edge_descriptor, property<edge_weight_t, long>>>>>;
  const int n = b.n;
  Graph g(static_cast<std::size_t>(2 * n + 2));
  const int s = 2 * n, t = 2 * n + 1;
  auto cap = get(edge_capacity, g);
  auto rev = get(edge_reverse, g);
  auto w = get(edge_weight, g);
  auto add = [&](int from, int to, long weight) {
    auto e = add_edge(static_cast<std::size_t>(from), static_cast<std::size_t>(to), g).first;
    auto r = add_edge(static_cast<std::size_t>(to), static_cast<std::size_t>(from), g).first;
    cap[e] = 1;
    cap[r] = 0;
    w[e] = weight;
    w[r] = -weight;
    rev[e] = r;
    rev[r] = e;
  };
  const Cost top = *std::max_element(b.a.begin(), b.a.end());
  for (int i = 0; i < n; ++i) {
    add(s, i, 0);
    add(n + i, t, 0);
    for (int j = 0; j < n; ++j) add(i, n + j, static_cast<long>(top - b.at(i, j)));
  }
  successive_shortest_path_nonnegative_weights(g, static_cast<std::size_t>(s), static_cast<std::size_t>(t));
  const long flow_cost = find_flow_cost(g);
  return static_cast<Cost>(n) * top - flow_cost;
}

/// Checks that `a` is a permutation consistent in both directions, with the total it claims, and that the
/// duals prove optimality of the minimisation of `cost` (reduced costs >= 0, zero on the assignment).
void check_solution(const Matrix& cost, const Assignment& a) {
  const int n = cost.n;
  REQUIRE(a.row_sol.size() == static_cast<std::size_t>(n));
  REQUIRE(a.col_sol.size() == static_cast<std::size_t>(n));
  Cost total = 0;
  for (int i = 0; i < n; ++i) {
    const int j = a.row_sol[static_cast<std::size_t>(i)];
    REQUIRE(j >= 0);
    REQUIRE(j < n);
    REQUIRE(a.col_sol[static_cast<std::size_t>(j)] == i);
    total += cost.at(i, j);
  }
  CHECK(total == a.total);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const Cost rc = cost.at(i, j) - a.u[static_cast<std::size_t>(i)] - a.v[static_cast<std::size_t>(j)];
      CHECK(rc >= 0);
      if (a.row_sol[static_cast<std::size_t>(i)] == j) CHECK(rc == 0);
    }
}

/// splitmix64, so that the random matrices are the same on every platform.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  Cost below(Cost m) { return static_cast<Cost>(next() % static_cast<std::uint64_t>(m)); }
};

}  // namespace

TEST_CASE("lapjv: the VECPAR slides' 4x4 interval x process benefit matrix", "[lap]") {
  // Rows = intervals 0-3, columns = processes 0-3 (the VECPAR 2008 slides, Vecpar.pdf in the LAP repository).
  const Matrix b = from_rows({{1, 2, 1, 0}, {0, 1, 3, 0}, {0, 0, 0, 4}, {3, 1, 0, 0}});
  const Assignment a = lapjv_max(b);
  CHECK(a.total == 12);
  CHECK(a.row_sol == std::vector<int>{1, 2, 3, 0});  // interval 0 -> process 1, 1 -> 2, 2 -> 3, 3 -> 0
  CHECK(a.col_sol == std::vector<int>{3, 0, 1, 2});
  CHECK(brute_force_max(b) == 12);
  CHECK(boost_max(b) == 12);
}

TEST_CASE("lapjv: minimisation of a small cost matrix and its duals", "[lap]") {
  const Matrix c = from_rows({{4, 1, 3}, {2, 0, 5}, {3, 2, 2}});
  const Assignment a = lapjv_min(c);
  CHECK(a.total == 5);  // 1 + 2 + 2: row 0 -> 1, row 1 -> 0, row 2 -> 2
  CHECK(a.row_sol == std::vector<int>{1, 0, 2});
  check_solution(c, a);
}

TEST_CASE("lapjv: optimal on random matrices with ties, against brute force and Boost.Graph", "[lap]") {
  Rng rng{20081024};
  int checked = 0;
  for (int n = 1; n <= 8; ++n) {
    for (Cost range : {Cost{2}, Cost{4}, Cost{10}, Cost{1000}}) {  // small ranges: many ties
      const int trials = n <= 6 ? 60 : 12;
      for (int t = 0; t < trials; ++t) {
        Matrix b(n);
        for (Cost& x : b.a) x = rng.below(range);
        const Assignment a = lapjv_max(b);
        const Cost brute = brute_force_max(b);
        INFO("n = " << n << ", range = " << range << ", trial " << t);
        CHECK(a.total == brute);
        CHECK(boost_max(b) == brute);
        Matrix cost = b;
        for (Cost& x : cost.a) x = -x;
        Assignment as_min = a;
        as_min.total = -a.total;
        check_solution(cost, as_min);
        ++checked;
      }
    }
  }
  CHECK(checked == 6 * 4 * 60 + 2 * 4 * 12);
}

TEST_CASE("lapjv: large entries neither crash nor overflow, out-of-bound entries are refused", "[lap]") {
  // AVN benefits reach N / hosts (mesh4 on 2 hosts: 144824), above the reference's BIG = 100000 at which
  // it crashes (collective-io-notes §2.2). Here far larger values are solved exactly.
  Rng rng{7};
  for (int n : {2, 3, 5, 8}) {
    Matrix b(n);
    for (Cost& x : b.a) x = 100000 + rng.below(Cost{1} << 40);
    const Assignment a = lapjv_max(b);
    CHECK(a.total == brute_force_max(b));
  }
  Matrix huge(3, 1);
  huge.at(1, 2) = max_cost_magnitude(3);
  CHECK(lapjv_max(huge).total == max_cost_magnitude(3) + 2);
  huge.at(0, 0) = max_cost_magnitude(3) + 1;
  CHECK_THROWS_WITH(lapjv_max(huge), Catch::Contains("exceeds the bound"));
  CHECK_THROWS_WITH(lapjv_min(Matrix(0)), Catch::Contains("at least 1 x 1"));
  Matrix bad(2);
  bad.a.pop_back();
  CHECK_THROWS_WITH(lapjv_min(bad), Catch::Contains("needs 4 entries"));
}

TEST_CASE("lapjv: ties are broken as the reference's loop orders break them", "[lap]") {
  // Hand-traced through the 1996 implementation's steps (collective-io-notes §2.2: the assignment under
  // ties decides the aggregators). 2x2 zeros: column reduction scans column 1 then 0, row 0 takes
  // column 1 (first row of least cost) and is chosen again for column 0; row 1 is free, and the
  // augmenting row reduction gives it column 0 (its first minimum, unassigned).
  CHECK(lapjv_min(Matrix(2, 0)).row_sol == std::vector<int>{1, 0});
  // 3x3 zeros: row 0 takes column 2; rows 1 and 2 are free. Row 1 takes column 0 (unassigned first
  // minimum); row 2's first minimum, column 0, is taken and ties with column 1, so it takes column 1.
  CHECK(lapjv_min(Matrix(3, 0)).row_sol == std::vector<int>{2, 0, 1});
  // A solver scanning in natural order would return the identity on both.
  CHECK(lapjv_max(Matrix(4, 7)).total == 28);
}
