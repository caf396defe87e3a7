// Benchmark (not a test): wall time and peak memory of the comparative study of Singh et al., J.
// Supercomputing 2009, §4.2 (scenarios/compare-100mb.toml and compare-500mb.toml), point by point. Each point
// runs in a forked child (one SimGrid engine per process) whose peak resident memory comes from wait4()'s
// rusage. Prints Markdown for docs/benchmarks.md: per scenario the total, the time per algorithm, and the
// heaviest points.
//
//   ciosim_bench_compare [--payload bytes|elided] [SCENARIO.toml ...]
//       (default: the two compare scenarios of the source tree, each point's own run.payload)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/scenario.hpp"
#include "sim/simulate.hpp"

using namespace ciosim;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Point {
  std::string label;
  std::string algorithm;
  bool ok = false;
  double wall_s = 0;
  double sim_s = 0;
  double rss_mib = 0;
};

Point run_child(const RunSpec& spec) {
  Point p;
  p.algorithm = spec.algorithm;
  p.label = config::point_label(spec);
  int fds[2];
  if (pipe(fds) != 0) return p;
  std::fflush(stdout);
  const double t0 = now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    double sim_time = -1;
    try {
      const RunResult r = sim::simulate(spec);
      sim_time = r.file_verified ? r.sim_time_s : -2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", config::point_label(spec).c_str(), e.what());
    }
    if (write(fds[1], &sim_time, sizeof sim_time) != sizeof sim_time) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  double sim_time = -1;
  const bool got = read(fds[0], &sim_time, sizeof sim_time) == sizeof sim_time;
  close(fds[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  p.wall_s = now() - t0;
  p.rss_mib = static_cast<double>(ru.ru_maxrss) / 1024;
  p.sim_s = sim_time;
  p.ok = got && WIFEXITED(status) && WEXITSTATUS(status) == 0 && sim_time >= 0;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  std::optional<PayloadChoice> payload;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a != "--payload") {
      files.push_back(a);
      continue;
    }
    const std::string v = i + 1 < argc ? argv[++i] : "";
    if (v != "bytes" && v != "elided") {
      std::fprintf(stderr, "ciosim_bench_compare: --payload takes bytes or elided (got '%s')\n", v.c_str());
      return 2;
    }
    payload = v == "bytes" ? PayloadChoice::Bytes : PayloadChoice::Elided;
  }
  if (files.empty()) {
    files = {std::string(CIOSIM_SOURCE_DIR) + "/scenarios/compare-100mb.toml",
             std::string(CIOSIM_SOURCE_DIR) + "/scenarios/compare-500mb.toml"};
  }
  config::LoadOptions opt;
  opt.data_dirs = {CIOSIM_SOURCE_DIR};
  double grand = 0;
  bool all_ok = true;
  for (const std::string& f : files) {
    const config::Scenario s = config::load_scenario(f, opt);
    std::fprintf(stderr, "%s: %zu points\n", s.name.c_str(), s.runs.size());
    std::vector<Point> points;
    const double t0 = now();
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
      RunSpec spec = s.runs[i];
      if (payload) spec.payload = *payload;
      points.push_back(run_child(spec));
      std::fprintf(stderr, "  [%zu/%zu] %s: %.1f s, %.0f MiB%s\n", i + 1, s.runs.size(),
                   points.back().label.c_str(), points.back().wall_s, points.back().rss_mib,
                   points.back().ok ? "" : " FAILED");
    }
    const double total = now() - t0;
    grand += total;
    std::map<std::string, std::pair<double, double>> per_algo;  // wall sum, max RSS
    for (const Point& p : points) {
      auto& [wall, rss] = per_algo[p.algorithm];
      wall += p.wall_s;
      rss = std::max(rss, p.rss_mib);
      all_ok = all_ok && p.ok;
    }
    std::printf("\n### %s: %zu points, %.0f s wall in total\n\n", s.name.c_str(), points.size(), total);
    std::printf(
        "| algorithm | wall time, all its points (s) | peak RSS of one point (MiB) |\n|---|---:|---:|\n");
    for (const auto& [algo, v] : per_algo)
      std::printf("| %s | %.1f | %.0f |\n", algo.c_str(), v.first, v.second);
    std::sort(points.begin(), points.end(),
              [](const Point& a, const Point& b) { return a.wall_s > b.wall_s; });
    std::printf(
        "\nHeaviest points:\n\n| point | simulated (s) | wall (s) | peak RSS (MiB) | verified |\n"
        "|---|---:|---:|---:|:---:|\n");
    for (std::size_t i = 0; i < std::min<std::size_t>(5, points.size()); ++i)
      std::printf("| %s | %.3f | %.1f | %.0f | %s |\n", points[i].label.c_str(), points[i].sim_s,
                  points[i].wall_s, points[i].rss_mib, points[i].ok ? "yes" : "NO");
    std::fflush(stdout);
  }
  std::printf("\nWhole study: %.0f s wall.\n", grand);
  return all_ok ? 0 : 1;
}
