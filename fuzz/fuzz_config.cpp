// libFuzzer target over the scenario, platform, lists, partition, graph and capture readers
// (docs/fuzzing.md). The first byte picks the parser, the rest is the file's text:
//   0: a scenario (run.platform names resolve in the source tree's platforms/, relative paths from its
//      scenarios/ folder), expanded into its points as `ciosim run --dry-run` does;
//   1: a platform file;
//   2: a lists file (workload.file), used by a one-point block scenario sized from its tuples;
//   3: a partition file (workload.partition), read for as many nodes as it has lines, into 1 + (its first
//      byte % 64) ranks: an accepted one has an owner in [0, ranks) for every node;
//   4: a METIS graph file (workload.graph), read for the node count its header gives: an accepted one is a
//      valid CSR graph (offsets rising from 0, neighbours in [0, nodes));
//   5: a captured rank's calls (rank-0.txt of a one-rank capture folder): accepted or refused, and an
//      accepted one replayed call by call: refused, or every step, call and run of the replay well formed.
// Every input must either be refused with a one-line ConfigError or std::invalid_argument (what ciosim
// reports as a one-line error, exit 2), or be accepted; an accepted input's effective configuration (for a
// platform: its TOML) must load back, from another folder, to the same points (the same platform). Any
// other exception, a crash or a sanitizer report is a finding.
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config/capture_trace.hpp"
#include "config/metis_partition.hpp"
#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "config/scenario.hpp"
#include "config/trace_replay.hpp"
#include "config/workload.hpp"

namespace {

using namespace ciosim;
using namespace ciosim::config;

const std::string kSource = CIOSIM_SOURCE_DIR;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::abort();
}

/// A refusal must be one line (README: "one-line error").
void check_refusal(const std::string& message) {
  if (message.empty() || message.find('\n') != std::string::npos)
    finding("a refusal that is not one line: [" + message + "]");
}

/// Everything of a point that decides its simulation, as text.
std::string point_text(const RunSpec& r) {
  std::ostringstream o;
  const WorkloadSpec& w = r.workload;
  o << r.algorithm << '|' << (r.access == Access::Read) << '|' << r.ranks << '|' << r.iterations << '|'
    << r.phases << '|' << r.network_mpi << '|' << r.network_io << '|' << w.kind << '|' << w.nx << '|' << w.ny
    << '|' << w.nz << '|' << w.nl << '|' << w.nchem << '|' << w.bx << '|' << w.element_size << '|' << w.seed
    << '|' << w.file << '|' << w.partition << '|' << w.graph << '|' << w.load << '|' << w.btio_class << '|'
    << w.mflops << '|' << w.tiles_x << '|' << w.tiles_y << '|' << w.tile_x << '|' << w.tile_y << '|'
    << w.overlap_x << '|' << w.overlap_y << '|' << w.header_bytes << '|';
  const IoHints& h = r.hints;
  o << h.cb_buffer_size << '|' << h.cb_nodes << '|' << h.cb_config_list << '|' << static_cast<int>(h.cb_write)
    << '|' << static_cast<int>(h.cb_read) << '|' << h.striping_unit << '|' << static_cast<int>(h.version)
    << '|' << h.listio_batch << '|' << static_cast<int>(h.lap) << '|' << h.vb_buffer_size << '|'
    << h.vb_pool_size << '|' << h.vb_aggregators << '|' << h.vb_network_buffer << '\n';
  for (const auto& [k, v] : r.params) o << k << '=' << v << ';';
  PlatformFile pf;
  pf.spec = r.platform;
  o << '\n' << platform_toml(pf, "p");
  return o.str();
}

LoadOptions options() {
  LoadOptions o;
  o.data_dirs = {kSource};
  // Points past this are refused before any per-entry work (config/point_checks.hpp), as on a small
  // machine: the fuzzer's memory stays bounded.
  o.memory.bytes = 256LL << 20;
  o.memory.what = "the fuzzer's 256 MiB";
  return o;
}

void scenario_round_trip(const std::string& text, const std::string& origin, const LoadOptions& opt) {
  Scenario s;
  try {
    s = parse_scenario(text, origin, opt);
  } catch (const ConfigError& e) {
    return check_refusal(e.what());
  } catch (const std::invalid_argument& e) {
    return check_refusal(e.what());
  }
  const std::string effective = effective_config_toml(s);
  Scenario again;
  try {
    again = parse_scenario(effective, "/nonexistent-ciosim-fuzz/effective-config.toml", options());
  } catch (const std::exception& e) {
    finding(std::string("the effective configuration does not load back: ") + e.what() + "\n" + effective);
  }
  if (again.runs.size() != s.runs.size() || again.name != s.name)
    finding("the effective configuration has " + std::to_string(again.runs.size()) + " points, not " +
            std::to_string(s.runs.size()) + "\n" + effective);
  for (std::size_t i = 0; i < s.runs.size(); ++i)
    if (const std::string a = point_text(s.runs[i]), b = point_text(again.runs[i]); a != b)
      finding("point " + std::to_string(i + 1) + " differs after a round trip:\n" + a + "\n" + b);
}

void platform_round_trip(const std::string& text) {
  PlatformFile p;
  try {
    p = parse_platform(text, "fuzz.toml");
  } catch (const ConfigError& e) {
    return check_refusal(e.what());
  } catch (const std::invalid_argument& e) {
    return check_refusal(e.what());
  }
  const std::string saved = platform_toml(p, "");
  PlatformFile again;
  try {
    again = parse_platform(saved, "again.toml");
  } catch (const std::exception& e) {
    finding(std::string("a platform's TOML does not load back: ") + e.what() + "\n" + saved);
  }
  if (platform_toml(again, "") != saved) finding("a platform differs after a round trip:\n" + saved);
}

/// A scratch file of this process holding `text`.
std::string scratch(const std::string& name, const std::string& text) {
  const std::string file = "/tmp/ciosim-fuzz-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  return file;
}

void lists_round_trip(const std::string& text) {
  const std::string file = scratch("lists.toml", text);
  // Size the scenario from the tuples when they read as such, so that some inputs are accepted.
  std::int64_t ranks = 1, nx = 1;
  try {
    const toml::table t = toml::parse(text);
    if (const toml::array* a = t["ranks"].as_array(); a && !a->empty()) {
      ranks = std::min<std::int64_t>(static_cast<std::int64_t>(a->size()), 64);
      std::int64_t sum = 0;
      for (const auto& r : *a)
        if (const toml::array* l = r.as_array())
          for (const auto& tuple : *l)
            if (const toml::array* p = tuple.as_array(); p && p->size() == 2)
              if (const auto len = (*p)[1].value<std::int64_t>(); len && *len > 0 && *len < (1 << 24))
                sum += *len;
      nx = std::clamp<std::int64_t>(sum, 1, 1 << 24);
    }
  } catch (const toml::parse_error&) {
  }
  const std::string scenario =
      "[run]\nalgorithm = \"block\"\nranks = " + std::to_string(ranks) +
      "\nplatform = \"quickstart\"\n[workload]\nkind = \"lists\"\nnx = " + std::to_string(nx) +
      "\nfile = \"" + file + "\"\n[platform]\nnodes = 64\n";
  scenario_round_trip(scenario, "/tmp/fuzz-lists.toml", options());
}

/// Runs `read`; a refusal must be one line (ConfigError or std::invalid_argument); returns whether it
/// accepted the input.
template <typename Read>
bool accepted(Read read) {
  try {
    read();
    return true;
  } catch (const ConfigError& e) {
    check_refusal(e.what());
  } catch (const std::invalid_argument& e) {
    check_refusal(e.what());
  }
  return false;
}

void partition_read(const std::string& text) {
  if (text.empty()) return;
  const int ranks = 1 + static_cast<unsigned char>(text[0]) % 64;
  const std::string body = text.substr(1);
  const std::int64_t nodes = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(std::count(body.begin(), body.end(), '\n')), 1, 1 << 20);
  const std::string file = scratch("partition", body);
  std::vector<int> owners;
  if (!accepted([&] { owners = read_partition(file, nodes, ranks); })) return;
  if (static_cast<std::int64_t>(owners.size()) != nodes)
    finding("an accepted partition has " + std::to_string(owners.size()) + " owners for " +
            std::to_string(nodes) + " nodes");
  for (const int o : owners)
    if (o < 0 || o >= ranks) finding("an accepted partition names rank " + std::to_string(o));
}

void graph_read(const std::string& text) {
  std::int64_t nodes = 1;
  std::istringstream head(text);
  std::string line;
  while (std::getline(head, line))  // the header's node count, past comments, so that some are accepted
    if (!line.empty() && line[0] != '%') {
      std::istringstream(line) >> nodes;
      break;
    }
  nodes = std::clamp<std::int64_t>(nodes, 1, 1 << 20);
  const std::string file = scratch("graph", text);
  CsrGraph g;
  if (!accepted([&] { g = read_metis_graph(file, nodes); })) return;
  if (g.nodes() != nodes || g.xadj.front() != 0 ||
      static_cast<std::size_t>(g.xadj.back()) != g.adjncy.size() ||
      !std::is_sorted(g.xadj.begin(), g.xadj.end()))
    finding("an accepted graph is not a CSR graph of " + std::to_string(nodes) + " nodes");
  for (const std::int32_t v : g.adjncy)
    if (v < 0 || v >= nodes) finding("an accepted graph names node " + std::to_string(v));
}

void trace_read(const std::string& text) {
  namespace fs = std::filesystem;
  const fs::path dir = "/tmp/ciosim-fuzz-capture-" + std::to_string(::getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "trace.json", std::ios::trunc)
      << R"({"format": "ciosim-trace", "version": 1, "ranks": 1, "hosts": ["a"], "program": "p"})";
  std::ofstream(dir / "rank-0.txt", std::ios::binary | std::ios::trunc) << text;
  if (!accepted([&] { (void)read_capture(dir); })) return;
  // An accepted capture replayed call by call (config/trace_replay.hpp): refused with one line, or a replay
  // whose every reference holds.
  Replay r;
  if (!accepted([&] { r = replay_from_capture(dir.string(), 1, 1); })) return;
  for (const ReplayStep& st : r.steps)
    if (st.shape < 0 || static_cast<std::size_t>(st.shape) >= r.shapes.size() || st.position < 0)
      finding("an accepted replay has a step with shape " + std::to_string(st.shape) + " at " +
              std::to_string(st.position));
  for (const ReplayAction& a : r.ranks.at(0)) {
    if (a.kind == ReplayKind::Collective &&
        (a.step < 0 || static_cast<std::size_t>(a.step) >= r.steps.size()))
      finding("an accepted replay's collective call names step " + std::to_string(a.step));
    if (a.kind == ReplayKind::Compute && !(a.seconds > 0 && std::isfinite(a.seconds)))
      finding("an accepted replay computes for " + std::to_string(a.seconds) + " s");
    for (const Extent& e : a.runs)
      if (e.offset < 0 || e.length < 1)
        finding("an accepted replay accesses a run of " + std::to_string(e.length));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      scenario_round_trip(text, kSource + "/scenarios/fuzz.toml", options());
      break;
    case 1:
      platform_round_trip(text);
      break;
    case 2:
      lists_round_trip(text);
      break;
    case 3:
      partition_read(text);
      break;
    case 4:
      graph_read(text);
      break;
    default:
      trace_read(text);
  }
  return 0;
}
