// Call traces (Process::record_trace): the text form both backends write and the comparison `ciosim
// validate` makes between them. Pure C++, no backend.
//
// Text form, one event per line, ranks in order and each rank's events in call order:
//   # ciosim trace v1: rank phase kind peer a b
//   0<TAB>inspector<TAB>isend<TAB>1<TAB>8<TAB>1
// The phase "" (before the first mark) is written "-"; whitespace inside a phase name becomes '_'.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "algorithms/common/process.hpp"

namespace ciosim {

/// Per rank (index = rank): the events in call order.
using Trace = std::vector<std::vector<TraceEvent>>;

/// The call kind whose call_name() is `name`; throws std::invalid_argument naming the valid kinds.
Call call_from_name(std::string_view name);

/// The text form described above.
std::string trace_text(const Trace& t);
/// Parses the text form; throws std::invalid_argument ("trace line N: ...") on malformed input.
Trace parse_trace(std::string_view text);

/// "" when the traces are identical, else one line describing the first difference: a rank count that
/// differs, or the first rank and event index where they disagree (both events shown, `a_name` and
/// `b_name` label them), or a rank with more events than the other.
std::string trace_difference(const Trace& a, const Trace& b, const std::string& a_name,
                             const std::string& b_name);

/// One event as "phase kind peer=P a=A b=B" (for messages).
std::string describe(const TraceEvent& e);

}  // namespace ciosim
