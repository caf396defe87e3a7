#include "config/phases_csv.hpp"

#include <sstream>

#include "config/params.hpp"

namespace ciosim::config {
namespace {

std::string cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string at(const std::vector<double>& v, std::size_t i) {
  return i < v.size() ? format_double(v[i]) : "";
}

/// "allgather=2 isend=3": the kinds in name order, separated by spaces.
std::string calls_cell(const std::map<std::string, std::int64_t>& calls) {
  std::string out;
  for (const auto& [kind, n] : calls) out += (out.empty() ? "" : " ") + kind + "=" + std::to_string(n);
  return out;
}

}  // namespace

std::string phases_csv(const std::vector<RunResult>& runs, const std::vector<std::size_t>& numbers) {
  std::ostringstream out;
  out << "run,phase,rank,time_s,cpu_s,network_s,filesystem_s,calls\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const PhaseTime& p : runs[i].phases) {
      const std::string lead =
          std::to_string(i < numbers.size() ? numbers[i] : i + 1) + "," + cell(p.name) + ",";
      if (p.rank_time_s.empty()) {
        out << lead << "," << format_double(p.time_s) << ",,,," << calls_cell(p.calls) << "\n";
        continue;
      }
      for (std::size_t r = 0; r < p.rank_time_s.size(); ++r)
        out << lead << r << "," << format_double(p.rank_time_s[r]) << "," << at(p.rank_cpu_s, r) << ","
            << at(p.rank_network_s, r) << "," << at(p.rank_filesystem_s, r) << ","
            << (r < p.rank_calls.size() ? calls_cell(p.rank_calls[r]) : std::string()) << "\n";
    }
  }
  return out.str();
}

}  // namespace ciosim::config
