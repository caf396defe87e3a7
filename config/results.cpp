#include "config/results.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "config/params.hpp"
#include "config/phase_json.hpp"
#include "version.hpp"

namespace ciosim::config {
namespace {

using ojson = nlohmann::ordered_json;

/// A params value as JSON: a number for numeric parameters, else the text.
ojson typed_param(const std::vector<Param>& params, const std::string& key, const std::string& text) {
  const Param* p = find_param(params, key);
  if (p && p->numeric()) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size()) return v;
  }
  if (p && p->type == ParamType::Real) {
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec == std::errc() && end == text.data() + text.size()) return v;
  }
  return text;
}

template <class F>
std::vector<std::string> union_of(const std::vector<RunResult>& runs, F names_of) {
  std::vector<std::string> out;
  for (const auto& r : runs)
    for (const auto& n : names_of(r))
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

std::vector<std::string> param_keys(const std::vector<RunResult>& runs) {
  return union_of(runs, [](const RunResult& r) {
    std::vector<std::string> k;
    for (const auto& p : r.params) k.push_back(p.first);
    return k;
  });
}

/// Every run's phases, in time order: each run lists its phases in time order, and a name first seen in a
/// later run goes right after the phase that precedes it there.
std::vector<std::string> phase_names(const std::vector<RunResult>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs) {
    auto at = out.begin();
    for (const auto& p : r.phases) {
      const auto found = std::find(out.begin(), out.end(), p.name);
      at = found != out.end() ? found + 1 : out.insert(at, p.name) + 1;
    }
  }
  return out;
}

/// Parameters shown by a fixed column of results.csv already (algorithm, ranks, network_mpi, network_io).
bool has_own_column(const std::string& key) {
  return key == "run.algorithm" || key == "run.ranks" || key == "network.mpi" || key == "network.io";
}

const char* time_key(Clock clock) {
  return clock == Clock::Simulated ? "sim_time_s" : "measured_time_s";
}

const std::string* param_value(const RunResult& r, const std::string& key) {
  for (const auto& [k, v] : r.params)
    if (k == key) return &v;
  return nullptr;
}

const PhaseTime* phase_of(const RunResult& r, const std::string& name) {
  for (const auto& p : r.phases)
    if (p.name == name) return &p;
  return nullptr;
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string fixed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

std::string results_json(const std::string& scenario, const std::vector<RunResult>& runs, Clock clock) {
  const std::vector<Param> params = parameters();
  ojson j;
  j["schema_version"] = kResultsSchemaVersion;
  j["ciosim_version"] = kVersion;
  j["scenario"] = scenario;
  j["runs"] = ojson::array();
  for (const auto& r : runs) {
    ojson run;
    run["algorithm"] = r.algorithm;
    ojson ps = ojson::object();
    for (const auto& [k, v] : r.params) ps[k] = typed_param(params, k, v);
    run["params"] = std::move(ps);
    run["ranks"] = r.ranks;
    run["network_mpi"] = r.network_mpi;
    run["network_io"] = r.network_io;
    run[time_key(clock)] = r.sim_time_s;
    run["phases"] = ojson::array();
    for (const auto& p : r.phases) run["phases"].push_back(phase_to_json(p));
    ojson calls = ojson::object();
    for (const auto& [k, n] : r.calls) calls[k] = n;
    run["calls"] = std::move(calls);
    run["bytes"] = ojson{{"network", r.bytes_network}, {"file", r.bytes_file}};
    run["file_verified"] = r.file_verified;
    if (r.elided) run["payload"] = "elided";  // absent: bytes
    if (!r.bottleneck.empty()) run["bottleneck"] = r.bottleneck;
    if (!r.operations.empty()) {
      ojson totals = ojson::object();
      for (const auto& [name, t] : operation_totals(r)) totals[name] = t;
      run["operation_totals_s"] = std::move(totals);
      run["operations"] = ojson::array();
      for (const auto& o : r.operations)
        run["operations"].push_back(
            ojson{{"name", o.name}, {"time_s", o.time_s}, {"start_s", o.start_s}, {"end_s", o.end_s}});
    }
    j["runs"].push_back(std::move(run));
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::vector<RunResult> parse_results_json(const std::string& text, const std::string& origin) {
  try {
    const auto j = ojson::parse(text);  // ordered: params keep their order
    // Written before the key existed: version 1. A later version removed, renamed or redefined a key.
    if (const int v = j.value("schema_version", 1); v != kResultsSchemaVersion)
      throw std::runtime_error(origin + ": results.json of schema version " + std::to_string(v) +
                               "; this ciosim reads version " + std::to_string(kResultsSchemaVersion) +
                               " (docs/results.md, \"Compatibility\")");
    std::vector<RunResult> out;
    for (const auto& run : j.at("runs")) {
      RunResult r;
      r.algorithm = run.at("algorithm").get<std::string>();
      for (const auto& [k, v] : run.at("params").items())
        r.params.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
      r.ranks = run.at("ranks").get<int>();
      r.network_mpi = run.at("network_mpi").get<std::string>();
      r.network_io = run.at("network_io").get<std::string>();
      r.sim_time_s = run.contains("measured_time_s") ? run.at("measured_time_s").get<double>()
                                                     : run.at("sim_time_s").get<double>();
      for (const auto& p : run.at("phases")) r.phases.push_back(phase_from_json(p));
      r.calls = run.at("calls").get<std::map<std::string, std::int64_t>>();
      r.bytes_network = run.at("bytes").at("network").get<std::int64_t>();
      r.bytes_file = run.at("bytes").at("file").get<std::int64_t>();
      r.file_verified = run.at("file_verified").get<bool>();
      r.elided = run.value("payload", std::string("bytes")) == "elided";
      r.bottleneck = run.value("bottleneck", std::string());
      if (run.contains("operations"))
        for (const auto& o : run.at("operations"))
          r.operations.push_back({o.at("name").get<std::string>(), o.at("time_s").get<double>(),
                                  o.at("start_s").get<double>(), o.at("end_s").get<double>()});
      out.push_back(std::move(r));
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(origin + ": malformed results.json: " + e.what());
  }
}

std::string results_csv(const std::vector<RunResult>& runs, Clock clock,
                        const std::vector<std::size_t>& numbers) {
  auto keys = param_keys(runs);
  keys.erase(std::remove_if(keys.begin(), keys.end(), has_own_column), keys.end());
  const auto phases = phase_names(runs);
  std::vector<std::string> header{"run", "algorithm"};
  header.insert(header.end(), keys.begin(), keys.end());
  for (const char* h : {"ranks", "network_mpi", "network_io", time_key(clock)}) header.emplace_back(h);
  for (const auto& p : phases) header.push_back("phase_" + p + "_s");
  const auto ops = operation_kinds(runs);
  for (const auto& o : ops) header.push_back("op_" + o + "_s");
  for (const char* h : {"bytes_network", "bytes_file", "file_verified", "bottleneck"}) header.emplace_back(h);
  std::ostringstream out;
  const auto row = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << csv_cell(cells[i]);
    out << "\n";
  };
  row(header);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunResult& r = runs[i];
    std::vector<std::string> cells{std::to_string(i < numbers.size() ? numbers[i] : i + 1), r.algorithm};
    for (const auto& k : keys) {
      const std::string* v = param_value(r, k);
      cells.push_back(v ? *v : "");
    }
    cells.push_back(std::to_string(r.ranks));
    cells.push_back(r.network_mpi);
    cells.push_back(r.network_io);
    cells.push_back(format_double(r.sim_time_s));
    for (const auto& p : phases) {
      const PhaseTime* t = phase_of(r, p);
      cells.push_back(t ? format_double(t->time_s) : "");
    }
    const auto totals = operation_totals(r);
    for (const auto& o : ops) {
      const auto it = std::find_if(totals.begin(), totals.end(), [&](const auto& t) { return t.first == o; });
      cells.push_back(it == totals.end() ? "" : format_double(it->second));
    }
    cells.push_back(std::to_string(r.bytes_network));
    cells.push_back(std::to_string(r.bytes_file));
    cells.push_back(r.file_verified ? "true" : "false");
    cells.push_back(r.bottleneck);
    row(cells);
  }
  return out.str();
}

std::string results_table(const std::vector<RunResult>& runs) {
  std::vector<std::string> keys = param_keys(runs);
  keys.erase(std::remove(keys.begin(), keys.end(), "run.algorithm"), keys.end());
  const auto phases = phase_names(runs);
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // right-aligned columns
  std::vector<std::string> header{"algorithm"};
  numeric.push_back(false);
  for (const auto& k : keys) {
    header.push_back(k);
    numeric.push_back(true);
  }
  header.push_back("sim_time_s");
  numeric.push_back(true);
  for (const auto& p : phases) {
    header.push_back(p);
    numeric.push_back(true);
  }
  rows.push_back(header);
  for (const auto& r : runs) {
    std::vector<std::string> row{r.algorithm};
    for (const auto& k : keys) {
      const std::string* v = param_value(r, k);
      row.push_back(v ? *v : "-");
    }
    row.push_back(fixed(r.sim_time_s));
    for (const auto& p : phases) {
      const PhaseTime* t = phase_of(r, p);
      row.push_back(t ? fixed(t->time_s) : "-");
    }
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::ostringstream out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) line += "  ";
      const std::string pad(width[i] - row[i].size(), ' ');
      line += numeric[i] ? pad + row[i] : row[i] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  if (std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return !r.operations.empty(); })) {
    out << "\noperations (each kind's total, the sum over its calls of the slowest rank's time; "
           "docs/results.md):\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (runs[i].operations.empty()) continue;
      out << "  " << i + 1 << ":";
      for (const auto& total : operation_totals(runs[i])) {
        const std::string& kind = total.first;
        const auto n = std::count_if(runs[i].operations.begin(), runs[i].operations.end(),
                                     [&](const OperationTime& o) { return operation_kind(o.name) == kind; });
        out << " " << kind << (n > 1 ? " x" + std::to_string(n) : "") << " " << fixed(total.second) << ";";
      }
      out << "\n";
    }
  }
  if (std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return !r.bottleneck.empty(); })) {
    out << "\nwhere the time goes (each run's longest phase; docs/results.md):\n";
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (!runs[i].bottleneck.empty()) out << "  " << i + 1 << ": " << runs[i].bottleneck << "\n";
  }
  return out.str();
}

std::string operation_kind(const std::string& name) {
  return name.substr(0, name.find(':'));
}

std::vector<std::pair<std::string, double>> operation_totals(const RunResult& r) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& o : r.operations) {
    const std::string kind = operation_kind(o.name);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& t) { return t.first == kind; });
    if (it == out.end())
      out.emplace_back(kind, o.time_s);
    else
      it->second += o.time_s;
  }
  return out;
}

std::vector<std::string> operation_kinds(const std::vector<RunResult>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs)
    for (const auto& [name, t] : operation_totals(r))
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  return out;
}

nlohmann::json run_result_to_json(const RunResult& r) {
  nlohmann::json j;
  j["algorithm"] = r.algorithm;
  j["params"] = nlohmann::json::array();
  for (const auto& [k, v] : r.params) j["params"].push_back({k, v});
  j["ranks"] = r.ranks;
  j["network_mpi"] = r.network_mpi;
  j["network_io"] = r.network_io;
  j["sim_time_s"] = r.sim_time_s;
  j["phases"] = nlohmann::json::array();
  // The ordered JSON of results.json, as this codec's (unordered) JSON: doubles print round-trip exact.
  for (const auto& p : r.phases) j["phases"].push_back(nlohmann::json::parse(phase_to_json(p).dump()));
  j["calls"] = r.calls;
  j["bytes_network"] = r.bytes_network;
  j["bytes_file"] = r.bytes_file;
  j["file_verified"] = r.file_verified;
  j["elided"] = r.elided;
  j["bottleneck"] = r.bottleneck;
  j["operations"] = nlohmann::json::array();
  for (const auto& o : r.operations) j["operations"].push_back({o.name, o.time_s, o.start_s, o.end_s});
  return j;
}

RunResult run_result_from_json(const nlohmann::json& j) {
  try {
    RunResult r;
    r.algorithm = j.at("algorithm").get<std::string>();
    for (const auto& p : j.at("params"))
      r.params.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
    r.ranks = j.at("ranks").get<int>();
    r.network_mpi = j.at("network_mpi").get<std::string>();
    r.network_io = j.at("network_io").get<std::string>();
    r.sim_time_s = j.at("sim_time_s").get<double>();
    for (const auto& p : j.at("phases")) r.phases.push_back(phase_from_json(nlohmann::ordered_json(p)));
    r.calls = j.at("calls").get<std::map<std::string, std::int64_t>>();
    r.bytes_network = j.at("bytes_network").get<std::int64_t>();
    r.bytes_file = j.at("bytes_file").get<std::int64_t>();
    r.file_verified = j.at("file_verified").get<bool>();
    r.elided = j.value("elided", false);
    r.bottleneck = j.value("bottleneck", std::string());
    if (j.contains("operations"))
      for (const auto& o : j.at("operations"))
        r.operations.push_back({o.at(0).get<std::string>(), o.at(1).get<double>(), o.at(2).get<double>(),
                                o.at(3).get<double>()});
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed run result: ") + e.what());
  }
}

}  // namespace ciosim::config
