#include "app/cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

namespace ciosim::app {
namespace {

constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;

enum class Kind { File, Dir, Tree };

struct Slot {
  std::atomic<bool> used{false};
  Kind kind = Kind::File;
  char path[kPathMax] = {};
};

Slot g_slots[kSlots];
std::atomic<pid_t> g_children[kMaxJobs];
std::atomic<bool> g_installed{false};
std::atomic<int> g_wake_fd{-1};
std::atomic<int> g_pending{0};

/// Removes `name` in directory `at` and, if it is a directory, everything in it (depth-first, without
/// following symbolic links), with async-signal-safe calls only (openat, getdents64, unlinkat, close).
void remove_tree_at(int at, const char* name, int depth) {
  if (::unlinkat(at, name, 0) == 0 || (errno != EISDIR && errno != EPERM) || depth > 32) return;
  const int fd = ::openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  // Entries removed while a directory is read may be skipped: read it again until a pass removes nothing.
  for (bool removed = true; removed;) {
    removed = false;
    ::lseek(fd, 0, SEEK_SET);
    alignas(8) char buf[2048];
    for (long n; (n = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0;)
      for (long off = 0; off < n;) {
        const auto* e = reinterpret_cast<const struct dirent64*>(buf + off);
        off += e->d_reclen;
        const char* d = e->d_name;
        if (d[0] == '.' && (d[1] == '\0' || (d[1] == '.' && d[2] == '\0'))) continue;
        remove_tree_at(fd, d, depth + 1);
        removed = true;
      }
  }
  ::close(fd);
  ::unlinkat(at, name, AT_REMOVEDIR);
}

void die_now(int sig) {
  // A negative id is a process group (an MPI launcher and the ranks it started; the launcher leads it).
  for (auto& c : g_children)
    if (const pid_t pid = c.load(); pid != 0) ::kill(pid, SIGKILL);
  // A killed process is not gone when kill() returns: reap the children (the launchers).
  for (auto& c : g_children)
    if (const pid_t pid = c.load(); pid != 0) ::waitpid(pid < 0 ? -pid : pid, nullptr, 0);
  // Files and trees first, then the directories that held the files. MPI ranks need not share their
  // launcher's process group: until their runtime ends them they may write into a tree after it was
  // emptied (under AddressSanitizer for over a second: "a stopped ciosim validate leaves no temporary
  // workspace" failed 1 run in 10). Remove it again until it is gone, for at most about 5 s.
  for (int pass = 0; pass < 2; ++pass)
    for (Slot& s : g_slots)
      if (s.used.load() && (s.kind == Kind::Dir) == (pass == 1)) {
        if (s.kind == Kind::Dir) {
          ::rmdir(s.path);
        } else if (s.kind == Kind::Tree) {
          for (int tries = 0; tries < 500; ++tries) {
            remove_tree_at(AT_FDCWD, s.path, 0);
            if (::access(s.path, F_OK) != 0) break;
            const timespec pause{0, 10'000'000};  // 10 ms, 500 times at most
            ::nanosleep(&pause, nullptr);
          }
        } else {
          ::unlink(s.path);
        }
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

namespace {

int remember(const std::string& path, Kind kind) {
  if (path.size() >= kPathMax) throw std::runtime_error("temporary path too long: " + path);
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.used.load()) continue;
    s.kind = kind;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.used.store(true);
    return i;
  }
  throw std::runtime_error("too many temporary files at once (" + std::to_string(kSlots) + ")");
}

}  // namespace

int remember_temporary(const std::string& path, bool dir) {
  return remember(path, dir ? Kind::Dir : Kind::File);
}

int remember_temporary_tree(const std::string& path) {
  return remember(path, Kind::Tree);
}

void forget_temporary(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].used.store(false);
}

void add_running_child(pid_t pid) {
  for (auto& c : g_children) {
    pid_t none = 0;
    if (c.compare_exchange_strong(none, pid)) return;
  }
  throw std::runtime_error("too many simulations at once (" + std::to_string(kMaxJobs) + ")");
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
