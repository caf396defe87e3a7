// ROMIO's choice of aggregators (the cb_config_list hint), reimplemented from the description in
// docs/two-phase.md, "Aggregators", and checked against ROMIO's adio/common/cb_config_list.c:
// a comma-separated list of `host[:n]` items (`*` = any host, `n` may be `*`); each item appends the
// lowest-ranked unused processes of a host to the rank list and retires that host; "*:*" means ranks
// 0..cb_nodes-1. The list is parsed on rank 0 after MPI_File_open gathers the processor names, and the
// result is broadcast (ROMIO adio/common/ad_open.c, build_cb_config_list).
#pragma once

#include <string>
#include <vector>

#include "algorithms/common/process.hpp"
#include "algorithms/two_phase/hints.hpp"

namespace ciosim {

struct CbConfigItem {
  std::string host;        ///< "" for the wildcard `*`
  int max_procs = 1;       ///< processes taken from each matching host
  bool all_procs = false;  ///< `:*` (as many as cb_nodes)
};

/// Parses a cb_config_list. Throws std::invalid_argument with a one-line reason on a malformed list
/// (ROMIO prints "error parsing config list" and keeps what it had; we refuse it instead).
std::vector<CbConfigItem> parse_cb_config_list(const std::string& list);

/// The aggregator ranks (ranklist) ROMIO derives from `list` for processes whose processor names are
/// `procnames` (index = rank), with the cb_nodes hint `cb_nodes` (0 = unset, i.e. nprocs; capped at
/// nprocs). The order is the file-domain order. May be empty when no host matches.
std::vector<int> cb_config_ranklist(const std::string& list, const std::vector<std::string>& procnames,
                                    int cb_nodes);

/// ROMIO's ADIOI_cb_gather_name_array: MPI_Gather of the processor-name lengths (4-byte ints) and
/// MPI_Gatherv of the names (with their terminating NUL) to rank 0. Returns the names (index = rank) on
/// rank 0, nothing elsewhere.
std::vector<std::string> gather_processor_names(Process& p);

/// ROMIO's parse on rank 0 and ADIOI_cb_bcast_rank_map: rank 0 derives the rank list from `names` (as
/// gathered, significant at rank 0 only); MPI_Bcast of cb_nodes (4 bytes) and, when it is > 0, of the rank
/// list (4 bytes each). Returns the rank list on every rank; throws std::invalid_argument when it is empty.
std::vector<int> bcast_rank_map(Process& p, const IoHints& hints, const std::vector<std::string>& names);

/// The processor names as ROMIO's open finds them: gather_processor_names at the first open on the
/// communicator, then the names it cached there as an attribute (Process::attribute), with no MPI call.
const std::vector<std::string>& processor_names(Process& p);

/// What ROMIO does for the aggregators at every MPI_File_open: bcast_rank_map from processor_names.
std::vector<int> select_aggregators(Process& p, const IoHints& hints);

}  // namespace ciosim
