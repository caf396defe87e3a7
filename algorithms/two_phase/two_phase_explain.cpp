// The plan of one two-phase collective write for every rank at once (two_phase_explain.hpp). Every number
// comes from the functions the technique itself runs on each rank; only the message passing between them
// (the Allgathers of start/end offsets, the Alltoall of counts that turns my_req into others_req) is done
// here by indexing, in the order the technique's steps 1-7 do it (two_phase_common.cpp,
// two_phase_write.cpp).
// Thakur, Choudhary, "An Extended Two-Phase Method for Accessing Sections of Out-of-Core Arrays",
// Scientific Programming 5(4), 1996.
#include "algorithms/two_phase/two_phase_explain.hpp"

#include <algorithm>
#include <stdexcept>

#include "algorithms/two_phase/cb_config_list.hpp"
#include "algorithms/two_phase/two_phase_internal.hpp"

namespace ciosim::two_phase {

using namespace detail;

WritePlan plan_write(const Distribution& d, std::int64_t element_size, const IoHints& hints,
                     const std::vector<std::string>& hosts) {
  check_hints(hints);
  const int P = d.nprocs();
  const auto n = static_cast<std::size_t>(P);
  if (hosts.size() != n) throw std::invalid_argument("two-phase plan: one host name per rank is needed");
  WritePlan plan;
  plan.hosts = hosts;
  plan.ranklist = cb_config_ranklist(hints.cb_config_list, hosts, hints.cb_nodes);  // at the open
  if (plan.ranklist.empty())
    throw std::invalid_argument("hints.cb_config_list \"" + hints.cb_config_list +
                                "\" selects no aggregator on this platform's hosts (e.g. " + hosts.front() +
                                ")");

  // Step 1: each rank's access; step 2: the Allgathers of start and end offsets and the interleave test.
  std::vector<AccessList> access;
  std::vector<Offset> st(n), end(n);
  for (std::size_t r = 0; r < n; ++r) {
    access.push_back(file_access(d.per_rank[r], element_size));
    st[r] = access[r].start;
    end[r] = access[r].end;
    plan.access.push_back(RankAccess{access[r].start, access[r].end, access[r].count(), access[r].bytes});
  }
  plan.interleaved = interleave_count(st, end);
  if (hints.cb_write == CbMode::Disable || (hints.cb_write == CbMode::Automatic && plan.interleaved == 0)) {
    plan.collective = false;  // every rank writes its own pieces (independent I/O)
    return plan;
  }

  // Step 3: file domains; step 4: my_req on every rank; step 5: others_req, the transposition.
  const FileDomains fd =
      calc_file_domains(st, end, static_cast<int>(plan.ranklist.size()), 0, domain_alignment(hints));
  plan.fd_size = fd.fd_size;
  std::vector<MyReq> my;
  for (std::size_t r = 0; r < n; ++r) {
    my.push_back(calc_my_req(access[r], fd, plan.ranklist, P));
    auto& row = plan.pieces.emplace_back();
    for (int a : plan.ranklist) row.push_back(my[r].count[static_cast<std::size_t>(a)]);
  }
  std::vector<OthersReq> others(n);
  for (std::size_t a = 0; a < n; ++a) {
    others[a].count.assign(n, 0);
    others[a].pairs.resize(n);
    for (std::size_t s = 0; s < n; ++s) {
      others[a].count[s] = my[s].count[a];
      others[a].pairs[s] = my[s].pairs[a];
      if (others[a].count[s] > 0) ++others[a].procs;
    }
  }

  // Steps 6-7: each aggregator's data extent, its rounds of cb_buffer_size bytes and, per round, the
  // pieces and bytes each sender puts in the window (the walk ADIOI_Exch_and_write does before exchanging).
  for (std::size_t k = 0; k < plan.ranklist.size(); ++k) {
    AggregatorPlan ag;
    ag.rank = plan.ranklist[k];
    ag.domain_start = fd.start[k];
    ag.domain_end = fd.end[k];
    const auto a = static_cast<std::size_t>(ag.rank);
    OthersReq& o = others[a];
    const DataExtent ext = data_extent(o, hints.cb_buffer_size);
    ag.data_start = ext.st_loc;
    ag.data_end = ext.end_loc;
    Cursor cur(n);
    Offset off = ext.st_loc;
    Offset done = 0;
    for (int m = 0; m < ext.ntimes; ++m) {
      const Offset size = std::min(hints.cb_buffer_size, ext.end_loc - ext.st_loc + 1 - done);
      walk_window(o, cur, off, size);
      Round round{off, size, {}};
      for (std::size_t s = 0; s < n; ++s)
        if (cur.count[s] > 0)
          round.senders.push_back(RoundShare{static_cast<int>(s), cur.count[s], cur.bytes[s]});
      ag.rounds.push_back(std::move(round));
      off += size;
      done += size;
    }
    plan.max_rounds = std::max(plan.max_rounds, ext.ntimes);
    plan.aggregators.push_back(std::move(ag));
  }
  return plan;
}

}  // namespace ciosim::two_phase
