#include "app/mpi_launch.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "app/cleanup.hpp"
#include "app/commands.hpp"
#include "config/input_files.hpp"
#include "config/params.hpp"

namespace ciosim::app {

namespace fs = std::filesystem;

namespace {

#ifndef CIOSIM_MPIEXEC
#define CIOSIM_MPIEXEC "mpirun"
#endif

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return executable(name) ? fs::absolute(name).string() : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && executable(fs::path(d) / name)) return (fs::path(d) / name).string();
  return "";
}

}  // namespace

fs::path mpi_binary() {
  if (const char* env = std::getenv("CIOSIM_MPI_BINARY"); env && *env) {
    if (!executable(env))
      throw config::ConfigError(std::string("CIOSIM_MPI_BINARY=") + env + " is not an executable");
    return env;
  }
  // Beside this ciosim (the build directory, or PREFIX/bin once installed).
  if (const fs::path sibling = executable_dir() / "ciosim-mpi";
      !executable_dir().empty() && executable(sibling))
    return sibling;
#ifdef CIOSIM_MPI_BINARY
  if (executable(CIOSIM_MPI_BINARY)) return CIOSIM_MPI_BINARY;
  throw config::ConfigError(
      std::string("ciosim-mpi not found at ") + CIOSIM_MPI_BINARY +
      "; build it (cmake --build BUILD_DIR --target ciosim-mpi) or set CIOSIM_MPI_BINARY");
#else
  throw config::ConfigError(
      "this ciosim was built without MPI (CIOSIM_MPI=OFF); install Open MPI (scripts/install-deps.sh) and "
      "rebuild, "
      "or set CIOSIM_MPI_BINARY to a ciosim-mpi");
#endif
}

Launcher find_launcher(const MpiOptions& opt) {
  const std::string name = opt.mpirun.empty() ? CIOSIM_MPIEXEC : opt.mpirun;
  Launcher l;
  l.path = find_on_path(name);
  if (l.path.empty())
    throw config::ConfigError(
        name + " not found" + (name.find('/') == std::string::npos ? " on PATH" : "") +
        "; install an MPI launcher (Debian: apt-get install openmpi-bin) or give --mpirun PATH");
  if (!opt.hostfile.empty() && !fs::is_regular_file(opt.hostfile))
    throw config::ConfigError(config::not_a_file("--hostfile", opt.hostfile, "a file of one host per line"));
  char templ[] = "/tmp/ciosim-mpirun-version-XXXXXX";
  const int fd = ::mkstemp(templ);
  if (fd >= 0) ::close(fd);
  const LaunchResult v = run_logged({l.path, "--version"}, templ);
  ::unlink(templ);
  l.version = v.output.substr(0, v.output.find('\n'));
  if (v.output.find("Open MPI") != std::string::npos || v.output.find("OpenRTE") != std::string::npos) {
    l.flavor = MpiFlavor::OpenMpi;
  } else if (v.output.find("HYDRA") != std::string::npos || v.output.find("MPICH") != std::string::npos) {
    l.flavor = MpiFlavor::Mpich;
    // Hydra prints "HYDRA build details:" then "    Version:   4.0.2".
    if (const auto at = v.output.find("Version:"); at != std::string::npos) {
      const auto from = v.output.find_first_not_of(" \t", at + 8);
      l.version = "MPICH Hydra " + v.output.substr(from, v.output.find('\n', from) - from);
    }
  }
  return l;
}

std::vector<std::string> romio_args(const Launcher& l) {
  if (l.flavor == MpiFlavor::OpenMpi) return {"--mca", "io", "romio321"};
  return {};
}

std::vector<std::string> launch_command(const Launcher& l, int np, const MpiOptions& opt,
                                        const std::vector<std::string>& launcher_args,
                                        const std::vector<std::string>& program) {
  std::vector<std::string> argv{l.path, "-n", std::to_string(np)};
  const auto cores = static_cast<int>(std::thread::hardware_concurrency());
  if (l.flavor == MpiFlavor::OpenMpi) {
    if (::geteuid() == 0) argv.push_back("--allow-run-as-root");
    if (opt.hostfile.empty()) {
      if (np > cores) argv.insert(argv.end(), {"--oversubscribe", "--bind-to", "none"});
      argv.insert(argv.end(), {"--mca", "btl", "self,vader"});
    } else {
      argv.insert(argv.end(), {"--hostfile", opt.hostfile});
    }
  } else if (!opt.hostfile.empty()) {
    argv.insert(argv.end(), {"-f", opt.hostfile});  // MPICH's Hydra
  }
  argv.insert(argv.end(), launcher_args.begin(), launcher_args.end());
  argv.insert(argv.end(), opt.extra_args.begin(), opt.extra_args.end());
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

void throw_timed_out(const std::string& what, double timeout_s) {
  throw std::runtime_error("the MPI job of " + what + " ran past --timeout " +
                           config::format_double(timeout_s) +
                           " s and was ended with its ranks; nothing written (give a larger --timeout, or 0 "
                           "for no limit)");
}

LaunchResult run_logged(const std::vector<std::string>& argv, const fs::path& log, double timeout_s) {
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) throw std::runtime_error("cannot create " + log.string() + ": " + std::strerror(errno));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(out);
    throw std::runtime_error("fork: " + std::string(std::strerror(err)));
  }
  if (pid == 0) {
    // Its own process group, which a signal to ciosim kills whole (app/cleanup.hpp), and dead with ciosim.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::execv(args[0], args.data());
    const std::string msg = "cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::close(out);
  ::setpgid(pid, pid);  // as the child does, whichever runs first
  add_running_child(-pid);
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  clock::time_point term_sent{};
  bool timed_out = false, killed = false;
  int status = 0;
  for (;;) {
    const pid_t w = ::waitpid(pid, &status, timeout_s > 0 ? WNOHANG : 0);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (w != 0) continue;  // interrupted
    if (timeout_s > 0 && !timed_out && since(start) > timeout_s) {
      timed_out = true;
      term_sent = clock::now();
      ::kill(-pid, SIGTERM);  // Open MPI's mpirun passes it on to the ranks and exits
    } else if (timed_out && !killed && since(term_sent) > 2) {
      killed = true;
      ::kill(-pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  remove_running_child(-pid);
  LaunchResult r;
  r.timed_out = timed_out;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = slurp(log);
  return r;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$*?;&|<>()") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
      out += '\'';
    }
  }
  return out;
}

std::string tail_lines(const std::string& text, int lines) {
  std::vector<std::string> all;
  std::stringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.find_first_not_of(" \t\r") != std::string::npos) all.push_back(l);
  std::string out;
  const std::size_t from =
      all.size() > static_cast<std::size_t>(lines) ? all.size() - static_cast<std::size_t>(lines) : 0;
  for (std::size_t i = from; i < all.size(); ++i) out += (out.empty() ? "" : " | ") + all[i];
  return out;
}

std::string job_error(const std::string& output, int lines) {
  std::vector<std::string> said;
  std::stringstream in(output);
  for (std::string l; std::getline(in, l);)
    if (l.find("ciosim-mpi: error: ") != std::string::npos &&
        std::find(said.begin(), said.end(), l) == said.end())
      said.push_back(l);
  if (said.empty()) return tail_lines(output, lines);
  std::string out;
  for (const std::string& l : said) out += (out.empty() ? "" : " | ") + l;
  return out;
}

}  // namespace ciosim::app
