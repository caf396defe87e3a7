#include "algorithms/common/trace.hpp"

#include <charconv>
#include <sstream>
#include <stdexcept>

namespace ciosim {

namespace {

constexpr std::string_view kHeader = "# ciosim trace v1: rank phase kind peer a b";

std::string phase_field(const std::string& phase) {
  if (phase.empty()) return "-";
  std::string out = phase;
  for (char& c : out)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = '_';
  return out;
}

template <class T>
T number(std::string_view field, int line, const char* what) {
  T v{};
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size())
    throw std::invalid_argument("trace line " + std::to_string(line) + ": " + what + " is not an integer: '" +
                                std::string(field) + "'");
  return v;
}

}  // namespace

Call call_from_name(std::string_view name) {
  std::string valid;
  for (int c = 0; c < kCallKinds; ++c) {
    if (name == call_name(static_cast<Call>(c))) return static_cast<Call>(c);
    valid += (valid.empty() ? "" : ", ") + std::string(call_name(static_cast<Call>(c)));
  }
  throw std::invalid_argument("unknown call kind '" + std::string(name) + "' (valid: " + valid + ")");
}

std::string trace_text(const Trace& t) {
  std::ostringstream out;
  out << kHeader << "\n";
  for (std::size_t r = 0; r < t.size(); ++r)
    for (const TraceEvent& e : t[r])
      out << r << '\t' << phase_field(e.phase) << '\t' << call_name(e.kind) << '\t' << e.peer << '\t' << e.a
          << '\t' << e.b << '\n';
  return out.str();
}

Trace parse_trace(std::string_view text) {
  Trace t;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string_view> f;
    for (std::size_t a = 0;;) {
      const std::size_t tab = line.find('\t', a);
      f.push_back(line.substr(a, tab == std::string_view::npos ? std::string_view::npos : tab - a));
      if (tab == std::string_view::npos) break;
      a = tab + 1;
    }
    if (f.size() != 6)
      throw std::invalid_argument("trace line " + std::to_string(line_no) +
                                  ": expected 6 tab-separated fields (" + std::string(kHeader.substr(19)) +
                                  "), got " + std::to_string(f.size()));
    const int rank = number<int>(f[0], line_no, "rank");
    if (rank < 0 || static_cast<std::size_t>(rank) + 1 < t.size())
      throw std::invalid_argument("trace line " + std::to_string(line_no) + ": rank " + std::to_string(rank) +
                                  " out of order (ranks must be non-decreasing)");
    if (static_cast<std::size_t>(rank) >= t.size()) t.resize(static_cast<std::size_t>(rank) + 1);
    TraceEvent e;
    e.phase = f[1] == "-" ? std::string() : std::string(f[1]);
    try {
      e.kind = call_from_name(f[2]);
    } catch (const std::invalid_argument& ex) {
      throw std::invalid_argument("trace line " + std::to_string(line_no) + ": " + ex.what());
    }
    e.peer = number<int>(f[3], line_no, "peer");
    e.a = number<std::int64_t>(f[4], line_no, "a");
    e.b = number<std::int64_t>(f[5], line_no, "b");
    t[static_cast<std::size_t>(rank)].push_back(std::move(e));
  }
  return t;
}

std::string describe(const TraceEvent& e) {
  return phase_field(e.phase) + " " + call_name(e.kind) + " peer=" + std::to_string(e.peer) +
         " a=" + std::to_string(e.a) + " b=" + std::to_string(e.b);
}

std::string trace_difference(const Trace& a, const Trace& b, const std::string& a_name,
                             const std::string& b_name) {
  const std::size_t ranks = std::max(a.size(), b.size());
  static const std::vector<TraceEvent> none;
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto& x = r < a.size() ? a[r] : none;
    const auto& y = r < b.size() ? b[r] : none;
    const std::size_t n = std::min(x.size(), y.size());
    for (std::size_t i = 0; i < n; ++i)
      if (!(x[i] == y[i]))
        return "rank " + std::to_string(r) + " event " + std::to_string(i) + ": " + a_name + " has '" +
               describe(x[i]) + "', " + b_name + " has '" + describe(y[i]) + "'";
    if (x.size() != y.size()) {
      const bool a_longer = x.size() > y.size();
      const TraceEvent& extra = a_longer ? x[n] : y[n];
      return "rank " + std::to_string(r) + ": " + a_name + " has " + std::to_string(x.size()) + " events, " +
             b_name + " has " + std::to_string(y.size()) + "; first extra in " +
             (a_longer ? a_name : b_name) + ": '" + describe(extra) + "'";
    }
  }
  return "";
}

}  // namespace ciosim
