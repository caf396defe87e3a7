// Benchmarks (not tests): simulator wall time and peak memory of an IEC run at growing rank counts, and
// the inspector's speed. Each simulation runs in a forked child (one SimGrid engine per process); its
// peak resident memory comes from wait4()'s rusage. Results go to stdout as a Markdown table for
// docs/benchmarks.md.
//
//   ciosim_bench [--max-np N] [--inspector-nx NX]   (the inspector rows stop at Np = max-np too)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/common/distribution.hpp"
#include "algorithms/iec/iec.hpp"
#include "sim/simulate.hpp"

using namespace ciosim;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// uc3m-2007's per-node parameters on a cluster sized for np ranks (16 ranks per node above 16 ranks,
/// so that the route table, quadratic in hosts, stays small).
RunSpec spec_for(int np, std::int64_t nx) {
  RunSpec s;
  s.algorithm = "iec";
  s.ranks = np;
  s.platform.name = "bench";
  s.platform.cores_per_node = np <= 16 ? 1 : 16;
  s.platform.nodes = np / s.platform.cores_per_node;
  s.platform.cpu_cores = s.platform.cores_per_node;  // a core per rank: the benchmark measures the simulator
  s.platform.memcpy_Bps = 3.5e8;
  s.platform.loopback_Bps = 3.5e8;
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  s.workload.kind = "block-cyclic";
  s.workload.nx = nx;
  s.workload.bx = 1;
  return s;
}

struct Measure {
  bool ok = false;
  double wall_s = 0;
  double sim_s = 0;
  long max_rss_kib = 0;
};

Measure run_child(const RunSpec& spec) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  std::fflush(stdout);  // the child must not inherit unflushed output
  const double t0 = now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    double sim_time = -1;
    try {
      const RunResult r = sim::simulate(spec);
      sim_time = r.file_verified ? r.sim_time_s : -2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "np=%d: %s\n", spec.ranks, e.what());
    }
    if (write(fds[1], &sim_time, sizeof sim_time) != sizeof sim_time) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  Measure m;
  double sim_time = -1;
  const bool got = read(fds[0], &sim_time, sizeof sim_time) == sizeof sim_time;
  close(fds[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  m.wall_s = now() - t0;
  m.max_rss_kib = ru.ru_maxrss;
  m.sim_s = sim_time;
  m.ok = got && WIFEXITED(status) && WEXITSTATUS(status) == 0 && sim_time >= 0;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int max_np = 4096;
  std::int64_t inspector_nx = 78643200;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--max-np"))
      max_np = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--inspector-nx"))
      inspector_nx = std::atoll(argv[i + 1]);
  }

  std::printf("## IEC simulation (block-cyclic, Bx = 1, Myrinet, PVFS with 8 I/O servers)\n\n");
  std::printf(
      "| Np | Nx (entries) | file | simulated time (s) | wall time (s) | peak RSS (MiB) | verified |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|:---:|\n");
  for (int np = 16; np <= max_np; np *= 4) {
    // Nx must be a multiple of Np^2 (IEC's per-chunk balance); at least 4 MiB of data.
    std::int64_t nx = static_cast<std::int64_t>(np) * np;
    while (nx * 4 < (4 << 20)) nx *= 2;
    const RunSpec spec = spec_for(np, nx);
    const Measure m = run_child(spec);
    std::printf("| %d | %lld | %.0f MiB | %.4f | %.2f | %.0f | %s |\n", np, static_cast<long long>(nx),
                static_cast<double>(nx) * 4 / (1 << 20), m.sim_s, m.wall_s,
                static_cast<double>(m.max_rss_kib) / 1024, m.ok ? "yes" : "NO");
    std::fflush(stdout);
  }

  // The inspector alone, both ways of holding its list (iec::Inspector::Lists): the periodic list (the
  // default) and the flat one (every run, as before 2026-11-26). Same plans, same tuples charged. Then the
  // same plans from iec-parametric's equations (§3.3.2; every rank's, one after the other, as its ranks
  // compute them in a run).
  std::printf("\n## Inspector speed (one thread)\n\n");
  std::printf(
      "| Np | Nx (entries) | Bx | plans from | time (s) | entries/s |\n|---:|---:|---:|---|---:|---:|\n");
  struct Shape {
    int np;
    std::int64_t nx;
    std::int64_t bx;
  };
  const std::vector<Shape> shapes{{16, inspector_nx, 1},
                                  {16, inspector_nx, 64},
                                  {1024, std::int64_t{1024} * 1024, 1},
                                  {4096, std::int64_t{4096} * 4096, 1}};
  for (const Shape& s : shapes) {
    if (s.np > max_np) continue;
    const Distribution d = block_cyclic(s.nx, s.np, s.bx);
    enum class How { periodic, flat, parametric };
    for (How how : {How::periodic, How::flat, How::parametric}) {
      const double t0 = now();
      std::vector<iec::RankPlan> plans;
      if (how == How::parametric) {
        for (int r = 0; r < s.np; ++r) plans.push_back(iec::parametric_plan(s.nx, s.np, s.bx, r));
      } else {
        plans = iec::inspect_all(
            d, how == How::flat ? iec::Inspector::Lists::flat : iec::Inspector::Lists::periodic);
      }
      const double t = now() - t0;
      std::printf("| %d | %lld | %lld | %s | %.3f | %.3g |\n", s.np, static_cast<long long>(s.nx),
                  static_cast<long long>(s.bx),
                  how == How::periodic ? "inspect_all, periodic lists"
                  : how == How::flat   ? "inspect_all, flat lists"
                                       : "parametric_plan",
                  t, static_cast<double>(s.nx) / t);
      std::fflush(stdout);
      if (plans.size() != static_cast<std::size_t>(s.np)) return 1;
    }
  }
  return 0;
}
