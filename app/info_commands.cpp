// `ciosim list`, and the lookups it shares with `run`, `plan` and `plot`.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "algorithms/technique.hpp"
#include "app/commands.hpp"
#include "app/technique_steps.hpp"
#include "config/platform_file.hpp"
#include "config/workload.hpp"
#include "models/filesystem/kinds.hpp"
#include "models/network/profiles.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string wrap(const std::string& text, std::size_t indent, std::size_t width) {
  std::istringstream words(text);
  std::string out, line, word;
  const std::size_t room = width > indent + 20 ? width - indent : 20;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > room) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

fs::path first_file(const std::vector<fs::path>& candidates, const std::string& what,
                    const std::string& advice) {
  std::error_code ec;
  for (const fs::path& c : candidates)
    if (fs::is_regular_file(c, ec)) return c;
  std::string where;
  for (const fs::path& c : candidates) where += (where.empty() ? "" : ", ") + c.string();
  throw config::ConfigError(what + " was not found (looked in " + where + "; " + advice + ")");
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::vector<fs::path> data_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("CIOSIM_DATA_DIR"); env && *env) dirs.emplace_back(env);
#ifdef CIOSIM_SOURCE_DIR
  dirs.emplace_back(CIOSIM_SOURCE_DIR);
#endif
  // Installed (cmake --install): PREFIX/bin/ciosim finds PREFIX/share/ciosim/platforms.
  if (const fs::path bin = executable_dir(); !bin.empty()) {
    std::error_code ec;
    if (fs::is_directory(bin.parent_path() / "share" / "ciosim", ec))
      dirs.push_back(bin.parent_path() / "share" / "ciosim");
  }
  dirs.emplace_back(".");
  return dirs;
}

std::string parameter_help(const std::vector<config::Param>& params) {
  std::size_t kw = 0, dw = 0;
  for (const auto& p : params) {
    kw = std::max(kw, p.key.size());
    dw = std::max(dw, p.default_text().size());
  }
  std::ostringstream out;
  for (const auto& p : params) {
    std::string help = p.help;
    if (!p.unit.empty()) help += " [" + p.unit + "]";
    // The bounds the validation pass checks (config/params.cpp), stated where they bind.
    const bool int_bounded =
        p.max != INT64_MAX && !(p.type == config::ParamType::Int && p.max == std::numeric_limits<int>::max());
    if (p.type == config::ParamType::Real) {
      const std::string lo = (p.real_above_min ? "> " : ">= ") + config::format_double(p.real_min);
      if (p.real_max < 1e300)
        help += " (" + lo + ", <= " + config::format_double(p.real_max) + ")";
      else if (p.real_above_min)
        help += " (" + lo + ")";
    } else if (p.numeric() && int_bounded) {
      help += " (" + std::to_string(p.min) + " to " + std::to_string(p.max) + ")";
    } else if (p.numeric() && p.min > 1) {
      help += " (>= " + std::to_string(p.min) + ")";
    }
    if (p.type == config::ParamType::Enum && !p.choices.empty())
      help += "; one of: " + config::join(p.choices);
    if (p.type == config::ParamType::String && !p.choices.empty())
      help += "; known: " + config::join(p.choices);
    out << "  " << pad(p.key, kw + 2) << pad(p.default_text(), dw + 2) << wrap(help, kw + dw + 6) << "\n";
  }
  return out.str();
}

int list_command(bool keys, const std::string& choices) {
  const auto dirs = data_dirs();
  const auto names = config::platform_names(dirs);
  std::ostringstream out;
  if (!choices.empty()) {
    const auto params = config::parameters(names);
    const config::Param* p = config::find_param(params, choices);
    if (!p)
      throw config::ConfigError("unknown key " + config::quote(choices) + " (ciosim list --keys lists them)");
    for (const auto& c : p->choices) out << c << "\n";
    std::cout << out.str() << std::flush;
    return 0;
  }
  if (keys) {
    for (const auto& p : config::parameters(names)) out << p.key << "\n";
    std::cout << out.str() << std::flush;
    return 0;
  }

  out << "Algorithms (run.algorithm), each step by step (docs/techniques.md explains them with examples)\n";
  std::size_t w = 0;
  for (const auto& t : techniques()) w = std::max(w, t.name.size());
  for (const auto& t : techniques()) {
    out << "  " << pad(t.name, w + 2) << wrap(t.description, w + 4) << "\n";
    out << "  " << std::string(w + 2, ' ') << wrap("Citation: " + t.citation, w + 4) << "\n";
    const auto& steps = technique_steps(t.name);
    for (std::size_t i = 0; i < steps.size(); ++i)
      out << "  " << std::string(w + 2, ' ') << wrap(std::to_string(i + 1) + ". " + steps[i], w + 7) << "\n";
  }

  out << "\nNetworks (network.mpi, network.io)\n";
  w = 0;
  for (const auto& n : network_profiles()) w = std::max(w, n.name.size());
  out << "  " << pad("name", w + 2) << pad("bandwidth", 14) << pad("latency", 10) << "description\n";
  for (const auto& n : network_profiles()) {
    out << "  " << pad(n.name, w + 2) << pad(fmt("%.1f MB/s", n.link_bandwidth_Bps / 1e6), 14)
        << pad(fmt("%.2f us", n.link_latency_s * 1e6), 10) << wrap(n.description, w + 28) << "\n";
  }

  out << "\nFile systems (platform.filesystem; the platform file's [filesystem] kind)\n";
  w = 0;
  for (const auto& k : filesystem::kinds()) w = std::max(w, k.name.size());
  for (const auto& k : filesystem::kinds())
    out << "  " << pad(std::string(k.name), w + 2) << wrap(std::string(k.description), w + 4) << "\n";

  std::vector<std::string> searched;
  for (const auto& d : dirs) searched.push_back((d / "platforms").string());
  out << "\nPlatforms (run.platform; searched in " << config::join(searched) << ")\n";
  w = 0;
  for (const auto& n : names) w = std::max(w, n.size());
  std::string broken;
  for (const auto& n : names) {
    std::string desc;
    try {
      desc = config::load_platform_file(config::resolve_platform(n, dirs)).spec.description;
    } catch (const config::ConfigError& e) {
      desc = std::string("INVALID: ") + e.what();
      if (broken.empty()) broken = e.what();
    }
    out << "  " << pad(n, w + 2) << wrap(desc, w + 4) << "\n";
  }
  if (names.empty()) out << "  (none found in " << dirs.front().string() << "/platforms)\n";

  out << "\nWorkloads (workload.kind)\n";
  w = 0;
  for (const auto& wl : workloads()) w = std::max(w, wl.name.size());
  for (const auto& wl : workloads())
    out << "  " << pad(wl.name, w + 2) << wrap(wl.description, w + 4) << "\n";

  out << "\nParameters (scenario [table] key, or --set table.key=value; an array sweeps)\n"
      << parameter_help(config::parameters(names));
  std::cout << out.str() << std::flush;
  if (!broken.empty()) throw config::ConfigError(broken);
  return 0;
}

}  // namespace ciosim::app
