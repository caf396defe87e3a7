// A captured application's calls as a call-by-call replay (config/trace_replay.hpp).
#include "config/trace_replay.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

#include "algorithms/common/distribution.hpp"
#include "config/capture_trace.hpp"

namespace ciosim::config {

namespace {

/// A collective call of one rank, in its order.
struct Collective {
  ReplayKind kind = ReplayKind::Open;
  std::string name;              ///< "open", "close", "sync", or the data call's
  std::vector<ByteRun> regions;  ///< a data call's file bytes
  bool view_set = false;
  std::size_t action = 0;  ///< its index in the rank's actions
};

bool is_collective_data(const std::string& kind) {
  return kind == "write_all" || kind == "write_at_all" || kind == "read_all" || kind == "read_at_all";
}

bool is_independent_data(const std::string& kind) {
  return kind == "write" || kind == "write_at" || kind == "read" || kind == "read_at";
}

[[noreturn]] void refuse(const std::string& what) {
  throw std::invalid_argument(what);
}

/// Rank r's actions on the replayed file, and its collective calls in order.
void walk_rank(const std::vector<CapturedCall>& calls, int r, std::string& path,
               std::vector<ReplayAction>& actions, std::vector<Collective>& coll) {
  const std::string who = "rank " + std::to_string(r);
  std::map<int, bool> ours;  // file handle -> it is the replayed file
  bool open = false;
  bool view_set = false;
  double last_end = -1;  // end of the rank's last call on the file (-1: none yet)
  double gap = 0;        // computation since then, not yet emitted
  for (const CapturedCall& c : calls) {
    if (c.kind == "unsupported")
      refuse(who + " made " + c.call +
             ", which ciosim cannot replay (see docs/replay.md, \"What is recorded\")");
    if (c.kind == "open") {
      if (path.empty()) path = c.path;
      ours[c.fh] = c.path == path;
    }
    const auto it = ours.find(c.fh);
    if (it == ours.end() || !it->second) continue;  // another file: its time is the application's
    if (last_end >= 0) gap += std::max(0.0, c.start - last_end);
    last_end = std::max(last_end, c.end);
    const std::string call = who + "'s " + c.kind + " on " + path;
    if (c.kind == "open") {
      if (open) refuse(call + " while it is already open (a replay opens one file at a time)");
      open = true;
    } else if (!open) {
      refuse(call + " before its open");
    }
    if (c.kind == "view") {
      view_set = true;
      continue;
    }
    if (c.kind == "seek") continue;  // the data calls carry their file bytes
    const bool independent = is_independent_data(c.kind);
    if (independent && c.regions.empty()) continue;  // a call of no bytes
    if (gap > 0) {
      ReplayAction compute;
      compute.kind = ReplayKind::Compute;
      compute.seconds = gap;
      actions.push_back(std::move(compute));
    }
    gap = 0;
    ReplayAction a;
    if (independent) {
      a.kind = c.kind.rfind("write", 0) == 0 ? ReplayKind::IndependentWrite : ReplayKind::IndependentRead;
      for (const ByteRun& b : c.regions) a.runs.push_back(Extent{b.offset, b.length});
      actions.push_back(std::move(a));
      continue;
    }
    Collective k;
    k.name = c.kind;
    if (c.kind == "open") {
      k.kind = ReplayKind::Open;
    } else if (c.kind == "close") {
      k.kind = ReplayKind::Close;
      open = false;
    } else if (c.kind == "sync") {
      k.kind = ReplayKind::Sync;
    } else if (is_collective_data(c.kind)) {
      k.kind = ReplayKind::Collective;
      k.regions = c.regions;
      k.view_set = view_set;
      view_set = false;
    } else {
      refuse(call + ": a call a replay does not know");
    }
    a.kind = k.kind;
    k.action = actions.size();
    actions.push_back(std::move(a));
    coll.push_back(std::move(k));
  }
  if (open) refuse(who + " never closes " + path + " (MPI_File_close before MPI_Finalize)");
}

}  // namespace

Replay replay_from_capture(const std::string& dir, int ranks, std::int64_t es) {
  if (dir.empty())
    throw std::invalid_argument("workload trace needs workload.file (a capture folder of ciosim capture)");
  const CapturedTrace t = read_capture(dir);
  if (t.ranks != ranks)
    refuse("the capture " + dir + " has " + std::to_string(t.ranks) + " ranks but run.ranks = " +
           std::to_string(ranks) + " (set run.ranks = " + std::to_string(t.ranks) + ")");
  Replay rep;
  rep.element_size = es;
  rep.ranks.resize(static_cast<std::size_t>(ranks));
  std::vector<std::vector<Collective>> coll(static_cast<std::size_t>(ranks));
  std::string path;
  for (int r = 0; r < ranks; ++r) {
    std::string mine;  // each rank names the file its own first open names; they must agree
    walk_rank(t.calls[static_cast<std::size_t>(r)], r, mine, rep.ranks[static_cast<std::size_t>(r)],
              coll[static_cast<std::size_t>(r)]);
    if (r == 0) path = mine;
    if (mine != path)
      refuse("rank " + std::to_string(r) + " first opens " + (mine.empty() ? "no file" : "\"" + mine + "\"") +
             ", rank 0 \"" + path + "\"; a replay takes the file every rank opens first");
  }
  // Every rank makes the same collective calls in the same order.
  const std::vector<Collective>& c0 = coll.front();
  for (int r = 1; r < ranks; ++r) {
    const std::vector<Collective>& cr = coll[static_cast<std::size_t>(r)];
    for (std::size_t k = 0; k < std::max(c0.size(), cr.size()); ++k) {
      const std::string a = k < c0.size() ? c0[k].name : "nothing";
      const std::string b = k < cr.size() ? cr[k].name : "nothing";
      if (a != b)
        refuse("rank " + std::to_string(r) + "'s collective call " + std::to_string(k + 1) + " on " + path +
               " is " + b + ", rank 0's " + a + "; every rank makes the same collective calls in order");
    }
  }
  // Whole entries, for every region of every call.
  std::int64_t unit = 0;
  for (const auto& actions : rep.ranks)
    for (const ReplayAction& a : actions)
      for (const Extent& e : a.runs) unit = std::gcd(unit, std::gcd(e.offset, e.length));
  for (const auto& cr : coll)
    for (const Collective& k : cr)
      for (const ByteRun& b : k.regions) unit = std::gcd(unit, std::gcd(b.offset, b.length));
  if (unit == 0) refuse("the capture " + dir + " writes and reads nothing on " + path);
  if (unit % es != 0)
    refuse("the capture's regions are not whole entries of workload.element_size = " + std::to_string(es) +
           " bytes; use an element size dividing " + std::to_string(unit));
  // Each collective data call: its range, its shape over the ranks.
  std::vector<std::vector<std::vector<Tuple>>> shape_lists;  // rep.shapes' lists, to find a shape again
  std::vector<char> dropped(c0.size(), 0);
  for (std::size_t k = 0; k < c0.size(); ++k) {
    if (c0[k].kind != ReplayKind::Collective) continue;
    std::int64_t a = INT64_MAX, b = 0;
    for (const auto& cr : coll)
      for (const ByteRun& run : cr[k].regions)
        a = std::min(a, run.offset), b = std::max(b, run.offset + run.length);
    if (a == INT64_MAX) {  // no rank accesses a byte: nothing to replay
      dropped[k] = 1;
      continue;
    }
    std::vector<std::vector<Tuple>> lists(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      auto& out = lists[static_cast<std::size_t>(r)];
      for (const ByteRun& run : coll[static_cast<std::size_t>(r)][k].regions) {
        const Tuple tu{(run.offset - a) / es, run.length / es};
        if (!out.empty() && out.back().offset + out.back().length == tu.offset)
          out.back().length += tu.length;
        else
          out.push_back(tu);
      }
    }
    ReplayStep st;
    st.name = c0[k].name;
    st.write = st.name.rfind("write", 0) == 0;
    st.position = a;
    st.view_set = c0[k].view_set;
    const auto same = std::find(shape_lists.begin(), shape_lists.end(), lists);
    if (same != shape_lists.end()) {
      st.shape = static_cast<int>(same - shape_lists.begin());
    } else {
      try {
        rep.shapes.push_back(from_lists((b - a) / es, lists));
      } catch (const std::invalid_argument& e) {
        refuse("collective call " + std::to_string(k + 1) + " (" + st.name + ") on " + path +
               ": the ranks' regions must cover bytes [" + std::to_string(a) + ", " + std::to_string(b) +
               ") once each, as one collective call of x does: " + e.what());
      }
      st.shape = static_cast<int>(shape_lists.size());
      shape_lists.push_back(std::move(lists));
    }
    for (int r = 0; r < ranks; ++r)
      rep.ranks[static_cast<std::size_t>(r)][coll[static_cast<std::size_t>(r)][k].action].step =
          static_cast<std::int64_t>(rep.steps.size());
    rep.steps.push_back(std::move(st));
  }
  // The calls of no bytes on every rank go (they would only synchronize the ranks).
  for (int r = 0; r < ranks; ++r) {
    auto& actions = rep.ranks[static_cast<std::size_t>(r)];
    std::vector<char> gone(actions.size(), 0);
    for (std::size_t k = 0; k < c0.size(); ++k)
      if (dropped[k]) gone[coll[static_cast<std::size_t>(r)][k].action] = 1;
    std::vector<ReplayAction> kept;
    for (std::size_t i = 0; i < actions.size(); ++i)
      if (!gone[i]) kept.push_back(std::move(actions[i]));
    actions = std::move(kept);
  }
  return rep;
}

}  // namespace ciosim::config
