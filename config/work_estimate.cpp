// The work of a point in closed form (config/work_estimate.hpp). Each technique's terms follow what its
// code does (docs/techniques.md): the pieces it walks and writes, the messages of its rounds or phases, the
// blocks of its buffers; the file system moves the file in chunks of about 64 KiB (PVFS's flow buffer,
// a page-cache writeback unit).
#include "config/work_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#include "algorithms/replay.hpp"
#include "algorithms/sequence.hpp"
#include "config/trace_replay.hpp"

namespace ciosim::config {

namespace {

constexpr double kChunk = 65536;  ///< bytes the file system moves per event (about)
/// Pieces the techniques' code walks in the time SimGrid takes for one activity: 2 Mi pieces of two-phase
/// at Bx = 1 cost what 8 Ki messages or requests cost (docs/benchmarks.md, "The work of a point").
constexpr double kPiecesPerEvent = 256;

struct Term {
  double events;
  std::string what;  ///< "2.1e9 blocks of hints.vb_buffer_size = 1"
  std::string knob;  ///< "raise hints.vb_buffer_size"
};

double log2_ranks(int p) {
  return std::max(1.0, std::ceil(std::log2(std::max(p, 2))));
}

/// A trace replayed call by call: each collective call's work on its shape, one request per region of its
/// independent calls, one charge per stretch of computation. 0 when the capture cannot be read (refused
/// with its reason elsewhere) or is replayed as one write (`union`: its size is known only with the file).
WorkEstimate trace_work(const RunSpec& spec) {
  WorkEstimate e;
  if (spec.workload.replay != "calls") return e;
  Replay rep;
  try {
    rep = replay_from_capture(spec.workload.file, spec.ranks, spec.workload.element_size);
  } catch (const std::invalid_argument&) {
    return e;
  }
  RunSpec call = spec;  // one collective call of a shape: a distribution given by its lists
  call.workload.kind = "lists";
  call.sequence.clear();
  call.iterations = 1;
  double collective = 0, independent = 0, computation = 0;
  for (const ReplayStep& st : rep.steps)
    collective +=
        estimate_work(call, distribution_size(rep.shapes[static_cast<std::size_t>(st.shape)])).events;
  for (const auto& actions : rep.ranks)
    for (const ReplayAction& a : actions) {
      if (a.kind == ReplayKind::IndependentWrite || a.kind == ReplayKind::IndependentRead)
        independent += static_cast<double>(a.runs.size());
      if (a.kind == ReplayKind::Compute) ++computation;
    }
  e.events = collective + independent + computation;
  const bool calls_most = collective >= independent && collective >= computation;
  e.detail = format_events(e.events) + " events, mostly " +
             (calls_most ? format_events(collective) + " in its " + std::to_string(rep.steps.size()) +
                               " collective calls"
              : independent >= computation ? format_events(independent) + " independent requests"
                                           : format_events(computation) + " stretches of computation");
  e.knob = calls_most ? "choose another technique or hints" : "replay a shorter capture";
  return e;
}

}  // namespace

std::string format_events(double events) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", events);
  return buf;
}

WorkEstimate estimate_work(const RunSpec& spec, const WorkloadSize& size) {
  WorkEstimate e;
  if (spec.workload.kind == "trace") return trace_work(spec);
  const double P = std::max(spec.ranks, 1);
  const double F = size.entries * static_cast<double>(spec.workload.element_size);  // bytes of the file
  const double T = std::max(size.tuples, P);  // pieces: at least one a rank
  const IoHints& h = spec.hints;
  const double cb = static_cast<double>(std::max<std::int64_t>(h.cb_buffer_size, 1));
  // Simulated activities (messages, file requests, buffer blocks, the file's chunks) and the pieces the
  // code walks, which cost a 256th of an activity (measured, docs/benchmarks.md).
  std::vector<Term> terms;
  terms.push_back({F / kChunk, format_events(F / kChunk) + " file chunks of 64 KiB", "write a smaller file"});
  const std::string& a = spec.algorithm;
  if (a != "block")  // Block I/O writes each rank's buffer whole, whatever its pieces
    terms.push_back({T / kPiecesPerEvent, format_events(T) + " pieces walked", "use a coarser distribution"});
  if (a == "block") {
    terms.push_back({P, format_events(P) + " writes", "use fewer ranks"});
  } else if (a == "independent") {
    terms.push_back({T, format_events(T) + " requests, one a piece", "use a coarser distribution"});
  } else if (a == "list-io") {
    const double requests = std::ceil(T / std::max(h.listio_batch, 1));
    terms.push_back({requests, format_events(requests) + " list requests of hints.listio_batch regions",
                     "raise hints.listio_batch"});
  } else if (a == "gathered") {
    const double chunks = std::ceil(F / cb);
    terms.push_back({(P + 1) * chunks,
                     format_events(P * chunks) + " messages of " + format_events(chunks) +
                         " chunks of hints.cb_buffer_size",
                     "raise hints.cb_buffer_size"});
  } else if (a == "sequential") {
    terms.push_back({P + 1, format_events(P) + " messages", "use fewer ranks"});
  } else if (a == "two-phase") {
    const double nodes = std::ceil(P / std::max(spec.platform.cores_per_node, 1));
    const double A = h.cb_nodes > 0 ? std::min<double>(h.cb_nodes, P) : std::min(P, std::max(nodes, 1.0));
    const double rounds = std::ceil(F / (A * cb));
    const double messages = std::min(rounds * A * P, T + rounds * A) + P * P;
    terms.push_back({messages + rounds * A,
                     format_events(messages) + " messages in " + format_events(rounds) +
                         " rounds of hints.cb_buffer_size",
                     "raise hints.cb_buffer_size"});
  } else if (a == "view-based") {
    const double block = static_cast<double>(h.vb_buffer_size > 0 ? h.vb_buffer_size : h.cb_buffer_size);
    const double blocks = std::ceil(F / std::max(block, 1.0));
    const double A = h.vb_aggregators > 0 ? std::min<double>(h.vb_aggregators, P) : P;
    const double nb = static_cast<double>(std::max<std::int64_t>(h.vb_network_buffer, 1));
    terms.push_back(
        {blocks, format_events(blocks) + " blocks of hints.vb_buffer_size", "raise hints.vb_buffer_size"});
    terms.push_back({F / nb + A * P, format_events(F / nb + A * P) + " messages of hints.vb_network_buffer",
                     "raise hints.vb_network_buffer"});
  } else {  // iec, iec-parametric, multiple-phase: a butterfly of log2(P) phases
    const double phases = a == "multiple-phase" && spec.phases > 0 ? spec.phases : log2_ranks(spec.ranks);
    terms.push_back({phases * P,
                     format_events(phases * P) + " messages of " + format_events(phases) + " phases",
                     "use fewer ranks"});
  }
  // A sequence repeats the technique's calls: one pass per write or read.
  double passes = 1;
  if (!spec.sequence.empty()) {
    passes = 0;
    try {
      for (const Op& op : parse_sequence(spec.sequence))
        if (op.kind == OpKind::Write || op.kind == OpKind::Read) passes += 1.0 / op.parts;
    } catch (const std::invalid_argument&) {  // refused with its reason elsewhere
    }
    passes = std::max(passes, 1.0);
  }
  passes *= std::max(spec.iterations, 1);
  const Term* most = &terms.front();
  for (const Term& t : terms) {
    e.events += t.events * passes;
    if (t.events > most->events) most = &t;
  }
  e.detail = format_events(e.events) + " events, mostly " + most->what + (passes > 1 ? " per call" : "");
  e.knob = most->knob;
  return e;
}

std::string work_refusal(const WorkEstimate& e, double max_work) {
  if (max_work <= 0 || e.events <= max_work) return "";
  return "its estimated work, " + e.detail + ", exceeds --max-work " + format_events(max_work) + "; " +
         e.knob + ", or raise --max-work";
}

}  // namespace ciosim::config
