#include "app/cleanup.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <stdexcept>

namespace ciosim::app {
namespace {

constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;

struct Slot {
  std::atomic<bool> used{false};
  bool dir = false;
  char path[kPathMax] = {};
};

Slot g_slots[kSlots];
std::atomic<pid_t> g_child{0};
std::atomic<bool> g_installed{false};

extern "C" void on_signal(int sig) {
  const pid_t child = g_child.load();
  if (child > 0) ::kill(child, SIGKILL);
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

void set_running_child(pid_t pid) {
  g_child.store(pid);
}

}  // namespace ciosim::app
