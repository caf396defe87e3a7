#include "app/sweep.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <optional>
#include <set>

#include "app/cleanup.hpp"
#include "app/runner.hpp"
#include "config/point_reuse.hpp"
#include "config/scenario.hpp"
#include "config/work_estimate.hpp"

namespace ciosim::app {
namespace {

std::string duration_text(double s) {
  const long t = static_cast<long>(s + 0.5);
  char buf[48];
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

struct Running {
  std::size_t point = 0;
  PointChild child;
  std::string payload;
  bool eof = false;
};

void reap(pid_t pid, int& status) {
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

/// Kills and reaps every running child (a stop or a failure).
void stop_all(std::vector<Running>& running) {
  for (auto& r : running) ::kill(r.child.pid, SIGKILL);
  for (auto& r : running) {
    ::close(r.child.fd);
    int status = 0;
    reap(r.child.pid, status);
    remove_running_child(r.child.pid);
  }
  running.clear();
}

}  // namespace

void run_sweep(const std::vector<RunSpec>& specs, SweepFolder& folder, const SweepOptions& opt) {
  std::vector<std::size_t> todo;
  for (std::size_t p : folder.mine())
    if (!folder.done().count(p)) todo.push_back(p);
  // Several points at once: the longest first (their estimated work, config/work_estimate.hpp), so that a
  // long point does not start last and run alone at the end. Equal estimates keep their order (a point's
  // network.mpi twin, whose results it may take, stays before it). The results are written in point order.
  if (opt.jobs > 1) {
    std::vector<double> work(specs.size() + 1, 0);
    for (const std::size_t p : todo)
      work[p] = config::estimate_work(specs[p - 1],
                                      config::workload_size(specs[p - 1].workload, specs[p - 1].ranks))
                    .events;
    std::stable_sort(todo.begin(), todo.end(),
                     [&](std::size_t a, std::size_t b) { return work[a] > work[b]; });
  }
  const std::size_t total = folder.mine().size();
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  defer_signals(wake[1]);
  std::vector<Running> running;
  std::optional<PointFailed> failure;
  bool out_of_memory = false;  // the failure was an OutOfMemory (exit 2, not 1)
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t next = 0, finished_now = 0;
  const auto progress_done = [&] {
    if (opt.quiet) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::size_t left = todo.size() - finished_now;
    std::cerr << "ciosim: " << folder.done().size() << " of " << total << " points done, "
              << duration_text(elapsed) << " elapsed";
    if (left > 0)
      std::cerr << ", about " << duration_text(elapsed / double(finished_now) * double(left)) << " left";
    std::cerr << std::endl;
  };
  // "[3/22] iec  workload.bx=4" and what follows, when a point starts or takes its twin's results.
  const auto announce = [&](std::size_t p, const std::string& tail) {
    if (opt.quiet) return;
    const RunSpec& spec = specs[p - 1];
    const std::string label = config::point_label(spec);
    std::cerr << "ciosim: [" << p << "/" << specs.size() << "] " << spec.algorithm
              << (label.empty() ? "" : "  " + label) << tail << std::endl;
  };
  // A point whose twin (config/point_reuse.hpp) is among this folder's points waits for it; once the twin
  // is done, it takes the twin's results if the twin made no MPI call, else it is simulated.
  const std::vector<std::size_t> twins =
      opt.reuse ? config::mpi_twins(specs) : std::vector<std::size_t>(specs.size(), 0);
  const std::set<std::size_t> mine(folder.mine().begin(), folder.mine().end());
  std::deque<std::size_t> waiting;  // points whose twin has not finished, in point order
  std::deque<std::size_t> ready;    // points to simulate before the next of todo
  const auto twin_of = [&](std::size_t p) {
    const std::size_t t = twins[p - 1];
    return t != 0 && mine.count(t) ? t : 0;
  };
  // Gives p its twin's results when it can; true when it did.
  const auto reuse = [&](std::size_t p) {
    const std::size_t t = twin_of(p);
    const auto done = folder.done().find(t);
    if (t == 0 || done == folder.done().end() || !config::made_no_mpi_call(done->second)) return false;
    announce(p, ": the simulation of point " + std::to_string(t) +
                    " (it made no MPI call, and the two differ only in network.mpi)");
    folder.save(p, config::twin_result(done->second, specs[p - 1]));
    ++finished_now;
    progress_done();
    return true;
  };
  try {
    while (pending_signal() == 0 && !failure) {
      for (std::size_t i = 0; i < waiting.size();) {  // twins finished since: reuse, or simulate
        const std::size_t p = waiting[i];
        if (!folder.done().count(twin_of(p))) {
          ++i;
          continue;
        }
        waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(i));
        if (!reuse(p)) ready.push_back(p);
      }
      while (running.size() < static_cast<std::size_t>(opt.jobs) && (!ready.empty() || next < todo.size())) {
        std::size_t p = 0;
        if (!ready.empty()) {
          p = ready.front();
          ready.pop_front();
        } else {
          p = todo[next++];
          if (const std::size_t t = twin_of(p); t != 0) {
            if (!folder.done().count(t)) {
              waiting.push_back(p);  // its twin comes before it in todo: running, or about to
              continue;
            }
            if (reuse(p)) continue;
          }
        }
        announce(p, "");
        running.push_back({p, start_point(specs[p - 1], point_name(specs, p - 1)), {}, false});
      }
      if (running.empty() && !waiting.empty()) {  // cannot happen (a waiting point's twin is running)
        ready.insert(ready.end(), waiting.begin(), waiting.end());
        waiting.clear();
        continue;
      }
      if (running.empty()) break;
      std::vector<pollfd> fds{{wake[0], POLLIN, 0}};
      for (const auto& r : running) fds.push_back({r.child.fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      }
      char buf[65536];
      while (::read(wake[0], buf, sizeof buf) > 0) {
      }
      for (std::size_t i = 0; i < running.size(); ++i) {
        if (!(fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = ::read(running[i].child.fd, buf, sizeof buf);
        if (n > 0) running[i].payload.append(buf, static_cast<std::size_t>(n));
        if (n == 0 || (n < 0 && errno != EINTR)) running[i].eof = true;
      }
      for (std::size_t i = 0; i < running.size();) {
        if (!running[i].eof) {
          ++i;
          continue;
        }
        Running r = std::move(running[i]);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
        ::close(r.child.fd);
        int status = 0;
        reap(r.child.pid, status);
        try {
          const RunResult result =
              finish_point(r.child.pid, r.payload, status, point_name(specs, r.point - 1));
          folder.save(r.point, result);
          ++finished_now;
          progress_done();
        } catch (const PointFailed& e) {
          // A child killed by the same Ctrl-C as its parent is a stop, not a failure.
          if (pending_signal() == 0 && !failure) {
            failure = e;
            out_of_memory = dynamic_cast<const OutOfMemory*>(&e) != nullptr;
          }
        }
      }
    }
    stop_all(running);
  } catch (...) {
    stop_all(running);
    defer_signals(-1);
    ::close(wake[0]);
    ::close(wake[1]);
    throw;
  }
  const int sig = pending_signal();
  if (sig || failure) {
    folder.write_results();  // the points finished so far, marked partial (nothing if none)
    if (!opt.quiet && !folder.done().empty())
      std::cerr << "ciosim: " << (sig ? "stopped" : "failed") << " after " << folder.done().size() << " of "
                << total << " points; the finished ones are saved (run again with --resume to finish)"
                << std::endl;
  } else {
    folder.write_results();
  }
  defer_signals(-1);
  ::close(wake[0]);
  ::close(wake[1]);
  if (const int s = pending_signal(); s != 0) die_of(s);
  if (failure && out_of_memory) throw OutOfMemory(failure->what());
  if (failure) throw *failure;
}

}  // namespace ciosim::app
