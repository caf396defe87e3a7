// `ciosim plan`: a technique's plan, for a student to follow.
//   ciosim plan --nx N --np P [--bx B | --kind irregular --seed S] [--json] [--svg FILE]
//     the IEC inspector's plan: a text view per phase (default), the plan as JSON (--json), and the memory
//     layouts as an SVG picture (--svg).
//   ciosim plan SCENARIO [--set KEY=VALUE ...] [--point K] [--rounds N] [--svg FILE]
//     the plan of one point of a scenario: IEC's (as above) or two-phase's (aggregators, file domains,
//     rounds, pieces per rank and aggregator).
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "algorithms/technique.hpp"
#include "app/commands.hpp"
#include "app/plan_views.hpp"
#include "app/staged_file.hpp"
#include "config/input_files.hpp"
#include "config/placement.hpp"
#include "config/scenario.hpp"
#include "config/trace_replay.hpp"
#include "config/workload.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

ojson tuples_json(const StridedDatatype& dt) {
  ojson a = ojson::array();
  dt.for_tuples([&](std::int64_t off, std::int64_t len) { a.push_back(ojson::array({off, len})); });
  return a;
}

/// The inspector's output as JSON, one rank per line (the format `plan --json` has always printed).
void print_iec_json(const PlanOptions& opt, const std::vector<iec::RankPlan>& plans) {
  ojson head;
  head["nx"] = opt.nx;
  head["np"] = opt.np;
  head["bx"] = opt.bx;
  head["kind"] = opt.kind;
  if (opt.kind == "irregular") head["seed"] = opt.seed;
  std::string text = head.dump();
  text.pop_back();  // reopen the object to stream the ranks, one per line
  std::cout << text << ",\"ranks\":[\n";
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const auto& p = plans[i];
    ojson r;
    r["rank"] = p.rank;
    r["alloc_offset"] = p.alloc_offset;
    r["buffer_entries"] = p.buffer_entries;
    r["phases"] = ojson::array();
    for (const auto& ph : p.phases) {
      ojson o;
      o["partner"] = ph.partner;
      o["recv_offset"] = ph.recv_offset;
      o["send"] = tuples_json(ph.send);
      o["send_replicas"] = ph.send.count();
      o["send_stride"] = ph.send.stride();
      r["phases"].push_back(std::move(o));
    }
    r["pack"] = tuples_json(p.pack);
    r["pack_replicas"] = p.pack.count();
    r["pack_stride"] = p.pack.stride();
    r["file_offset"] = p.file_offset;
    std::cout << r.dump() << (i + 1 < plans.size() ? ",\n" : "\n");
  }
  std::cout << "]}\n" << std::flush;
}

/// The SVG's staging file beside opt.svg (checked first: a new name or a regular file to replace, in an
/// existing directory; app/staged_file.hpp), or nothing without --svg.
void stage_svg(const PlanOptions& opt, std::optional<StagedFile>& out) {
  if (!opt.svg.empty()) out.emplace("--svg", opt.svg);
}

/// Writes the picture and renames it onto opt.svg once whole: a failed write leaves the user's file as it
/// was, never half a picture.
void finish_svg(std::optional<StagedFile>& out, const std::string& svg) {
  if (!out) return;
  out->write(svg);
  out->commit();
}

/// The IEC views of distribution d (text on stdout, SVG into opt.svg when given), with the plans of
/// `algorithm`: iec's inspector, or iec-parametric's equations (the same plans, docs/iec.md).
int show_iec(const PlanOptions& opt, const std::string& title, const Distribution& d,
             const std::string& algorithm = "iec") {
  if (const std::string reason = technique(algorithm).check(d); !reason.empty())
    throw config::ConfigError("technique " + algorithm + " cannot run this workload: " + reason);
  std::vector<iec::RankPlan> plans;
  if (algorithm == "iec") {
    plans = iec::inspect_all(d);
  } else {
    for (int r = 0; r < d.nprocs(); ++r)
      plans.push_back(iec::parametric_plan(d.nx, d.nprocs(), iec::block_cyclic_bx(d), r));
  }
  std::optional<StagedFile> svg_out;
  stage_svg(opt, svg_out);
  const std::string svg = opt.svg.empty() ? "" : iec_svg(title, d, plans);  // its limits checked first
  if (opt.json)
    print_iec_json(opt, plans);
  else
    std::cout << iec_text(title, d, plans) << std::flush;
  finish_svg(svg_out, svg);
  return 0;
}

int plan_scenario(const PlanOptions& opt) {
  if (opt.json) throw config::ConfigError("--json applies to --nx/--np (the IEC plan) only");
  config::LoadOptions lo;
  lo.sets = opt.sets;
  lo.data_dirs = data_dirs();
  lo.memory = config::memory_limit("", 1);
  lo.max_work = config::kDefaultMaxWork;
  const config::Scenario sc = config::load_scenario(opt.scenario, lo);
  const auto n = static_cast<std::int64_t>(sc.runs.size());
  std::int64_t k = opt.point;
  if (k == 0 && n == 1) k = 1;
  if (k < 1 || k > n)
    throw config::ConfigError(k == 0 ? "scenario " + sc.name + " has " + std::to_string(n) +
                                           " points; choose one with --point K (1.." + std::to_string(n) +
                                           "; `ciosim run --dry-run` lists them)"
                                     : "--point " + std::to_string(k) + " is out of range; valid: 1.." +
                                           std::to_string(n));
  const RunSpec& spec = sc.runs[static_cast<std::size_t>(k - 1)];
  const bool calls = replays_calls(spec.workload);
  if (opt.call != 0 && !calls)
    throw config::ConfigError(
        "--call applies to a trace replayed call by call (workload.kind = \"trace\", "
        "workload.replay = \"calls\"); point " +
        std::to_string(k) + " is " + spec.workload.kind);
  // A replayed application: one of its collective calls, whose shape is the distribution of that call's x
  // (its file range from its first byte; algorithms/replay.hpp).
  std::string call_text;
  const Distribution d = [&] {
    if (!calls) return make_distribution(spec.workload, spec.ranks);
    const Replay rep =
        config::replay_from_capture(spec.workload.file, spec.ranks, spec.workload.element_size);
    const auto steps = static_cast<std::int64_t>(rep.steps.size());
    const std::int64_t c = opt.call == 0 ? 1 : opt.call;
    if (c < 1 || c > steps)
      throw config::ConfigError("--call " + std::to_string(c) + " is out of range; the capture makes " +
                                std::to_string(steps) + " collective calls (valid: 1.." +
                                std::to_string(steps) + ")");
    const ReplayStep& st = rep.steps[static_cast<std::size_t>(c - 1)];
    call_text = ", collective call " + std::to_string(c) + " of " + std::to_string(steps) + " (" + st.name +
                " from byte " + std::to_string(st.position) + "; file offsets below count from there" +
                (st.write ? "" : "; shown as the write of the same regions") + ")";
    return rep.shapes[static_cast<std::size_t>(st.shape)];
  }();
  const std::string label = config::point_label(spec);
  const std::string title =
      "Scenario " + sc.name + ", point " + std::to_string(k) + " of " + std::to_string(n) +
      (label.empty() ? "" : " (" + label + ")") + ": " + spec.algorithm + ", " + std::to_string(spec.ranks) +
      " ranks, " + spec.workload.kind + " workload of " + std::to_string(d.nx) + " entries" + call_text;
  if (spec.algorithm == "iec" || spec.algorithm == "iec-parametric")
    return show_iec(opt, title, d, spec.algorithm);
  if (spec.algorithm == "multiple-phase") {
    multiple_phase::Layout layout;
    if (std::string why = multiple_phase::layout_of(d, layout); !why.empty()) throw config::ConfigError(why);
    const int phases = multiple_phase::phases_to_run(spec.phases, spec.ranks);
    std::optional<StagedFile> svg_out;
    stage_svg(opt, svg_out);
    const std::string svg = opt.svg.empty() ? "" : multiple_phase_svg(title, layout, phases);  // limits first
    std::cout << multiple_phase_text(title, layout, phases, spec.workload.element_size) << std::flush;
    finish_svg(svg_out, svg);
    return 0;
  }
  if (spec.algorithm == "view-based") {
    std::optional<StagedFile> svg_out;
    stage_svg(opt, svg_out);
    const std::string svg =
        opt.svg.empty() ? ""
                        : view_based_svg(title, d, spec.hints, spec.workload.element_size);  // limits first
    std::cout << view_based_text(title, d, spec.hints, spec.workload.element_size) << std::flush;
    finish_svg(svg_out, svg);
    return 0;
  }
  if (has_baseline_view(spec.algorithm)) {
    if (!opt.svg.empty())
      throw config::ConfigError("--svg draws the IEC, multiple-phase, view-based and LAP plans; " +
                                spec.algorithm + "'s plan is text");
    std::cout << baseline_text(title, d, spec.algorithm, spec.hints, spec.workload.element_size)
              << std::flush;
    return 0;
  }
  if (spec.algorithm != "two-phase")
    throw config::ConfigError("plan has no view of technique " + spec.algorithm + " (point " +
                              std::to_string(k) + "; see docs/techniques.md for it)");
  if (!opt.svg.empty() && spec.hints.lap == LapCriterion::None)
    throw config::ConfigError(
        "--svg draws the IEC, multiple-phase, view-based and LAP plans; two-phase's plan without hints.lap "
        "is "
        "text");
  std::vector<std::string> hosts;
  for (int r = 0; r < spec.ranks; ++r) hosts.push_back("node" + std::to_string(config::node_of(spec, r)));
  if (spec.hints.lap != LapCriterion::None) {
    if (d.unit < 1 || d.nx % d.unit != 0)
      throw config::ConfigError("hints.lap: the distribution's " + std::to_string(d.nx) +
                                " entries are not a whole number of items of " + std::to_string(d.unit));
    std::optional<StagedFile> svg_out;
    stage_svg(opt, svg_out);
    const std::string svg = opt.svg.empty() ? ""
                                            : lap_svg(title, lap_assignment(d, hosts, spec.hints.lap),
                                                      spec.hints.lap);  // limits first
    std::cout << lap_text(title, d, hosts, spec.hints, spec.workload.element_size, opt.rounds) << std::flush;
    finish_svg(svg_out, svg);
    return 0;
  }
  const two_phase::WritePlan plan = two_phase::plan_write(d, spec.workload.element_size, spec.hints, hosts);
  std::string head = title;
  if (spec.access == Access::Read)
    head += "\n(the point reads; the plan of the write is shown, the read mirrors it)";
  std::cout << two_phase_text(head, plan, spec.workload.element_size, spec.hints.cb_buffer_size, opt.rounds)
            << std::flush;
  return 0;
}

}  // namespace

CLI::App* add_plan_command(CLI::App& app, PlanOptions& o) {
  CLI::App* plan = app.add_subcommand(
      "plan",
      "Show a technique's plan step by step: IEC's memory layout per phase (--nx/--np), or one scenario "
      "point's IEC, two-phase (aggregators, file domains, rounds, pieces per rank; with LAP, the benefit "
      "matrix and the chosen hosts), multiple-phase (what each rank holds after each phase, what it sends, "
      "the file regions it writes) or view-based plan (the views shipped, block owners, pools)");
  nonempty(plan->add_option("SCENARIO", o.scenario, "Scenario file (TOML) whose point to show"),
           "a scenario file (TOML), or leave it out for --nx/--np");
  plan->add_option("--set", o.sets, "Override a parameter, as for run (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  nonempty(
      plan->add_option("--point", o.point, "The point to show, 1-based (needed when the scenario sweeps)"),
      "a point's number, from 1");
  nonempty(
      plan->add_option("--call", o.call,
                       "A trace replayed call by call: the collective call to show, 1-based (default 1)"),
      "a collective call's number, from 1");
  nonempty(plan->add_option("--rounds", o.rounds, "Two-phase: rounds shown per aggregator (default 4)"),
           "a number of rounds, >= 0");
  const auto given = [&](const char* name, std::int64_t& value, bool& flag, const char* help) {
    nonempty(plan->add_option_function<std::int64_t>(
                     name,
                     [&value, &flag](const std::int64_t& v) {
                       value = v;
                       flag = true;
                     },
                     help)
                 ->type_name("INT"),
             "an integer");
  };
  given("--nx", o.nx, o.nx_given, "Entries of the global vector (IEC plan)");
  given("--np", o.np, o.np_given, "Number of ranks (IEC plan)");
  given("--bx", o.bx, o.bx_given, "Block size in entries (block-cyclic; default 1)");
  given("--seed", o.seed, o.seed_given, "Random seed (irregular; default 1)");
  nonempty(plan->add_option_function<std::string>(
                   "--kind",
                   [&o](const std::string& v) {
                     o.kind = v;
                     o.kind_given = true;
                   },
                   "Distribution: block-cyclic (default) or irregular")
               ->type_name("TEXT"),
           "block-cyclic or irregular");
  plan->add_flag("--json", o.json,
                 "Print the IEC plan of every rank as JSON (entries) instead of the text view");
  nonempty(plan->add_option("--svg", o.svg,
                            "Also draw the plan into this SVG file (IEC's and multiple-phase's memory per "
                            "phase, view-based's blocks and pools, LAP's benefit matrix)")
               ->type_name("FILE"),
           "an SVG file path");
  return plan;
}

int plan_command(const PlanOptions& opt) {
  if (opt.rounds < 0) throw config::ConfigError("--rounds must be >= 0, got " + std::to_string(opt.rounds));
  if (!opt.scenario.empty()) {
    if (opt.nx_given || opt.np_given || opt.bx_given || opt.seed_given || opt.kind_given)
      throw config::ConfigError("give either a SCENARIO or --nx/--np/--bx/--kind/--seed, not both");
    return plan_scenario(opt);
  }
  if (!opt.sets.empty() || opt.point != 0)
    throw config::ConfigError("--set and --point apply to a SCENARIO; none was given");
  if (!opt.nx_given || !opt.np_given)
    throw config::ConfigError("plan needs a SCENARIO, or --nx and --np (e.g. ciosim plan --nx 16 --np 4)");
  const auto params = config::parameters();
  config::check_value(config::param(params, "workload.nx"), opt.nx);
  try {
    config::check_value(config::param(params, "run.ranks"), opt.np);
  } catch (const config::ConfigError&) {
    throw config::ConfigError("--np must be an integer in [1, 2147483647], got " + std::to_string(opt.np));
  }
  config::check_value(config::param(params, "workload.kind"), opt.kind);
  config::check_value(config::param(params, "workload.bx"), opt.bx);
  config::check_value(config::param(params, "workload.seed"), opt.seed);
  const bool irregular = opt.kind == "irregular";
  if (irregular && opt.bx_given) throw config::ConfigError("--bx applies to --kind block-cyclic only");
  if (!irregular && opt.seed_given) throw config::ConfigError("--seed applies to --kind irregular only");
  WorkloadSpec w;
  w.kind = opt.kind;
  w.nx = opt.nx;
  w.bx = opt.bx;
  w.seed = static_cast<std::uint64_t>(opt.seed);
  const Distribution d = make_distribution(w, static_cast<int>(opt.np));  // as `run` builds it
  std::string title = "IEC I/O plan: Nx = " + std::to_string(opt.nx) +
                      " entries, Np = " + std::to_string(opt.np) + " ranks, " +
                      (irregular ? "irregular distribution (seed " + std::to_string(opt.seed) + ")"
                                 : "block-cyclic distribution with Bx = " + std::to_string(opt.bx));
  if (!irregular && opt.nx == 16 && opt.np == 4 && opt.bx == 1) title += " (the paper's worked example)";
  return show_iec(opt, title, d);
}

}  // namespace ciosim::app
