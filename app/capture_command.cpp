// `ciosim capture [--out DIR] -- COMMAND [ARGS...]`: runs an MPI application's launch command with
// libciosim-capture.so preloaded (validate/capture/capture.cpp), so that each of its ranks records its
// MPI-IO calls into DIR (config/capture_trace.hpp), then checks what was written and summarises it.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>

#include "app/commands.hpp"
#include "config/capture_trace.hpp"
#include "config/params.hpp"

extern char** environ;

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

/// The capture library: beside this ciosim (the build folder) or in its install's library folder, else the
/// one built with it (as ciosim-mpi is found: app/mpi_launch.cpp).
fs::path capture_library() {
  std::vector<fs::path> candidates;
  if (const fs::path exe = executable_dir(); !exe.empty()) {
    candidates.push_back(exe / "libciosim-capture.so");
#ifdef CIOSIM_INSTALL_LIBDIR
    candidates.push_back(exe.parent_path() / CIOSIM_INSTALL_LIBDIR / "libciosim-capture.so");
#endif
  }
#ifdef CIOSIM_CAPTURE_LIBRARY
  candidates.emplace_back(CIOSIM_CAPTURE_LIBRARY);
#endif
  return fs::absolute(first_file(candidates, "the capture library libciosim-capture.so",
                                 "build ciosim with its MPI backend, CIOSIM_MPI=ON"));
}

}  // namespace

CLI::App* add_capture_command(CLI::App& app, CaptureOptions& o) {
  CLI::App* c = app.add_subcommand(
      "capture",
      "Record an MPI application's MPI-IO calls: ciosim capture [--out DIR] -- mpiexec -n P ./app ...");
  nonempty(c->add_option("--out", o.out,
                         "Folder of the capture (default ciosim-capture; must not exist or be empty)")
               ->type_name("DIR"),
           "a new or empty folder");
  c->add_option("COMMAND", o.command, "The launch command of the application, after --")->required();
  return c;
}

int capture_command(const CaptureOptions& opt) {
  const fs::path out = fs::absolute(opt.out.empty() ? fs::path("ciosim-capture") : fs::path(opt.out));
  std::error_code ec;
  if (fs::exists(out, ec) && !(fs::is_directory(out, ec) && fs::is_empty(out, ec)))
    throw config::ConfigError("--out " + out.string() +
                              " exists and is not an empty folder; give a new one (a capture never "
                              "overwrites files)");
  const fs::path lib = capture_library();
  const bool made = !fs::exists(out, ec);
  fs::create_directories(out, ec);
  if (ec) throw config::ConfigError("cannot create --out " + out.string() + ": " + ec.message());
  // A failed capture leaves nothing behind: the folder (or, when it was given empty, its content) goes.
  const auto discard = [&] {
    std::error_code e;
    if (made)
      fs::remove_all(out, e);
    else
      for (const auto& entry : fs::directory_iterator(out, e)) fs::remove_all(entry.path(), e);
  };

  // The application's environment, with the library preloaded (before any the user preloads) and the
  // folder named. Open MPI and MPICH pass the environment on to the ranks they start on this host; ranks
  // on other hosts need it forwarded (mpiexec -x LD_PRELOAD -x CIOSIM_CAPTURE_DIR, or -genvlist).
  std::vector<std::string> env;
  std::string preload = lib.string();
  for (char** e = environ; *e; ++e) {
    const std::string v = *e;
    if (v.rfind("LD_PRELOAD=", 0) == 0)
      preload += " " + v.substr(11);
    else if (v.rfind("CIOSIM_CAPTURE_DIR=", 0) != 0)
      env.push_back(v);
  }
  env.push_back("LD_PRELOAD=" + preload);
  env.push_back("CIOSIM_CAPTURE_DIR=" + out.string());
  std::vector<char*> envp;
  for (auto& v : env) envp.push_back(v.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = opt.command;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  if (const int rc = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()); rc != 0) {
    discard();
    throw config::ConfigError("cannot run " + args[0] + ": " + std::strerror(rc));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    discard();
    throw std::runtime_error(args[0] + " " +
                             (WIFEXITED(status)
                                  ? "exited " + std::to_string(WEXITSTATUS(status))
                                  : "was killed by signal " + std::to_string(WTERMSIG(status))) +
                             ": no capture kept (" + out.string() + " removed)");
  }
  config::CapturedTrace t;
  try {
    t = config::read_capture(out);
  } catch (const std::invalid_argument& e) {
    discard();
    throw std::runtime_error(std::string("the application ran, but its capture is not usable: ") + e.what() +
                             " (was it an MPI program linked with the MPI library ciosim was built with?); "
                             "nothing kept");
  }
  std::map<std::string, int> kinds;
  int unsupported = 0;
  for (const auto& rank : t.calls)
    for (const auto& c : rank) {
      ++kinds[c.kind];
      if (c.kind == "unsupported") ++unsupported;
    }
  std::cout << "captured " << t.ranks << " ranks of " << t.program << " (" << t.mpi_library << ") into "
            << out.string() << ":";
  for (const auto& [k, n] : kinds) std::cout << " " << n << " " << k;
  std::cout << "\n";
  if (unsupported > 0)
    std::cout
        << "  " << unsupported
        << " calls ciosim cannot replay are noted as unsupported (non-blocking, split collective, shared "
           "file pointer, set_size, preallocate, or a view it could not flatten)\n";
  return 0;
}

}  // namespace ciosim::app
