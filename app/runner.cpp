#include "app/runner.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cleanup.hpp"
#include "config/results.hpp"
#include "config/scenario.hpp"
#include "sim/simulate.hpp"

namespace ciosim::app {
namespace {

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent went away; nothing more to do
    done += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

/// The child: simulate, report, exit without running the parent's atexit handlers or destructors.
[[noreturn]] void child(const RunSpec& spec, int fd) {
  nlohmann::json msg;
  int status = 0;
  try {
    msg = {{"ok", true}, {"result", config::run_result_to_json(sim::simulate(spec))}};
  } catch (const std::bad_alloc&) {
    msg = {{"ok", false}, {"error", "out of memory"}, {"out_of_memory", true}};
    status = 3;
  } catch (const std::exception& e) {
    msg = {{"ok", false}, {"error", one_line(e.what())}};
    status = 3;
  } catch (...) {
    msg = {{"ok", false}, {"error", "unknown exception"}};
    status = 3;
  }
  write_all(fd, msg.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  ::close(fd);
  std::fflush(nullptr);
  ::_exit(status);
}

}  // namespace

PointChild start_point(const RunSpec& spec, const std::string& name) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw PointFailed(name + ": pipe: " + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw PointFailed(name + ": fork: " + std::strerror(err));
  }
  if (pid == 0) {
    // The simulation dies with its parent, whatever stops the parent (even SIGKILL); if the parent is
    // already gone, stop at once.
    reset_cleanup_handlers();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(4);
    ::close(fds[0]);
    child(spec, fds[1]);
  }
  add_running_child(pid);
  ::close(fds[1]);
  return {pid, fds[0]};
}

RunResult finish_point(pid_t pid, const std::string& payload, int status, const std::string& name) {
  remove_running_child(pid);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    throw PointFailed(name + ": the simulation crashed with signal " + std::to_string(sig) + " (" +
                      ::strsignal(sig) + ")");
  }
  nlohmann::json msg;
  try {
    msg = nlohmann::json::parse(payload);
  } catch (const nlohmann::json::exception&) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    throw PointFailed(name + ": the simulation exited with status " + std::to_string(code) +
                      " without reporting a result");
  }
  if (msg.value("out_of_memory", false))
    throw OutOfMemory(name + ": out of memory: the simulation needed more than this machine could give; "
                             "make the workload smaller (workload.nx, ranks, nodes) or lower -j");
  if (!msg.value("ok", false))
    throw PointFailed(name + ": " + msg.value("error", std::string("unknown error")));
  RunResult r;
  try {
    r = config::run_result_from_json(msg.at("result"));
  } catch (const std::exception& e) {
    throw PointFailed(name + ": " + e.what());
  }
  // A run whose file is not what the technique promises is a failed run, never a result.
  if (!r.file_verified)
    throw PointFailed(name + ": the simulated file does not match the layout technique " + r.algorithm +
                      " promises (verification failed); no results written");
  return r;
}

RunResult run_point(const RunSpec& spec, const std::string& label) {
  const std::string name = label.empty() ? "the run" : "point " + label;
  const PointChild c = start_point(spec, name);
  const std::string payload = read_all(c.fd);  // to EOF before waiting: the pipe buffer is bounded
  ::close(c.fd);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  return finish_point(c.pid, payload, status, name);
}

std::string point_name(const std::vector<RunSpec>& specs, std::size_t i) {
  const std::string p = config::point_label(specs[i]);
  if (specs.size() == 1 && p.empty()) return "the run";
  return "point " + std::to_string(i + 1) + " of " + std::to_string(specs.size()) +
         (p.empty() ? "" : " (" + p + ")");
}

}  // namespace ciosim::app
