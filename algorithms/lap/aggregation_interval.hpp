// LAP aggregator assignment for two-phase collective I/O (LATP: ACN and AVN):
// R. Filgueira, D. E. Singh, J. C. Pichel, F. Isaila, J. Carretero, "Data Locality Aware Strategy for
// Two-Phase Collective I/O", VECPAR 2008, LNCS 5336 (2009).
//
// The steps of the reference code's aggregation_interval (repository rosafilgueira/
// Optimization_CollectiveIO_MPI, aggregator_pattern.c; described in docs/two-phase.md, "LAP aggregator
// assignment"; reimplemented, no code copied), run through the Process seam as that code runs them on MPI:
// gather the processor names; group ranks into hosts; one interval per host over the N items (mesh nodes),
// the last absorbing the remainder; each rank's count per interval (ACN: contiguous pieces, AVN: items);
// the counts to rank 0 point-to-point; the host x interval benefit matrix; LAPJV; broadcast of the rank
// list and of the cb_config_list string "host_of_interval_0,host_of_interval_1,...". Two-phase then opens
// the file with that cb_config_list, so file domain k is aggregated by the host chosen for interval k.
//
// Where ROMIO's file domains differ from the intervals: ROMIO splits the accessed byte range with a
// ceiling size (the last domain short), the intervals use floor(N / hosts) items (the last one long). They
// coincide exactly when the hosts divide N (and the accessed range is the whole file); otherwise domain k
// is shifted against interval k by up to k * item bytes, and the last domain is the shorter.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/lap/lapjv.hpp"
#include "algorithms/two_phase/hints.hpp"

namespace ciosim::lap {

/// cnodes intervals over [0, N) items, inclusive ends: floor(N / cnodes) items each, the last up to N-1.
struct Intervals {
  std::int64_t size = 0;  ///< floor(N / cnodes)
  std::vector<std::int64_t> begin;
  std::vector<std::int64_t> end;
};

/// Throws std::invalid_argument when count < 1 or n_items < count (an interval would be empty and the
/// reference divides by zero).
Intervals make_intervals(std::int64_t n_items, int count);

/// A maximal run of consecutive items a rank holds (the reference's Ds[i] = start, Bl[i] = length).
struct Block {
  std::int64_t start = 0;
  std::int64_t length = 0;
};

/// The rank's blocks in items: its entries (dt, in entries) sorted by position and merged into maximal
/// runs, divided by `unit`. Throws std::invalid_argument when a run is not a whole number of items.
std::vector<Block> item_blocks(const Datatype& dt, std::int64_t unit);

/// Step 5: the rank's count per interval. Each block is split at interval ends; each piece adds 1 (ACN)
/// or its length (AVN) to its interval. A piece starting past cnodes*size (possible when the last interval
/// absorbs a remainder) is counted in the last interval, where the reference reads past its array.
std::vector<std::int64_t> interval_counts(std::span<const Block> blocks, const Intervals& iv, LapCriterion c);

/// Ranks grouped by identical processor name: host h = the h-th distinct name in rank order; ranks[h]
/// its ranks in increasing order.
struct Hosts {
  std::vector<std::string> names;
  std::vector<std::vector<int>> ranks;
};
Hosts group_hosts(const std::vector<std::string>& procnames);

/// Step 7: W[host][interval] = sum over the host's ranks of their counts (counts[rank][interval]).
Matrix benefit_matrix(const Hosts& hosts, const std::vector<std::vector<std::int64_t>>& counts);

/// Steps 8-10 on rank 0.
struct Choice {
  std::vector<int> interval_host;  ///< host chosen for each interval (LAPJV's col_sol of -W)
  std::vector<int> ranklist;       ///< the lowest rank of that host, per interval
  std::string cb_config_list;      ///< the host names in interval order, comma-separated
  std::int64_t solver_steps = 0;   ///< LAPJV's inner-loop steps (charged as CPU work)
};
Choice choose(const Hosts& hosts, const Matrix& benefit);

/// The whole of aggregation_interval on every rank through `p` (MPI calls: Gather, Gatherv, Bcast of the
/// host count, P-1 Send/Recv of the counts (4-byte ints, tag 1), Bcast of the rank list, of the string's
/// buffer length and of the string). `dt` is the rank's entries, `unit` the entries per item, `n_items` N.
/// Returns the choice on every rank (interval_host significant at rank 0 only). Throws
/// std::invalid_argument when the criterion is None, when there are fewer items than hosts, when a count
/// exceeds the reference's int, or when the string exceeds MPI_MAX_INFO_VAL (1024) characters.
Choice aggregation_interval(Process& p, const Datatype& dt, std::int64_t unit, std::int64_t n_items,
                            LapCriterion c);

}  // namespace ciosim::lap
