#include "sim/simulate.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "algorithms/common/trace.hpp"
#include "algorithms/replay.hpp"
#include "algorithms/sequence.hpp"
#include "algorithms/technique.hpp"
#include "config/point_checks.hpp"
#include "config/resources.hpp"
#include "config/time_use.hpp"
#include "config/timeline.hpp"
#include "config/trace_replay.hpp"
#include "config/workload.hpp"
#include "models/filesystem/actor_budget_sim.hpp"
#include "sim/file_system.hpp"
#include "sim/platform.hpp"
#include "sim/sim_process.hpp"

namespace ciosim::sim {

namespace {

constexpr const char* kFileName = "x.dat";

/// Engine arguments: the program name, then "--cfg=key:value" for each item of CIOSIM_SIMGRID_CFG
/// ("key:value;key:value", e.g. "contexts/factory:thread" for sanitizer builds). Passed on the command
/// line because some settings (the context factory) must be known when the engine starts.
std::vector<std::string> engine_args() {
  std::vector<std::string> args{"ciosim", "--log=xbt_cfg.thresh:warning"};
  for (const std::string& item : config::simgrid_cfg_items(config::simgrid_cfg()))
    args.push_back("--cfg=" + item);
  return args;
}

void rank_main(World& w, const std::function<void(Process&)>& body, const sg4::BarrierPtr& start, int r) {
  SimProcess p(w, r);
  p.record_trace(!w.spec->trace_file.empty());
  RankRecord& rec = w.records[static_cast<std::size_t>(r)];
  try {
    start->wait();  // common start, at no simulated cost and not counted as an MPI call
    rec.start = sg4::Engine::get_clock();
    if (w.spec->sequence.empty() && !replays_calls(w.spec->workload)) {
      p.phase("open");
      p.file_open(kFileName);
      body(p);
      p.phase("close");
      p.file_close();
    } else {
      body(p);  // an operation sequence, a replayed application, opens and closes the file itself
    }
  } catch (const std::bad_alloc&) {
    w.out_of_memory = true;
    w.errors.push_back("rank " + std::to_string(r) + ": out of memory");
  } catch (const std::exception& e) {
    w.errors.push_back("rank " + std::to_string(r) + ": " + e.what());
  }
  rec.end = sg4::Engine::get_clock();
  p.finish();
  ++w.finished;
  if (w.comm_stats && w.finished == static_cast<int>(w.records.size())) w.comm_stats->report(std::cerr);
}

/// A run that ended with ranks still waiting (SimGrid found a deadlock: with absurd platform values the
/// clock can overflow, or a technique can wait for a message never sent) is an error, never a result.
void check_finished(const World& w) {
  if (w.finished == static_cast<int>(w.records.size())) return;
  std::string where;
  for (std::size_t r = 0; r < w.records.size() && where.empty(); ++r)
    if (w.records[r].end == 0 && !w.records[r].marks.empty())
      where = " (rank " + std::to_string(r) + " was in phase " + w.records[r].marks.back().first + " at " +
              std::to_string(w.records[r].marks.back().second) + " s)";
  throw std::runtime_error(
      "the simulation stopped with " + std::to_string(w.records.size() - w.finished) + " of " +
      std::to_string(w.records.size()) + " ranks unfinished" + where +
      ": SimGrid found no activity that could ever complete (a deadlock, or a platform value "
      "so extreme that simulated time overflows)");
}

/// Phase and run times must be finite and non-negative.
void check_times(const RunResult& res) {
  const auto bad = [](double t) { return !std::isfinite(t) || t < 0; };
  if (bad(res.sim_time_s))
    throw std::runtime_error("the simulated time is " + std::to_string(res.sim_time_s) +
                             " s, not a finite non-negative time");
  for (const auto& ph : res.phases)
    if (bad(ph.time_s))
      throw std::runtime_error("phase " + ph.name + " took " + std::to_string(ph.time_s) +
                               " s, not a finite non-negative time");
}

/// Each rank's actor on the timeline and its resources in the activity log: its CPU work, its host's
/// network link in each direction (shared by the ranks of a host).
void register_ranks(World& w) {
  using activity::ResourceKind;
  for (int r = 0; r < w.spec->ranks; ++r) {
    const std::string host = w.rank_hosts[static_cast<std::size_t>(r)]->get_name();
    const std::string name = "rank " + std::to_string(r);
    w.rank_actor.push_back(w.log.actor(activity::ActorKind::Rank, name, host, r));
    w.rank_cpu.push_back(w.log.resource(ResourceKind::RankCpu, name + " cpu", host));
    w.link_out.push_back(w.log.resource(ResourceKind::LinkOut, host + " link out", host));
    w.link_in.push_back(w.log.resource(ResourceKind::LinkIn, host + " link in", host));
  }
}

/// Writes every rank's call trace to `path` (algorithms/common/trace.hpp).
void write_trace(const World& w, const std::string& path) {
  Trace t;
  for (const auto& rec : w.records) t.push_back(rec.trace);
  std::ofstream out(path, std::ios::binary);
  out << trace_text(t);
  out.close();
  if (!out) throw std::runtime_error("cannot write the trace file " + path);
}

}  // namespace

RunResult run_with(const RunSpec& spec, const std::function<void(Process&)>& body,
                   const std::function<void(const filesystem::FileStore&)>& on_file,
                   const std::vector<std::byte>* initial_file,
                   const std::vector<payload::Piece>* initial_pieces) {
  std::vector<std::string> args = engine_args();
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  sg4::Engine engine(&argc, argv.data());
  xbt_log_control_set("root.thresh:critical");
  // A deadlock is reported as one error line (check_finished), not by SimGrid's own message.
  xbt_log_control_set("ker_engine.app:file:/dev/null");

  World w;
  w.spec = &spec;
  w.mpi = &network_profile(spec.network_mpi, spec.platform.networks);
  w.io = &network_profile(spec.network_io, spec.platform.networks);
  const PlatformSpec& ps = spec.platform;
  if (spec.rank_nodes.empty()) {
    if (spec.ranks < 1 || spec.ranks > ps.nodes * ps.cores_per_node)
      throw std::invalid_argument("run.ranks = " + std::to_string(spec.ranks) + " does not fit platform '" +
                                  ps.name + "' (" + std::to_string(ps.nodes) + " nodes x " +
                                  std::to_string(ps.cores_per_node) + " cores)");
  } else {
    if (spec.rank_nodes.size() != static_cast<std::size_t>(spec.ranks))
      throw std::invalid_argument("the placement names " + std::to_string(spec.rank_nodes.size()) +
                                  " ranks' nodes for run.ranks = " + std::to_string(spec.ranks));
    for (const int n : spec.rank_nodes)
      if (n < 0 || n >= ps.nodes)
        throw std::invalid_argument("the placement puts a rank on node " + std::to_string(n) +
                                    ", but platform '" + ps.name + "' has nodes 0.." +
                                    std::to_string(ps.nodes - 1));
  }
  w.file.set_elided(payload::mode() == payload::Mode::Elided);
  w.fs = make_file_system(spec.platform, w.file);
  w.log.full = !spec.timeline_formats.empty();
  w.fs->set_log(&w.log);
  build_platform(w);
  register_ranks(w);
  if (initial_file) w.file.write(0, *initial_file);
  if (initial_pieces) w.file.write_pieces(0, *initial_pieces);
  w.records.resize(static_cast<std::size_t>(spec.ranks));
  if (std::getenv("CIOSIM_COMM_STATS")) w.comm_stats = std::make_unique<CommStats>(spec.ranks);
  w.fs->start();
  auto start = sg4::Barrier::create(static_cast<unsigned>(spec.ranks));
  for (int r = 0; r < spec.ranks; ++r)
    w.rank_actors.push_back(sg4::Actor::create("rank" + std::to_string(r),
                                               w.rank_hosts[static_cast<std::size_t>(r)],
                                               [&w, &body, start, r] { rank_main(w, body, start, r); }));
  // The ranks fit the kernel's limit on memory maps (checked before simulating); the file system's request
  // and disk actors are counted as they start, and a run that would pass the limit stops with one line
  // instead of SimGrid's abort (models/filesystem/actor_budget_sim.hpp).
  const std::int64_t max_maps = config::max_memory_maps();
  const std::int64_t budget = config::actor_budget(max_maps, config::simgrid_cfg());
  filesystem::set_actor_budget(budget, budget > 0 ? config::actors_refusal(budget, max_maps) : "",
                               [&w](const std::string& why) { w.errors.push_back(why); });
  struct ClearBudget {
    ~ClearBudget() { filesystem::clear_actor_budget(); }
  } clear_budget;
  engine.run();
  if (w.out_of_memory) throw std::bad_alloc();  // the caller names the point and what to change
  if (!w.errors.empty()) throw std::runtime_error(w.errors.front());
  check_finished(w);

  RunResult res;
  res.algorithm = spec.algorithm;
  res.params = spec.params;
  res.ranks = spec.ranks;
  res.network_mpi = spec.network_mpi;
  res.network_io = spec.network_io;
  config::summarize(w.records, res);
  check_times(res);
  w.log.finish();
  config::describe_use(w.log, res);
  if (!spec.trace_file.empty()) write_trace(w, spec.trace_file);
  if (w.log.full)
    config::write_timelines(spec.timeline_formats, spec.timeline_path, w.records, w.log,
                            config::point_identity(spec.algorithm, spec.params));
  if (on_file) on_file(w.file);
  return res;
}

namespace {

/// Every rank runs `body` (it opens and closes the file itself: an operation sequence, a replayed
/// application) on a file holding `initial` (untimed); the run is verified when every rank's body returned
/// true (its reads found their bytes) and `check` finds the file as it must be ("").
RunResult run_checked(const RunSpec& spec, const std::function<bool(Process&)>& body,
                      const std::function<std::string(std::span<const std::byte>)>& check,
                      const std::vector<std::byte>& initial) {
  std::vector<char> read_ok(static_cast<std::size_t>(spec.ranks), 0);
  std::string file_check;
  RunResult res = run_with(
      spec, [&](Process& p) { read_ok[static_cast<std::size_t>(p.rank())] = body(p); },
      [&](const filesystem::FileStore& file) {
        file_check = check(file.bytes());
        if (!spec.export_file.empty()) file.export_to(spec.export_file);
      },
      initial.empty() ? nullptr : &initial);
  res.file_verified =
      file_check.empty() && std::all_of(read_ok.begin(), read_ok.end(), [](char ok) { return ok != 0; });
  return res;
}

/// A point with run.sequence: every rank runs the sequence (algorithms/sequence.hpp); the steps read before
/// they are written are laid out first (untimed); the file is checked step by step, and every read's bytes.
RunResult simulate_sequence(const RunSpec& spec, const Distribution& dist, const TechniqueInfo& tech,
                            const TechniqueInput& in) {
  const std::vector<Op> ops =
      prepare_sequence(spec.sequence, &tech, in.element_size, spec.workload_compute_s, spec.workload.kind);
  std::vector<std::byte> initial;
  for (const auto& [pos, bytes] : sequence_initial_steps(dist, tech.layout, in.element_size, ops)) {
    if (initial.size() < static_cast<std::size_t>(pos) + bytes.size())
      initial.resize(static_cast<std::size_t>(pos) + bytes.size());
    std::copy(bytes.begin(), bytes.end(), initial.begin() + pos);
  }
  return run_checked(
      spec, [&](Process& p) { return run_sequence(p, tech, in, ops); },
      [&](std::span<const std::byte> file) {
        return check_sequence_file(file, dist, tech.layout, in.element_size, ops);
      },
      initial);
}

/// A trace replayed call by call (algorithms/replay.hpp): the bytes it reads laid out first (untimed), every
/// rank's calls run, the file checked against the union of what was written and every read's bytes.
RunResult simulate_replay(const RunSpec& spec, const TechniqueInfo& tech) {
  const Replay rep = config::replay_from_capture(spec.workload.file, spec.ranks, spec.workload.element_size);
  if (const std::string why = replay_refusal(tech, rep); !why.empty()) throw std::invalid_argument(why);
  if (tech.check_phases)
    if (const std::string why = tech.check_phases(spec.phases, spec.ranks); !why.empty())
      throw std::invalid_argument(why);
  const TechniqueInput in{nullptr,        spec.workload.element_size, kFileName, 1, spec.hints, spec.phases,
                          spec.cpu_charge};
  check_hints(in.hints);
  return run_checked(
      spec, [&](Process& p) { return run_replay(p, tech, in, rep); },
      [&](std::span<const std::byte> file) { return check_replay_file(file, rep); },
      replay_initial_file(rep));
}

}  // namespace

bool payload_elided(const RunSpec& spec, const TechniqueInfo& tech, const Distribution& dist) {
  if (spec.payload != PayloadChoice::Elided)
    return config::auto_chooses_elided(spec, config::distribution_size(dist));
  std::string why_not = why_not_elided(tech, !spec.sequence.empty());
  if (why_not.empty() && !spec.export_file.empty())
    why_not = "exporting the file (run.export_file, validate) needs its bytes";
  if (!why_not.empty())
    throw std::invalid_argument("run.payload = elided cannot be used here: " + why_not +
                                "; use run.payload = bytes or auto");
  return true;
}

RunResult simulate(const RunSpec& spec) {
  // Validate everything before the engine starts, so a bad point fails with one clear line.
  if (replays_calls(spec.workload)) return simulate_replay(spec, technique(spec.algorithm));
  const Distribution dist = make_distribution(spec.workload, spec.ranks);
  const TechniqueInfo& tech = technique(spec.algorithm);
  if (const std::string why = tech.check(dist); !why.empty()) throw std::invalid_argument(why);
  if (tech.check_phases)
    if (const std::string why = tech.check_phases(spec.phases, spec.ranks); !why.empty())
      throw std::invalid_argument(why);
  const TechniqueInput in{
      &dist,          spec.workload.element_size, kFileName, spec.iterations, spec.hints, spec.phases,
      spec.cpu_charge};
  check_hints(in.hints);
  if (!spec.sequence.empty()) return simulate_sequence(spec, dist, tech, in);
  // Buffers carry bytes, or with elided payloads the sources of their bytes (algorithms/common/payload.hpp):
  // the file and every read are checked as strictly either way.
  const bool elided = payload_elided(spec, tech, dist);
  const payload::ModeScope scope(elided ? payload::Mode::Elided : payload::Mode::Bytes);
  const std::int64_t es = in.element_size;
  const auto local_data = [&](int rank) {
    return elided ? make_local_payload(dist, rank, es) : payload::Buffer(make_local_data(dist, rank, es));
  };
  const auto same = [&](const payload::Buffer& a, const payload::Buffer& b) {
    return elided ? payload::same_contents(payload::pieces(a), payload::pieces(b))
                  : same_bytes(a.span(), b.span());
  };
  const auto export_file = [&](const filesystem::FileStore& file) {
    if (!spec.export_file.empty()) file.export_to(spec.export_file);  // bytes only (payload_elided)
  };
  RunResult res;
  if (spec.access == Access::Read) {
    if (!tech.read) throw std::invalid_argument("technique " + tech.name + " has no read path");
    // The file as the technique lays it out, in place before the run; every rank reads its entries back
    // and compares them with what it would have written.
    std::vector<std::byte> initial_bytes;
    std::vector<payload::Piece> initial_pieces;
    if (elided)
      initial_pieces = expected_pieces(dist, tech.layout, es);
    else
      initial_bytes = expected_file(dist, tech.layout, es);
    std::vector<char> read_ok(static_cast<std::size_t>(spec.ranks), 0);
    res = run_with(
        spec,
        [&](Process& p) {
          const payload::Buffer expected = local_data(p.rank());
          payload::Buffer buf(expected.size());
          tech.read(p, in, buf);
          read_ok[static_cast<std::size_t>(p.rank())] = same(buf, expected);
        },
        export_file, elided ? nullptr : &initial_bytes, elided ? &initial_pieces : nullptr);
    res.file_verified = std::all_of(read_ok.begin(), read_ok.end(), [](char ok) { return ok != 0; });
  } else {
    bool verified = false;
    res = run_with(
        spec,
        [&](Process& p) {
          const payload::Buffer local = local_data(p.rank());
          tech.run(p, in, local);
        },
        [&](const filesystem::FileStore& file) {
          verified = elided ? payload::same_contents(file.pieces(), expected_pieces(dist, tech.layout, es))
                            : same_bytes(file.bytes(), expected_file(dist, tech.layout, es));
          export_file(file);
        });
    res.file_verified = verified;
  }
  res.elided = elided;
  return res;
}

}  // namespace ciosim::sim
