// ciosim_lap_locality: where the data of one two-phase write of the BIPS3D mesh kernel goes, per
// aggregator choice (ROMIO's default, ACN, AVN), computed from a partition file without simulating.
//
// The simulator's results count every payload byte and every Isend, a rank's sends to itself included
// (ROMIO posts those too), so they cannot tell data kept local from data moved between ranks. This tool
// recomputes the two-phase geometry for one rank per host: the LAP choice with the library's own
// functions (make_intervals, interval_counts, benefit_matrix, choose: the same solver and tie rules as a
// run), ROMIO's file domains (ceiling split of the N * load * element_size bytes, no striping alignment,
// domain k aggregated by ranklist[k]), the rounds of cb_buffer_size bytes in each domain, and then per
// write_all call:
//   local bytes    bytes of each domain owned by the domain's own aggregator (they never leave the rank)
//   remote bytes   all other bytes (sent from their owner to the aggregator)
//   meta msgs      offset-length messages (one per rank and aggregator it has data for, self included)
//   data msgs      data messages (one per sender, aggregator and round with data, self included)
//   remote msgs    the data and metadata messages between different ranks
// Check against a run: 5 * (meta msgs + data msgs) must equal the run's `Isend` count (5 iterations).
//
// Usage: ciosim_lap_locality PARTITION_FILE RANKS LOAD [ELEMENT_SIZE=4] [CB_BUFFER_SIZE=16777216]
// One line per criterion (none, acn, avn), tab-separated, with a header.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "algorithms/lap/aggregation_interval.hpp"

namespace {

using ciosim::LapCriterion;
using ciosim::lap::Block;

struct Stats {
  std::int64_t local_bytes = 0;
  std::int64_t remote_bytes = 0;
  std::int64_t meta_msgs = 0;
  std::int64_t data_msgs = 0;
  std::int64_t remote_msgs = 0;
  std::int64_t local_nodes_in_intervals = 0;  // nodes of interval k owned by its host (the worked example's)
};

Stats measure(const std::vector<int>& owner, int P, std::int64_t item_bytes, std::int64_t cb,
              const std::vector<int>& ranklist, const ciosim::lap::Intervals& iv) {
  Stats s;
  const auto N = static_cast<std::int64_t>(owner.size());
  const std::int64_t total = N * item_bytes;
  const std::int64_t fd = (total + P - 1) / P;
  for (int k = 0; k < P; ++k) {
    for (std::int64_t i = iv.begin[static_cast<std::size_t>(k)]; i <= iv.end[static_cast<std::size_t>(k)];
         ++i)
      if (owner[static_cast<std::size_t>(i)] == ranklist[static_cast<std::size_t>(k)])
        ++s.local_nodes_in_intervals;
    const std::int64_t lo = static_cast<std::int64_t>(k) * fd;
    const std::int64_t hi = std::min(lo + fd, total);  // exclusive
    if (lo >= hi) continue;
    const int agg = ranklist[static_cast<std::size_t>(k)];
    std::vector<char> has_meta(static_cast<std::size_t>(P), 0);
    for (std::int64_t w = lo; w < hi; w += cb) {
      const std::int64_t whi = std::min(w + cb, hi);
      std::vector<char> has_data(static_cast<std::size_t>(P), 0);
      for (std::int64_t node = w / item_bytes; node * item_bytes < whi; ++node) {
        const std::int64_t a = std::max(w, node * item_bytes);
        const std::int64_t b = std::min(whi, (node + 1) * item_bytes);
        if (b <= a) continue;
        const int r = owner[static_cast<std::size_t>(node)];
        has_data[static_cast<std::size_t>(r)] = 1;
        has_meta[static_cast<std::size_t>(r)] = 1;
        (r == agg ? s.local_bytes : s.remote_bytes) += b - a;
      }
      for (int r = 0; r < P; ++r)
        if (has_data[static_cast<std::size_t>(r)]) {
          ++s.data_msgs;
          if (r != agg) ++s.remote_msgs;
        }
    }
    for (int r = 0; r < P; ++r)
      if (has_meta[static_cast<std::size_t>(r)]) {
        ++s.meta_msgs;
        if (r != agg) ++s.remote_msgs;
      }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: ciosim_lap_locality PARTITION_FILE RANKS LOAD [ELEMENT_SIZE=4] [CB_BUFFER_SIZE]\n";
    return 2;
  }
  const int P = std::stoi(argv[2]);
  const std::int64_t load = std::stoll(argv[3]);
  const std::int64_t esize = argc > 4 ? std::stoll(argv[4]) : 4;
  const std::int64_t cb = argc > 5 ? std::stoll(argv[5]) : 16777216;
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::vector<int> owner;
  for (int r = 0; in >> r;) {
    if (r < 0 || r >= P) {
      std::cerr << argv[1] << ": rank " << r << " out of [0, " << P << ") at node " << owner.size() << "\n";
      return 2;
    }
    owner.push_back(r);
  }
  const auto N = static_cast<std::int64_t>(owner.size());
  // Each rank's maximal runs of consecutive owned nodes (its file view's blocks, in items).
  std::vector<std::vector<Block>> blocks(static_cast<std::size_t>(P));
  for (std::int64_t i = 0; i < N; ++i) {
    auto& b = blocks[static_cast<std::size_t>(owner[static_cast<std::size_t>(i)])];
    if (!b.empty() && b.back().start + b.back().length == i)
      ++b.back().length;
    else
      b.push_back(Block{i, 1});
  }
  const ciosim::lap::Intervals iv = ciosim::lap::make_intervals(N, P);
  std::vector<std::string> names;
  for (int r = 0; r < P; ++r) names.push_back("node-" + std::to_string(r));
  const ciosim::lap::Hosts hosts = ciosim::lap::group_hosts(names);

  std::cout << "lap\tlocal_bytes\tremote_bytes\tlocal_fraction\tmeta_msgs\tdata_msgs\tremote_msgs\t"
               "local_nodes_in_intervals\tranklist\n";
  for (const LapCriterion c : {LapCriterion::None, LapCriterion::Acn, LapCriterion::Avn}) {
    std::vector<int> ranklist(static_cast<std::size_t>(P));
    const char* name = "none";
    if (c == LapCriterion::None) {
      for (int k = 0; k < P; ++k) ranklist[static_cast<std::size_t>(k)] = k;
    } else {
      name = c == LapCriterion::Acn ? "acn" : "avn";
      std::vector<std::vector<std::int64_t>> counts;
      for (int r = 0; r < P; ++r)
        counts.push_back(ciosim::lap::interval_counts(blocks[static_cast<std::size_t>(r)], iv, c));
      ranklist = ciosim::lap::choose(hosts, ciosim::lap::benefit_matrix(hosts, counts)).ranklist;
    }
    const Stats s = measure(owner, P, load * esize, cb, ranklist, iv);
    std::cout << name << '\t' << s.local_bytes << '\t' << s.remote_bytes << '\t'
              << static_cast<double>(s.local_bytes) / static_cast<double>(s.local_bytes + s.remote_bytes)
              << '\t' << s.meta_msgs << '\t' << s.data_msgs << '\t' << s.remote_msgs << '\t'
              << s.local_nodes_in_intervals << '\t';
    for (int k = 0; k < P; ++k) std::cout << (k ? "," : "") << ranklist[static_cast<std::size_t>(k)];
    std::cout << '\n';
  }
  return 0;
}
