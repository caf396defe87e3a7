// `ciosim advise SCENARIO [--set key=value ...] [-n N] [--out DIR] [-j N] [--budget N] [--top K]`: which
// technique and hints to use for one point's workload (a captured application's trace or any workload)
// on its platform. Every technique that writes the application's file (x in its order: not Block I/O's
// rank-major reference) is simulated with its defaults, then the hints that matter for it, within a
// budget of points: two-phase's aggregators (cb_config_list, cb_nodes), its collective buffer
// (cb_buffer_size) and LAP's aggregator choice (Filgueira et al., VECPAR 2008); multiple-phase's phase
// count (Singh et al., "Multiple-Phase Collective I/O"); view-based I/O's aggregators and buffer
// (Blas et al., "View-based collective I/O for MPI-IO"). The points run as a sweep (results folder,
// -j), and the best few are printed with their speed-up over the MPI library's default collective
// write and the analysis of where their time goes.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "algorithms/technique.hpp"
#include "app/cleanup.hpp"
#include "app/commands.hpp"
#include "app/output_dir.hpp"
#include "app/sweep.hpp"
#include "app/sweep_folder.hpp"
#include "config/params.hpp"
#include "config/resources.hpp"
#include "config/results.hpp"
#include "config/scenario.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

/// One configuration to try: scenario keys set on top of the user's, and what it is for.
struct Candidate {
  std::vector<std::pair<std::string, std::string>> keys;
  bool baseline = false;  ///< the MPI library's default collective write
};

std::string label(const Candidate& c) {
  std::string out;
  for (const auto& [k, v] : c.keys) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out;
}

/// Powers of two from `from` up to below `below`.
std::vector<int> powers_below(int from, int below) {
  std::vector<int> out;
  for (int k = from; k < below; k *= 2) out.push_back(k);
  return out;
}

/// The configurations worth simulating for `base`, defaults first (one per technique), then each
/// technique's hint variants taken in turn, so that a budget cuts the variants, not the techniques.
std::vector<Candidate> candidates(const RunSpec& base) {
  std::vector<Candidate> defaults;
  std::vector<std::vector<Candidate>> variants;
  const int P = base.ranks;
  const auto mib = [](int m) { return std::to_string(static_cast<std::int64_t>(m) << 20); };
  // The MPI library's default collective write: with its own cost per piece when the platform has it,
  // else ROMIO's two-phase with its default hints.
  const bool library = base.platform.romio_piece_s > 0;
  for (const TechniqueInfo& t : techniques()) {
    if (t.layout != FileLayout::Logical) continue;  // not the application's file
    defaults.push_back({{{"run.algorithm", t.name}}, t.name == "two-phase" && !library});
    std::vector<Candidate> v;
    const auto add = [&](std::vector<std::pair<std::string, std::string>> keys) {
      keys.insert(keys.begin(), {"run.algorithm", t.name});
      v.push_back({std::move(keys), false});
    };
    if (t.name == "two-phase") {
      if (library)
        defaults.push_back({{{"run.algorithm", "two-phase"}, {"run.cpu_charge", "library"}}, true});
      add({{"hints.cb_config_list", "*:*"}});  // every rank an aggregator
      for (int k : powers_below(2, P))
        add({{"hints.cb_config_list", "*:*"}, {"hints.cb_nodes", std::to_string(k)}});
      add({{"hints.cb_buffer_size", mib(4)}});
      add({{"hints.cb_buffer_size", mib(64)}});
      add({{"hints.lap", "acn"}});
      add({{"hints.lap", "avn"}});
    } else if (t.name == "multiple-phase") {
      const int all = static_cast<int>(std::lround(std::log2(std::max(1, P))));
      for (int k = 1; k < all; ++k) add({{"run.phases", std::to_string(k)}});
    } else if (t.name == "view-based") {
      for (int k : powers_below(1, P)) add({{"hints.vb_aggregators", std::to_string(k)}});
      add({{"hints.vb_buffer_size", mib(1)}});
      add({{"hints.vb_buffer_size", mib(4)}});
    }
    variants.push_back(std::move(v));
  }
  std::vector<Candidate> out = defaults;
  for (std::size_t round = 0;; ++round) {
    bool any = false;
    for (const auto& v : variants)
      if (round < v.size()) out.push_back(v[round]), any = true;
    if (!any) break;
  }
  return out;
}

}  // namespace

CLI::App* add_advise_command(CLI::App& app, AdviseOptions& o) {
  CLI::App* c = app.add_subcommand(
      "advise",
      "Which technique and hints to use for a scenario's point (a captured trace or any workload) on its "
      "platform: simulates each technique and the hints that matter, prints the best");
  nonempty(
      c->add_option("SCENARIO", o.scenario, "Scenario file (TOML) or a shipped scenario's name")->required(),
      "a scenario file (TOML) or a shipped scenario's name");
  c->add_option("--set", o.sets, "Override a parameter, key=value (repeatable); the result must be one point")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  nonempty(c->add_option("-n,--np", o.ranks, "MPI ranks (overrides run.ranks)"), "a number of ranks");
  nonempty(c->add_option("--out", o.out,
                         "Results folder of the configurations tried (default results/<scenario>-advice)")
               ->type_name("DIR"),
           "a directory");
  nonempty(
      c->add_option("-j,--jobs", o.jobs, "Simulate N configurations at once (default 1)")->type_name("N"),
      "a number of configurations, 1 to 256");
  nonempty(
      c->add_option("--budget", o.budget,
                    "At most N configurations (default 48): every technique's defaults first, then hints")
          ->type_name("N"),
      "a number of configurations, 1 to 10000");
  nonempty(c->add_option("--top", o.top, "Print the best K (default 5)")->type_name("K"),
           "a number of configurations, >= 1");
  c->add_flag("-q,--quiet", o.quiet, "No progress messages on stderr");
  return c;
}

int advise_command(const AdviseOptions& opt) {
  if (opt.jobs < 1 || opt.jobs > kMaxJobs)
    throw config::ConfigError("-j " + std::to_string(opt.jobs) +
                              ": the configurations simulated at once must be 1 to " +
                              std::to_string(kMaxJobs));
  if (opt.budget < 1 || opt.budget > 10000)
    throw config::ConfigError("--budget " + std::to_string(opt.budget) +
                              ": the configurations tried must be 1 to 10000");
  if (opt.top < 1) throw config::ConfigError("--top " + std::to_string(opt.top) + ": must be at least 1");
  config::LoadOptions load;
  load.sets = opt.sets;
  if (opt.ranks != 0) load.sets.push_back("run.ranks=" + std::to_string(opt.ranks));  // checked as the key
  load.data_dirs = data_dirs();
  load.memory = config::memory_limit("", opt.jobs);
  load.max_work = config::kDefaultMaxWork;
  // The point: the scenario as given, whatever technique(s) it names (advise tries them all).
  config::LoadOptions as_given = load;
  as_given.keep_going = true;
  // A point no technique the scenario names can serve (skipped, or refused when it is the only point) is
  // taken as two-phase sees it: every configuration is tried below anyway.
  config::Scenario base;
  std::string refused;
  try {
    base = config::load_scenario(opt.scenario, as_given);
    if (base.runs.empty()) refused = base.skipped.front().reason;
  } catch (const config::ConfigError& e) {
    refused = e.what();
  }
  if (!refused.empty()) {
    config::LoadOptions two_phase = as_given;
    two_phase.sets.push_back("run.algorithm=two-phase");
    try {
      base = config::load_scenario(opt.scenario, two_phase);
    } catch (const config::ConfigError&) {
      throw config::ConfigError(refused);  // the scenario's own reason
    }
    if (base.runs.empty()) throw config::ConfigError(refused);
  }
  std::vector<std::string> points;
  for (const RunSpec& r : base.runs) {
    std::string key;
    for (const auto& [k, v] : r.params)
      if (k != "run.algorithm") key += k + "=" + v + ", ";
    if (std::find(points.begin(), points.end(), key) == points.end()) points.push_back(key);
  }
  if (points.size() != 1)
    throw config::ConfigError(
        "advise needs one point (any techniques); scenario " + base.name + " has " +
        std::to_string(points.size()) +
        " besides run.algorithm: fix its swept keys with --set, e.g. --set workload.bx=64");

  // Each configuration is the scenario loaded again with its keys set: the same checks as `run`, and a
  // configuration that cannot serve this workload is listed with the reason.
  config::Scenario adv = base;
  adv.name = base.name + "-advice";
  adv.runs.clear();
  adv.skipped.clear();  // the scenario's own techniques that cannot serve: tried again below
  std::vector<Candidate> tried;
  std::vector<Candidate> all = candidates(base.runs[0]);
  const std::size_t left_out =
      all.size() > static_cast<std::size_t>(opt.budget) ? all.size() - opt.budget : 0;
  all.resize(std::min(all.size(), static_cast<std::size_t>(opt.budget)));
  for (const Candidate& c : all) {
    config::LoadOptions one = load;
    for (const auto& [k, v] : c.keys) one.sets.push_back(k + "=" + v);
    try {
      config::Scenario s = config::load_scenario(opt.scenario, one);
      RunSpec r = s.runs.at(0);
      for (const auto& [k, v] : c.keys) {  // the point's keys, the configuration's set
        auto it =
            std::find_if(r.params.begin(), r.params.end(), [&](const auto& kv) { return kv.first == k; });
        if (it == r.params.end())
          r.params.emplace_back(k, v);
        else
          it->second = v;
      }
      adv.runs.push_back(std::move(r));
      tried.push_back(c);
    } catch (const config::ConfigError& e) {
      adv.skipped.push_back({label(c), e.what()});
    }
  }
  if (adv.runs.empty()) throw config::ConfigError("advise: no technique can serve this point");

  install_cleanup_handlers();
  OutputDir out(opt.out.empty() ? fs::path("results") / adv.name : fs::path(opt.out));
  SweepInfo info{adv.name, adv.runs.size(), Shard{}, adv.skipped, comparable_config(adv)};
  SweepFolder folder(out, info, {"effective-config.toml", config::effective_config_toml(base)},
                     "effective-config.json", {}, false);
  run_sweep(adv.runs, folder, {opt.jobs, opt.quiet, true});
  const std::vector<RunResult> runs = folder.runs();

  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return runs[a].sim_time_s < runs[b].sim_time_s; });
  const auto base_it =
      std::find_if(tried.begin(), tried.end(), [](const Candidate& c) { return c.baseline; });
  const RunResult* baseline =
      base_it == tried.end() ? nullptr : &runs[static_cast<std::size_t>(base_it - tried.begin())];
  const RunSpec& b = base.runs[0];
  std::cout << "advice for " << base.name << " (" << b.ranks << " ranks, workload " << b.workload.kind
            << ", platform " << b.platform.name << "): " << runs.size() << " configurations simulated";
  if (!adv.skipped.empty()) std::cout << ", " << adv.skipped.size() << " cannot serve this point";
  if (left_out) std::cout << ", " << left_out << " left out by --budget " << opt.budget;
  std::cout << "\n\n  #  time_s     speed-up  configuration\n";
  const std::size_t shown = std::min(order.size(), static_cast<std::size_t>(opt.top));
  for (std::size_t k = 0; k < shown; ++k) {
    const RunResult& r = runs[order[k]];
    std::ostringstream up;
    if (baseline && r.sim_time_s > 0)
      up << std::fixed << std::setprecision(2) << baseline->sim_time_s / r.sim_time_s << "x";
    std::cout << "  " << k + 1 << "  " << config::fixed(r.sim_time_s) << "  " << std::setw(8)
              << (up.str().empty() ? "-" : up.str()) << "  " << label(tried[order[k]]) << "\n";
  }
  if (baseline)
    std::cout
        << "\nspeed-up: over " << label(*base_it)
        << (base_it->keys.size() > 1
                ? " (the MPI library's MPI_File_write_all: ROMIO's two-phase and its cost per piece)"
                : " (ROMIO's two-phase with its default hints, as the MPI library's MPI_File_write_all)")
        << ", " << config::fixed(baseline->sim_time_s) << " s\n";
  std::cout << "\nwhere the time goes:\n";
  for (std::size_t k = 0; k < shown; ++k)
    if (!runs[order[k]].bottleneck.empty())
      std::cout << "  " << label(tried[order[k]]) << ": " << runs[order[k]].bottleneck << "\n";
  const bool baseline_shown = std::find(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown),
                                        static_cast<std::size_t>(base_it - tried.begin())) !=
                              order.begin() + static_cast<std::ptrdiff_t>(shown);
  if (baseline && !baseline_shown && !baseline->bottleneck.empty())
    std::cout << "  " << label(*base_it) << " (the baseline): " << baseline->bottleneck << "\n";
  if (!adv.skipped.empty()) {
    std::cout << "\ncannot serve this point:\n";
    for (const auto& k : adv.skipped) std::cout << "  " << k.point << ": " << k.reason << "\n";
  }
  std::cout << "\nevery configuration: " << (out.path() / "results.json").string() << " (ciosim plot "
            << out.path().string() << ")\n"
            << std::flush;
  return 0;
}

}  // namespace ciosim::app
