#include "app/validate_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>

namespace ciosim::app {

namespace {

using ojson = nlohmann::ordered_json;

std::string fixed(double v, const char* f = "%.6f") {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string percent(double v) {
  if (std::isnan(v) || std::isinf(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", v * 100);
  return buf;
}

/// Columns separated by two spaces; `right[i]` right-aligns column i.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right,
                  const std::string& indent) {
  std::vector<std::size_t> w;
  for (const auto& r : rows) {
    if (w.size() < r.size()) w.resize(r.size(), 0);
    for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  }
  std::ostringstream out;
  for (const auto& r : rows) {
    std::string line = indent;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string pad(w[i] - r[i].size(), ' ');
      line += (i ? "  " : "") + (i < right.size() && right[i] ? pad + r[i] : r[i] + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  return out.str();
}

std::vector<double> repetitions(const std::string& name, const nlohmann::json& point) {
  std::vector<double> v;
  for (const auto& run : point.at("runs")) {
    if (name == "total") {
      v.push_back(run.at("time_s").get<double>());
      continue;
    }
    double t = 0;
    bool found = false;
    for (const auto& ph : run.at("phases"))
      if (ph.at(0).get<std::string>() == name) {
        t += ph.at(1).get<double>();
        found = true;
      }
    if (found) v.push_back(t);
  }
  return v;
}

ojson timing_json(const PhaseTiming& t, bool with_prediction) {
  ojson j;
  j["phase"] = t.name;
  if (with_prediction) j["predicted_s"] = t.predicted_s;
  j["measured_median_s"] = t.measured_s;
  j["measured_min_s"] = t.min_s;
  j["measured_max_s"] = t.max_s;
  if (with_prediction) {
    const double e = t.relative_error();
    j["relative_error"] = std::isnan(e) ? ojson(nullptr) : ojson(e);
  }
  const double sp = t.spread();
  j["measured_spread"] = std::isnan(sp) ? ojson(nullptr) : ojson(sp);
  j["noisy"] = t.noisy();
  return j;
}

}  // namespace

double PhaseTiming::relative_error() const {
  if (!(measured_s > 0)) return std::numeric_limits<double>::quiet_NaN();
  return (predicted_s - measured_s) / measured_s;
}

double PhaseTiming::spread() const {
  if (!(measured_s > 0)) return std::numeric_limits<double>::quiet_NaN();
  return (max_s - min_s) / measured_s;
}

bool PhaseTiming::noisy() const {
  return spread() > kNoisySpread;  // false for NaN
}

bool ValidationReport::passed() const {
  return std::all_of(points.begin(), points.end(), [](const PointReport& p) { return p.passed(); });
}

std::string calls_difference(const RunResult& sim, const RunResult& mpi) {
  std::set<std::string> kinds;
  for (const auto& [k, n] : sim.calls) kinds.insert(k);
  for (const auto& [k, n] : mpi.calls) kinds.insert(k);
  std::string out;
  const auto add = [&](const std::string& what, std::int64_t a, std::int64_t b) {
    if (a != b)
      out += (out.empty() ? "" : ", ") + what + " " + std::to_string(a) + " (sim) vs " + std::to_string(b) +
             " (mpi)";
  };
  for (const auto& k : kinds) {
    const auto a = sim.calls.find(k), b = mpi.calls.find(k);
    add(k, a == sim.calls.end() ? 0 : a->second, b == mpi.calls.end() ? 0 : b->second);
  }
  add("bytes.network", sim.bytes_network, mpi.bytes_network);
  add("bytes.file", sim.bytes_file, mpi.bytes_file);
  return out;
}

PhaseTiming measured(const std::string& name, const nlohmann::json& point) {
  PhaseTiming t;
  t.name = name;
  std::vector<double> v = repetitions(name, point);
  if (v.empty()) {
    t.measured_s = t.min_s = t.max_s = std::numeric_limits<double>::quiet_NaN();
    return t;
  }
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  t.measured_s = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  t.min_s = v.front();
  t.max_s = v.back();
  return t;
}

std::vector<PhaseTiming> timing_rows(const RunResult& sim, const nlohmann::json& point) {
  std::vector<PhaseTiming> rows;
  PhaseTiming total = measured("total", point);
  total.predicted_s = sim.sim_time_s;
  rows.push_back(total);
  for (const auto& ph : sim.phases) {
    PhaseTiming t = measured(ph.name, point);
    t.predicted_s = ph.time_s;
    rows.push_back(t);
  }
  return rows;
}

namespace {
/// Sites whose measured and charged times are both under 0.1 ms are left out of the text table (the JSON
/// keeps them): they cannot move a phase the report judges.
constexpr double kStepRowMin_s = 1e-4;
}  // namespace

std::vector<StepRow> step_rows(const nlohmann::json& point, const PlatformSpec& platform) {
  std::vector<StepRow> rows;
  if (!point.contains("cpu_steps")) return rows;
  for (const auto& e : point.at("cpu_steps")) {
    StepRow s;
    s.site = e.at("site").get<std::string>();
    s.charges = e.at("charges").get<std::int64_t>();
    s.tuples = e.at("tuples").get<std::int64_t>();
    s.bytes_copied = e.at("bytes_copied").get<std::int64_t>();
    s.charged_s = platform.cpu_seconds(Work{.bytes_copied = s.bytes_copied,
                                            .tuples = s.tuples,
                                            .library_pieces = e.at("library_pieces").get<std::int64_t>(),
                                            .step = step_named(e.value("step", ""))});
    s.measured_s = e.at("seconds").get<double>();
    rows.push_back(std::move(s));
  }
  // Charged sites first, by measured time; then the uncharged code by phase.
  std::stable_sort(rows.begin(), rows.end(), [](const StepRow& a, const StepRow& b) {
    const bool ua = a.site.starts_with("uncharged"), ub = b.site.starts_with("uncharged");
    return ua != ub ? ub : a.measured_s > b.measured_s;
  });
  return rows;
}

std::string report_text(const ValidationReport& r) {
  std::ostringstream out;
  out << "ciosim validate: scenario " << r.scenario << ", " << r.ranks << " ranks; simulated on platform "
      << r.platform << ", measured with " << r.launcher << " (" << r.repeat << " repetition"
      << (r.repeat == 1 ? "" : "s") << ")\n";
  if (!r.placement.empty()) out << "placement: " << r.placement << "\n";
  if (!r.memory.empty()) out << "memory: " << r.memory << "\n";
  for (const auto& n : r.notes) out << "note: " << n << "\n";
  out << "\n";

  out << "Correctness: (a) simulated file = real file = expected layout, and each run's own check (a "
         "write's\n"
         "file, a read's data); (b) identical per-rank call traces and per-kind call counts\n";
  std::vector<std::vector<std::string>> rows{
      {"#", "algorithm", "params", "(a) file", "(b) trace", "(b) calls", ""}};
  for (const auto& p : r.points) {
    std::string file = p.file_ok()
                           ? "ok, " + std::to_string(p.expected_bytes) + " B"
                           : std::string("FAIL") + (p.sim_file_ok ? "" : " sim-file") +
                                 (p.mpi_file_ok ? "" : " mpi-file") + (p.files_identical ? "" : " differ") +
                                 (p.sim_verified ? "" : " sim-check") + (p.mpi_verified ? "" : " mpi-check");
    rows.push_back({std::to_string(p.index), p.algorithm, p.label.empty() ? "-" : p.label, file,
                    p.trace_difference.empty() ? "ok" : "FAIL", p.calls_difference.empty() ? "ok" : "FAIL",
                    p.passed() ? "" : "<-"});
  }
  out << table(rows, {true}, "  ");
  for (const auto& p : r.points) {
    if (!p.trace_difference.empty()) out << "  point " << p.index << " trace: " << p.trace_difference << "\n";
    if (!p.calls_difference.empty()) out << "  point " << p.index << " calls: " << p.calls_difference << "\n";
  }

  out << "\nTiming: predicted (simulation) vs measured (median over " << r.repeat
      << " runs, [min, max]); error = (predicted - measured) / measured. Reported, not asserted.\n";
  for (const auto& p : r.points) {
    out << "  point " << p.index << ": " << p.algorithm << (p.label.empty() ? "" : "  " + p.label) << "\n";
    std::vector<std::vector<std::string>> t{
        {"phase", "predicted_s", "measured_s", "min_s", "max_s", "error", ""}};
    for (const auto& ph : p.timing)
      t.push_back({ph.name, fixed(ph.predicted_s), fixed(ph.measured_s), fixed(ph.min_s), fixed(ph.max_s),
                   percent(ph.relative_error()), ph.noisy() ? "noisy: spread " + percent(ph.spread()) : ""});
    out << table(t, {false, true, true, true, true, true, false}, "    ");
    const bool any_step = std::any_of(p.steps.begin(), p.steps.end(), [](const StepRow& st) {
      return st.measured_s >= kStepRowMin_s || st.charged_s >= kStepRowMin_s;
    });
    if (!any_step) continue;
    out << "    CPU charges: every rank's work at each site, charged by the model (on a core of its own) vs "
           "the "
           "real code's time (step clock, one extra run)\n";
    std::vector<std::vector<std::string>> c{
        {"site", "charges", "tuples", "bytes", "charged_s", "measured_s", "error", "ns/tuple"}};
    for (const StepRow& st : p.steps) {
      if (st.measured_s < kStepRowMin_s && st.charged_s < kStepRowMin_s) continue;
      c.push_back(
          {st.site, std::to_string(st.charges), std::to_string(st.tuples), std::to_string(st.bytes_copied),
           fixed(st.charged_s), fixed(st.measured_s),
           st.charged_s > 0 ? percent((st.charged_s - st.measured_s) / st.measured_s) : "-",
           st.tuples > 0 ? fixed(st.measured_s / static_cast<double>(st.tuples) * 1e9, "%.1f") : "-"});
    }
    out << table(c, {false, true, true, true, true, true, true, true}, "      ");
  }
  const auto noisy_rows = std::count_if(r.points.begin(), r.points.end(), [](const PointReport& p) {
    return std::any_of(p.timing.begin(), p.timing.end(), [](const PhaseTiming& t) { return t.noisy(); });
  });
  if (noisy_rows > 0)
    out << "  noisy: the repetitions of a row differ by more than " << percent(kNoisySpread)
        << " of their median: too noisy to judge an error of that size (" << noisy_rows << " point"
        << (noisy_rows == 1 ? "" : "s") << "; rerun with more --repeat on an idle machine)\n";

  std::vector<std::string> labels;
  for (const auto& p : r.points)
    for (const auto& ref : p.references)
      if (std::find(labels.begin(), labels.end(), ref.label) == labels.end()) labels.push_back(ref.label);
  if (!labels.empty()) {
    out << "\nReference: the MPI library's own collective write of the same workload (MPI_File_set_view +\n"
           "MPI_File_write_all, file in x's order), measured total (open to close), median over "
        << r.repeat << " runs\n";
    std::vector<std::string> head{"#", "algorithm", "params", "technique_s"};
    for (const auto& l : labels) {
      head.push_back(l + "_s");
      head.push_back("predicted_s");
      head.push_back("error");
      head.push_back(l + " file");
    }
    std::vector<std::vector<std::string>> t{head};
    std::vector<std::string> notes, predictions;
    for (const auto& p : r.points) {
      std::vector<std::string> row{std::to_string(p.index), p.algorithm, p.label.empty() ? "-" : p.label,
                                   fixed(p.timing.empty() ? NAN : p.timing.front().measured_s)};
      for (const auto& l : labels) {
        const auto it = std::find_if(p.references.begin(), p.references.end(),
                                     [&](const ReferenceRun& x) { return x.label == l; });
        if (it == p.references.end() || !it->available) {
          row.insert(row.end(), {"n/a", "-", "-", "-"});
          if (it != p.references.end() &&
              std::find(notes.begin(), notes.end(), l + ": " + it->why) == notes.end())
            notes.push_back(l + ": " + it->why);
        } else {
          const bool pred = it->predicted;
          row.insert(row.end(),
                     {fixed(it->total.measured_s), pred ? fixed(it->total.predicted_s) : "-",
                      pred ? percent(it->total.relative_error()) : "-", it->verified ? "ok" : "WRONG"});
          if (!pred && std::find(predictions.begin(), predictions.end(), l + ": " + it->not_predicted) ==
                           predictions.end())
            predictions.push_back(l + ": " + it->not_predicted);
        }
      }
      t.push_back(row);
    }
    std::vector<bool> right{true, false, false, true};
    for (std::size_t i = 0; i < labels.size(); ++i) right.insert(right.end(), {true, true, true, false});
    out << table(t, right, "  ");
    out << "  predicted: two-phase with run.cpu_charge = \"library\" (ROMIO's calls and its cost per piece,\n"
           "  nodes.romio_piece_s), default hints, as the library ran it\n";
    for (const auto& n : notes) out << "  unavailable: " << n << "\n";
    for (const auto& n : predictions) out << "  not predicted: " << n << "\n";
  }
  out << "\n"
      << (r.passed() ? "PASSED" : "FAILED") << ": (a) and (b) " << (r.passed() ? "hold" : "fail") << " for "
      << (r.passed() ? "every" : "some") << " point\n";
  return out.str();
}

std::string report_json(const ValidationReport& r) {
  ojson j;
  j["scenario"] = r.scenario;
  j["platform"] = r.platform;
  j["ranks"] = r.ranks;
  j["repeat"] = r.repeat;
  j["launcher"] = r.launcher;
  j["command"] = r.command;
  j["placement"] = r.placement;
  j["memory"] = r.memory;
  j["notes"] = r.notes;
  j["passed"] = r.passed();
  j["points"] = ojson::array();
  for (const auto& p : r.points) {
    ojson o;
    o["point"] = p.index;
    o["algorithm"] = p.algorithm;
    o["params"] = p.label;
    o["passed"] = p.passed();
    o["file"] = ojson{{"expected_bytes", p.expected_bytes},       {"simulated_is_expected", p.sim_file_ok},
                      {"real_is_expected", p.mpi_file_ok},        {"identical", p.files_identical},
                      {"simulated_run_verified", p.sim_verified}, {"real_run_verified", p.mpi_verified}};
    o["trace_identical"] = p.trace_difference.empty();
    if (!p.trace_difference.empty()) o["trace_difference"] = p.trace_difference;
    o["calls_identical"] = p.calls_difference.empty();
    if (!p.calls_difference.empty()) o["calls_difference"] = p.calls_difference;
    o["timing"] = ojson::array();
    for (const auto& t : p.timing) o["timing"].push_back(timing_json(t, true));
    if (!p.steps.empty()) {
      o["cpu_steps"] = ojson::array();
      for (const StepRow& st : p.steps)
        o["cpu_steps"].push_back({{"site", st.site},
                                  {"charges", st.charges},
                                  {"tuples", st.tuples},
                                  {"bytes_copied", st.bytes_copied},
                                  {"charged_s", st.charged_s},
                                  {"measured_s", st.measured_s}});
    }
    o["references"] = ojson::array();
    for (const auto& ref : p.references) {
      ojson x;
      x["label"] = ref.label;
      x["available"] = ref.available;
      if (!ref.available) {
        x["why"] = ref.why;
      } else {
        x["total"] = timing_json(ref.total, ref.predicted);
        x["write"] = timing_json(ref.write, false);
        x["file_verified"] = ref.verified;
        if (!ref.predicted) x["not_predicted"] = ref.not_predicted;
      }
      o["references"].push_back(std::move(x));
    }
    j["points"].push_back(std::move(o));
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace ciosim::app
