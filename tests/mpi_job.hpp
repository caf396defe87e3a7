// Starting a small MPI job from a test: the launcher the MPI backend was built with (CIOSIM_MPIEXEC_PATH),
// with what this machine needs (as root, more ranks than cores), and the job's output and exit status.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ciosim::testing {

/// Runs `cmd` in a shell; returns its stdout and stderr together, its exit status in *code (128: killed).
inline std::string run_output(const std::string& cmd, int* code) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return out;
}

#ifdef CIOSIM_MPIEXEC_PATH
/// Whether the launcher the MPI backend was built with is Open MPI's (else MPICH's).
inline bool open_mpi_launcher() {
  int code = -1;
  const std::string version = run_output(std::string(CIOSIM_MPIEXEC_PATH) + " --version", &code);
  return version.find("Open MPI") != std::string::npos || version.find("OpenRTE") != std::string::npos;
}

/// "mpiexec -n NP " with what this machine needs to start NP ranks (as root, on fewer cores), and `env`
/// passed to the ranks only.
inline std::string launch(int np, const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const bool open_mpi = open_mpi_launcher();
  std::string cmd = std::string(CIOSIM_MPIEXEC_PATH) + " -n " + std::to_string(np) + " ";
  if (open_mpi && ::geteuid() == 0) cmd += "--allow-run-as-root ";
  if (open_mpi) cmd += "--oversubscribe --bind-to none ";
  for (const auto& [k, v] : env) cmd += (open_mpi ? "-x " + k + "=" : "-genv " + k + " ") + v + " ";
  return cmd;
}
#endif

}  // namespace ciosim::testing
