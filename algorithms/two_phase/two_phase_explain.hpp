// The plan of one two-phase collective write (ROMIO's extended two-phase method) for every rank at once,
// without a Process: which ranks aggregate, their file domains, how many rounds each needs, and the
// pieces each rank sends to each aggregator in each round. Built from the same functions the technique
// runs (cb_config_ranklist, file_access, interleave_count, calc_file_domains, calc_my_req, data_extent,
// walk_window), for `ciosim plan SCENARIO` and the docs' walk-through.
// Thakur, Choudhary, "An Extended Two-Phase Method for Accessing Sections of Out-of-Core Arrays",
// Scientific Programming 5(4), 1996; Thakur, Gropp, Lusk, "Data Sieving and Collective I/O in ROMIO",
// Frontiers '99.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/technique.hpp"
#include "algorithms/two_phase/two_phase.hpp"

namespace ciosim::two_phase {

/// What one sender contributes to one aggregator's round.
struct RoundShare {
  int sender = 0;
  std::int64_t pieces = 0;  ///< offset-length pieces (the last one maybe partial)
  std::int64_t bytes = 0;
};

/// One round of one aggregator: the window [offset, offset + size) of its file domain.
struct Round {
  Offset offset = 0;
  Offset size = 0;
  std::vector<RoundShare> senders;  ///< ranks with pieces in this window, in rank order
};

struct AggregatorPlan {
  int rank = 0;              ///< the aggregator's rank (ranklist[index])
  Offset domain_start = -1;  ///< its file domain, bytes, inclusive; -1 when empty
  Offset domain_end = -1;
  Offset data_start = -1;  ///< st_loc..end_loc: the bytes requested inside the domain
  Offset data_end = -1;
  std::vector<Round> rounds;  ///< ntimes rounds of at most cb_buffer_size bytes
};

struct RankAccess {
  Offset start = 0;  ///< first byte the rank writes
  Offset end = -1;   ///< last byte it writes
  std::int64_t pieces = 0;
  Offset bytes = 0;
};

struct WritePlan {
  std::vector<std::string> hosts;  ///< each rank's processor name, as given
  std::vector<int> ranklist;       ///< aggregators in file-domain order (cb_config_list, cb_nodes)
  std::vector<RankAccess> access;  ///< per rank
  int interleaved = 0;             ///< interleave_count of the start/end offsets
  bool collective = true;          ///< false: romio_cb_write sent every rank to independent I/O
  Offset fd_size = 0;
  std::vector<AggregatorPlan> aggregators;  ///< per file domain
  /// pieces[s][k]: pieces rank s sends the aggregator of domain k (its my_req count, before rounds cut them)
  std::vector<std::vector<std::int64_t>> pieces;
  int max_rounds = 0;  ///< the allreduce'd ntimes every rank loops over
};

/// The plan of one MPI_File_write_all of distribution `d` with `hints` on ranks whose processor names are
/// `hosts` (index = rank). Throws std::invalid_argument as the technique would (bad hints, no aggregator).
WritePlan plan_write(const Distribution& d, std::int64_t element_size, const IoHints& hints,
                     const std::vector<std::string>& hosts);

}  // namespace ciosim::two_phase
