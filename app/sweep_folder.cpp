#include "app/sweep_folder.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "app/commands.hpp"
#include "config/params.hpp"
#include "config/phases_csv.hpp"
#include "config/results.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

constexpr double kRewriteEvery_s = 2;  ///< partial results rewritten at most this often while running

/// FNV-1a 64 of the configuration: a point record names the sweep it belongs to.
std::string fingerprint(const SweepInfo& info) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : info.config.dump() + "|" + std::to_string(info.points)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string record_name(std::size_t point) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "point-%06zu.json", point);
  return buf;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string compact(const ojson& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string difference(const ojson& a, const ojson& b, const std::string& path) {
  if (a == b) return "";
  if (a.is_object() && b.is_object()) {
    for (const auto& [k, v] : a.items()) {
      const std::string sub = path.empty() ? k : path + "." + k;
      if (!b.contains(k)) return sub + " (saved " + compact(v) + ", now absent)";
      if (std::string d = difference(v, b.at(k), sub); !d.empty()) return d;
    }
    for (const auto& [k, v] : b.items())
      if (!a.contains(k))
        return (path.empty() ? k : path + "." + k) + " (saved absent, now " + compact(v) + ")";
  }
  return path + " (saved " + compact(a) + ", now " + compact(b) + ")";
}

}  // namespace

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() < 7 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (slash == std::string::npos || !digits(text.substr(0, slash)) || !digits(text.substr(slash + 1)))
    throw config::ConfigError("--shard " + config::quote(text) +
                              ": expected I/N, shard I of N, I from 1 to N (e.g. --shard 1/4)");
  Shard s{std::stoi(text.substr(0, slash)), std::stoi(text.substr(slash + 1))};
  if (s.count < 1 || s.index < 1 || s.index > s.count)
    throw config::ConfigError(
        "--shard " + text + ": I must be 1 to N and N at least 1 (shards are numbered from 1: --shard 1/" +
        std::to_string(std::max(s.count, 1)) + " ... --shard " + std::to_string(std::max(s.count, 1)) + "/" +
        std::to_string(std::max(s.count, 1)) + ")");
  return s;
}

ojson comparable_config(const config::Scenario& s) {
  const ojson full = ojson::parse(config::effective_config_json(s));
  ojson params = ojson::object();
  for (const auto& set : s.settings) {
    const ojson& p = full.at("parameters").at(set.key);
    params[set.key] =
        ojson{{"value", p.at("value")}, {"in_params", set.sweep || set.origin == config::Origin::Set}};
  }
  return ojson{{"ciosim_version", full.at("ciosim_version")},
               {"name", s.name},
               {"parameters", std::move(params)},
               {"platforms", full.at("platforms")}};
}

std::string config_difference(const ojson& saved, const ojson& now) {
  // Parameter keys are dotted already: name them without the "parameters." prefix.
  if (saved.contains("parameters") && now.contains("parameters") &&
      saved.at("parameters") != now.at("parameters"))
    return difference(saved.at("parameters"), now.at("parameters"), "");
  return difference(saved, now, "");
}

std::optional<SweepInfo> read_sweep_info(const fs::path& dir) {
  const fs::path file = dir / "points" / "sweep.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  try {
    const ojson j = ojson::parse(slurp(file));
    SweepInfo info;
    info.scenario = j.at("scenario").get<std::string>();
    info.points = j.at("points").get<std::size_t>();
    if (j.contains("shard"))
      info.shard = {j.at("shard").at("index").get<int>(), j.at("shard").at("count").get<int>()};
    for (const auto& p : j.at("skipped"))
      info.skipped.push_back({p.at("point").get<std::string>(), p.at("reason").get<std::string>()});
    info.config = j.at("config");
    return info;
  } catch (const nlohmann::json::exception& e) {
    throw config::ConfigError(file.string() + " is malformed (" + config::one_line(e.what()) +
                              "); run without --resume to replace the folder's results");
  }
}

static std::string sweep_info_json(const SweepInfo& info) {
  ojson j;
  j["scenario"] = info.scenario;
  j["points"] = info.points;
  if (!info.shard.whole()) j["shard"] = ojson{{"index", info.shard.index}, {"count", info.shard.count}};
  j["skipped"] = ojson::array();
  for (const auto& p : info.skipped) j["skipped"].push_back(ojson{{"point", p.point}, {"reason", p.reason}});
  j["config"] = info.config;
  return j.dump(2) + "\n";
}

std::map<std::size_t, RunResult> read_points(const fs::path& dir, const SweepInfo& info) {
  std::map<std::size_t, RunResult> out;
  const std::string mine = fingerprint(info);
  for (std::size_t p = 1; p <= info.points; ++p) {
    if (!info.shard.has(p)) continue;
    const fs::path file = dir / "points" / record_name(p);
    std::error_code ec;
    if (!fs::is_regular_file(fs::symlink_status(file, ec))) continue;
    try {
      const nlohmann::json j = nlohmann::json::parse(slurp(file));
      if (j.at("config").get<std::string>() != mine || j.at("point").get<std::size_t>() != p) continue;
      out.emplace(p, config::run_result_from_json(j.at("result")));
    } catch (const std::exception&) {
      continue;  // unreadable: the point runs again
    }
  }
  return out;
}

std::string sweep_results_json(const SweepInfo& info, const std::vector<RunResult>& runs, bool partial,
                               std::size_t points_total) {
  const std::string plain = config::results_json(info.scenario, runs);
  if (info.shard.whole() && info.skipped.empty() && !partial) return plain;
  const ojson base = ojson::parse(plain);
  ojson j;
  for (const auto& [k, v] : base.items()) {
    if (k == "runs") {
      if (partial) {
        j["partial"] = true;
        j["points_done"] = runs.size();
        j["points_total"] = points_total;
      }
      if (!info.shard.whole())
        j["shard"] =
            ojson{{"index", info.shard.index}, {"count", info.shard.count}, {"sweep_points", info.points}};
      if (!info.skipped.empty()) {
        j["skipped"] = ojson::array();
        for (const auto& p : info.skipped)
          j["skipped"].push_back(ojson{{"point", p.point}, {"reason", p.reason}});
      }
    }
    j[k] = v;
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

SweepFolder::SweepFolder(OutputDir& out, SweepInfo info, std::pair<std::string, std::string> effective,
                         std::string other_effective, std::map<std::size_t, RunResult> done, bool resumed)
    : out_(out),
      info_(std::move(info)),
      effective_(std::move(effective)),
      other_effective_(std::move(other_effective)),
      done_(std::move(done)),
      adopted_(resumed) {
  for (std::size_t p = 1; p <= info_.points; ++p)
    if (info_.shard.has(p)) mine_.push_back(p);
}

void SweepFolder::adopt() {
  out_.create();
  // The folder's earlier sweep (ciosim's own records only) gives way to this one; sweep.json first, so
  // that a folder stopped half-way never pairs a configuration with another sweep's points.
  out_.remove_own("points/sweep.json");
  std::error_code ec;
  if (fs::is_directory(out_.path() / "points", ec))
    for (const auto& e : fs::directory_iterator(out_.path() / "points", ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("point-", 0) == 0 && n.size() == record_name(1).size() && n.substr(n.size() - 5) == ".json")
        out_.remove_own("points/" + n);
    }
  out_.put("points/sweep.json", sweep_info_json(info_));
  adopted_ = true;
}

void SweepFolder::save(std::size_t point, const RunResult& r) {
  if (!adopted_) adopt();
  nlohmann::json j;
  j["point"] = point;
  j["config"] = fingerprint(info_);
  std::vector<std::string> label;
  for (const auto& [k, v] : r.params) label.push_back(k + "=" + v);
  j["label"] = config::join(label);
  j["result"] = config::run_result_to_json(r);
  out_.put("points/" + record_name(point), j.dump(1) + "\n");
  done_[point] = r;
  if (last_write_ < 0 || now_s() - last_write_ >= kRewriteEvery_s) write_results();
}

std::vector<RunResult> SweepFolder::runs() const {
  std::vector<RunResult> out;
  for (const auto& [p, r] : done_) out.push_back(r);
  return out;
}

void SweepFolder::write_results() {
  if (done_.empty() && !complete()) return;
  if (!adopted_) adopt();
  const bool partial = !complete();
  const std::vector<RunResult> rs = runs();
  std::vector<std::size_t> numbers;  // the points' numbers in the whole sweep, as the timelines' names
  for (const auto& [p, r] : done_) numbers.push_back(p);
  // A partial sweep's CSV files carry ".partial" in their names, so a reader of results.csv or phases.csv
  // cannot take half a sweep for the whole.
  const std::string part = partial ? ".partial" : "";
  const std::string other = partial ? "" : ".partial";
  out_.commit({{"results.json", sweep_results_json(info_, rs, partial, mine_.size())},
               {"results" + part + ".csv", config::results_csv(rs, config::Clock::Simulated, numbers)},
               {"phases" + part + ".csv", config::phases_csv(rs, numbers)},
               {effective_.first, effective_.second}},
              {"results" + other + ".csv", "phases" + other + ".csv", other_effective_});
  last_write_ = now_s();
}

}  // namespace ciosim::app
