#include "app/cleanup.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <string>

namespace ciosim::app {
namespace {

constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;

struct Slot {
  std::atomic<bool> used{false};
  bool dir = false;
  char path[kPathMax] = {};
};

constexpr int kChildren = 256;  // the most points simulated at once (run -j)

Slot g_slots[kSlots];
std::atomic<pid_t> g_children[kChildren];
std::atomic<bool> g_installed{false};
std::atomic<int> g_wake_fd{-1};
std::atomic<int> g_pending{0};

void die_now(int sig) {
  for (auto& c : g_children)
    if (const pid_t pid = c.load(); pid > 0) ::kill(pid, SIGKILL);
  // Files first, then the directories that held them.
  for (int pass = 0; pass < 2; ++pass)
    for (Slot& s : g_slots)
      if (s.used.load() && s.dir == (pass == 1)) {
        if (s.dir)
          ::rmdir(s.path);
        else
          ::unlink(s.path);
      }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

extern "C" void on_signal(int sig) {
  if (const int fd = g_wake_fd.load(); fd >= 0) {
    int none = 0;
    g_pending.compare_exchange_strong(none, sig);
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);
    return;
  }
  die_now(sig);
}

}  // namespace

void install_cleanup_handlers() {
  if (g_installed.exchange(true)) return;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, on_signal);
}

void reset_cleanup_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, SIG_DFL);
}

int remember_temporary(const std::string& path, bool dir) {
  if (path.size() >= kPathMax) throw std::runtime_error("temporary path too long: " + path);
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.used.load()) continue;
    s.dir = dir;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.used.store(true);
    return i;
  }
  throw std::runtime_error("too many temporary files at once (" + std::to_string(kSlots) + ")");
}

void forget_temporary(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].used.store(false);
}

void add_running_child(pid_t pid) {
  for (auto& c : g_children) {
    pid_t none = 0;
    if (c.compare_exchange_strong(none, pid)) return;
  }
  throw std::runtime_error("too many simulations at once (" + std::to_string(kChildren) + ")");
}

void remove_running_child(pid_t pid) {
  for (auto& c : g_children) {
    pid_t was = pid;
    if (c.compare_exchange_strong(was, 0)) return;
  }
}

void defer_signals(int wake_fd) {
  g_wake_fd.store(wake_fd);
}

int pending_signal() {
  return g_pending.load();
}

void die_of(int sig) {
  std::signal(sig, SIG_DFL);
  die_now(sig);
  ::_exit(128 + sig);  // not reached: the signal's default action ends the process
}

}  // namespace ciosim::app
