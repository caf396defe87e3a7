// libFuzzer target over the scenario, platform and lists parsers (docs/fuzzing.md).
// The first byte picks the parser, the rest is the file's text:
//   0: a scenario (run.platform names resolve in the source tree's platforms/, relative paths from its
//      scenarios/ folder), expanded into its points as `ciosim run --dry-run` does;
//   1: a platform file;
//   2: a lists file (workload.file), used by a one-point block scenario sized from its tuples.
// Every input must either be refused with a one-line ConfigError or std::invalid_argument (what ciosim
// reports as a one-line error, exit 2), or be accepted; an accepted input's effective configuration (for a
// platform: its TOML) must load back, from another folder, to the same points (the same platform). Any
// other exception, a crash or a sanitizer report is a finding.
#include <toml++/toml.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "config/params.hpp"
#include "config/platform_file.hpp"
#include "config/scenario.hpp"

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

void lists_round_trip(const std::string& text) {
  static const std::string file = "/tmp/ciosim-fuzz-lists-" + std::to_string(::getpid()) + ".toml";
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      scenario_round_trip(text, kSource + "/scenarios/fuzz.toml", options());
      break;
    case 1:
      platform_round_trip(text);
      break;
    default:
      lists_round_trip(text);
  }
  return 0;
}
