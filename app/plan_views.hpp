// What `ciosim plan` shows: the IEC inspector's memory layout per phase (the figures of Singh, Isaila,
// Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm", J.
// Supercomputing 2009) as text and SVG, and the plan of one two-phase or multiple-phase collective write as
// text.
#pragma once

#include <string>
#include <vector>

#include "algorithms/iec/iec.hpp"
#include "algorithms/lap/aggregation_interval.hpp"
#include "algorithms/multiple_phase/multiple_phase.hpp"
#include "algorithms/two_phase/two_phase_explain.hpp"
#include "algorithms/view_based/view_based.hpp"

namespace ciosim::app {

/// The IEC plan step by step: the initial placement (Table 1, Fig. 3), each butterfly phase's pairs,
/// sends, receive offsets and the memory after it (Tables 2-3, Figs. 5-6), the packing and the file
/// offsets (Table 4, Fig. 7). `title` is the first line. One cell per memory slot: the index i of the x[i]
/// it holds, '.' when empty; rows show the slots that fit in about 100 columns, then "... (N more slots)".
std::string iec_text(const std::string& title, const Distribution& d,
                     const std::vector<iec::RankPlan>& plans);

/// The same as an SVG picture: one grid of ranks x memory slots per step, each entry coloured by the rank
/// that writes it in the end, the entries sent in a phase outlined. Deterministic.
std::string iec_svg(const std::string& title, const Distribution& d, const std::vector<iec::RankPlan>& plans);

/// The two-phase plan as text: each rank's host and access, the interleave test, the aggregators and
/// their file domains, and per round the pieces and bytes each rank sends to each aggregator (at most
/// `max_rounds` rounds per aggregator shown; the rest summed up).
std::string two_phase_text(const std::string& title, const two_phase::WritePlan& plan,
                           std::int64_t element_size, std::int64_t cb_buffer_size, int max_rounds);

/// The plan of a baseline (block, independent, list-io, gathered, sequential) as text: the calls each rank
/// makes and the file bytes they carry (pieces, List I/O's batches of hints.listio_batch regions, gathered
/// I/O's chunks of hints.cb_buffer_size and who sends what into each), at most 16 ranks and 8 chunks shown.
std::string baseline_text(const std::string& title, const Distribution& d, const std::string& algorithm,
                          const IoHints& hints, std::int64_t element_size);
/// Whether baseline_text has a view of `algorithm`.
bool has_baseline_view(const std::string& algorithm);

/// The multiple-phase plan as text: what each rank holds before and after each of `phases` phases (planes,
/// pieces per plane, entries, file regions), what it sends and receives in each, and the regions it writes;
/// a memory map per step when the array has at most about 90 entries.
std::string multiple_phase_text(const std::string& title, const multiple_phase::Layout& layout, int phases,
                                std::int64_t element_size);

/// Two-phase with the LAP aggregator assignment as text: the intervals, the host x interval benefit matrix
/// of hints.lap (ACN pieces or AVN items; shown up to 16 hosts), the hosts LAPJV chooses against ROMIO's
/// default, then two_phase_text of the write with the chosen cb_config_list. `rank_hosts`: each rank's host.
std::string lap_text(const std::string& title, const Distribution& d,
                     const std::vector<std::string>& rank_hosts, IoHints hints, std::int64_t element_size,
                     int max_rounds);

/// What the LAP assignment of `d` on those hosts computes: the hosts, the intervals, the host x interval
/// benefit matrix of `criterion` and LAPJV's choice (algorithms/lap/aggregation_interval.hpp).
struct LapAssignment {
  lap::Hosts hosts;
  lap::Intervals intervals;
  lap::Matrix benefit;
  lap::Choice choice;
};
LapAssignment lap_assignment(const Distribution& d, const std::vector<std::string>& rank_hosts,
                             LapCriterion criterion);

/// The same as an SVG picture: the benefit matrix as shaded cells, LAPJV's choice outlined in red, ROMIO's
/// default (interval k to the k-th host) marked by a dot; at most 64 hosts (a config::ConfigError
/// otherwise). Deterministic.
std::string lap_svg(const std::string& title, const LapAssignment& a, LapCriterion criterion);

/// Each rank's view as shipped at set_view (displacement 0); `words` and `ordered`, when given, receive
/// each view's shipped words and whether its entries were already in file order.
std::vector<view_based::ViewMap> view_maps(const Distribution& d, std::int64_t element_size,
                                           std::vector<std::int64_t>* words = nullptr,
                                           std::vector<bool>* ordered = nullptr);

/// View-based I/O as an SVG picture: the file's blocks coloured by their owning aggregator, one row per
/// rank marking the blocks its view touches (outlined: the piece travels to another rank), and the
/// owners' pools after one write of every view (written back during the call, or dirty until the close);
/// at most 512 blocks and 64 ranks (a config::ConfigError otherwise). Deterministic.
std::string view_based_svg(const std::string& title, const Distribution& d, const IoHints& hints,
                           std::int64_t element_size);

/// View-based I/O as text: each rank's shipped view (bytes, tuples, to how many aggregators), the blocks
/// and their owners, then one collective write of every rank's whole view: per rank the blocks it touches,
/// messages and bytes; per aggregator the messages in, the blocks it buffers, those its pool writes back
/// during the call and those left dirty for the close.
std::string view_based_text(const std::string& title, const Distribution& d, const IoHints& hints,
                            std::int64_t element_size);

/// Whose entry each position of x is in a multiple-phase layout: the rank whose pieces hold it.
std::vector<int> entry_owners(const multiple_phase::Layout& layout);

/// The same as an SVG picture: each rank's memory before and after every phase, one box per entry of x
/// coloured by the rank whose entry it is, the entries sent in the next phase outlined; at most 128 entries
/// and 64 ranks (a config::ConfigError naming the limits otherwise). Deterministic.
std::string multiple_phase_svg(const std::string& title, const multiple_phase::Layout& layout, int phases);

}  // namespace ciosim::app
