#include "algorithms/common/folding.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace ciosim::folding {

namespace {

double put(const Rect& r, std::vector<Rect>* out) {
  if (out != nullptr) out->push_back(r);
  return 1;
}

/// [o, o + len): the rest of its first row, whole rows, the start of its last row.
double interval(std::int64_t o, std::int64_t len, std::int64_t S, std::vector<Rect>* out) {
  const std::int64_t q = o / S, a = o % S;
  if (a + len <= S) return put({a, a + len, q, q + 1}, out);
  const std::int64_t end = o + len, qe = end / S, rem = end % S;
  return put({a, S, q, q + 1}, out) + (qe > q + 1 ? put({0, S, q + 1, qe}, out) : 0) +
         (rem > 0 ? put({0, rem, qe, qe + 1}, out) : 0);
}

/// [o + j*S, o + j*S + len) for j < c, len <= S: the same residues in c consecutive rows, in two pieces when
/// they wrap around the end of a row.
double progression(std::int64_t o, std::int64_t len, std::int64_t c, std::int64_t S, std::vector<Rect>* out) {
  const std::int64_t q = o / S, a = o % S;
  if (a + len <= S) return put({a, a + len, q, q + c}, out);
  return put({a, S, q, q + c}, out) + put({0, a + len - S, q + 1, q + c + 1}, out);
}

}  // namespace

double fold(const Datatype& dt, std::int64_t S, std::int64_t nx, std::vector<Rect>* out) {
  double n = 0;
  for (const Tuple& t : dt.tuples) {
    if (t.length <= 0) continue;
    if (dt.count == 1 || dt.stride == 0) {  // stride 0: every replica in the same place
      const std::int64_t copies = std::min<std::int64_t>(dt.count, 2);
      for (std::int64_t j = 0; j < copies; ++j) n += interval(t.offset, t.length, S, out);
    } else if ((dt.stride == S || dt.stride == -S) && t.length <= S) {
      n += progression(dt.stride > 0 ? t.offset : t.offset + (dt.count - 1) * dt.stride, t.length, dt.count,
                       S, out);
    } else if (out == nullptr) {
      n += static_cast<double>(dt.count) * (S >= nx ? 1 : t.length < S ? 2 : 3);
    } else {
      for (std::int64_t j = 0; j < dt.count; ++j) n += interval(t.offset + j * dt.stride, t.length, S, out);
    }
  }
  return n;
}

std::int64_t best_period(const Distribution& d, double& rects) {
  std::map<std::int64_t, double> weight;  // |stride| -> replicas of tuples that share it
  for (const Datatype& dt : d.per_rank)
    if (dt.count > 1 && dt.stride != 0)
      weight[dt.stride < 0 ? -dt.stride : dt.stride] +=
          static_cast<double>(dt.count) * static_cast<double>(dt.tuples.size());
  std::vector<std::pair<double, std::int64_t>> by_weight;
  for (const auto& sw : weight) by_weight.emplace_back(-sw.second, sw.first);
  std::sort(by_weight.begin(), by_weight.end());
  auto count = [&](std::int64_t S) {
    double n = 0;
    for (const Datatype& dt : d.per_rank) n += fold(dt, S, d.nx, nullptr);
    return n;
  };
  // Rows of Nx: one rectangle per replica of every tuple (an upper bound: empty tuples count too), summed
  // per rank rather than per tuple (the irregular workload has about as many tuples as entries).
  double plain = 0;
  for (const Datatype& dt : d.per_rank)
    plain += static_cast<double>(dt.tuples.size()) *
             static_cast<double>(dt.stride == 0 ? std::min<std::int64_t>(dt.count, 2) : dt.count);
  std::int64_t best = d.nx;
  rects = plain;
  for (std::size_t i = 0; i < by_weight.size() && i < 3; ++i) {  // the few most used strides
    const std::int64_t S = by_weight[i].second;
    if (S >= d.nx) continue;
    // Folded rows are swept segment by segment (costlier per rectangle than one sort): fold only when
    // that at least halves the rectangles.
    if (const double n = count(S); n < rects && 2 * n <= plain) best = S, rects = n;
  }
  return best;
}

std::int64_t below(const Rect& r, std::int64_t S, std::int64_t x) {
  const std::int64_t q = x / S, a = x % S, w = r.a1 - r.a0;
  std::int64_t n = (std::clamp(q, r.q0, r.q1) - r.q0) * w;
  if (q >= r.q0 && q < r.q1) n += std::clamp(a - r.a0, std::int64_t{0}, w);
  return n;
}

void merge(std::vector<Rect>& rs) {
  if (rs.size() < 2) return;
  auto pass = [&rs](auto key, auto touches, auto join) {
    std::sort(rs.begin(), rs.end(), [&](const Rect& x, const Rect& y) { return key(x) < key(y); });
    std::size_t out = 0;
    for (std::size_t i = 1; i < rs.size(); ++i) {
      if (touches(rs[out], rs[i]))
        join(rs[out], rs[i]);
      else
        rs[++out] = rs[i];
    }
    rs.resize(out + 1);
  };
  // Along rows: same rows, residues end to end.
  pass([](const Rect& r) { return std::tie(r.q0, r.q1, r.a0, r.a1); },
       [](const Rect& x, const Rect& y) { return x.q0 == y.q0 && x.q1 == y.q1 && x.a1 == y.a0; },
       [](Rect& x, const Rect& y) { x.a1 = y.a1; });
  // Across rows: same residues, rows end to end.
  pass([](const Rect& r) { return std::tie(r.a0, r.a1, r.q0, r.q1); },
       [](const Rect& x, const Rect& y) { return x.a0 == y.a0 && x.a1 == y.a1 && x.q1 == y.q0; },
       [](Rect& x, const Rect& y) { x.q1 = y.q1; });
}

}  // namespace ciosim::folding
