// What a run leaves behind if it is stopped: nothing. The temporary files and directories a run stages
// its output in, and the forked child simulating the current point, are registered here; SIGINT,
// SIGTERM, SIGHUP and SIGQUIT remove the files and directories, kill the child, and then end the
// process with the same signal (so a caller sees the usual status). The handler only uses
// async-signal-safe calls (unlink, rmdir, kill, signal, raise, write) on paths copied in beforehand.
// A sweep defers signals instead (defer_signals): it saves its finished points first, then dies alike.
// SIGKILL cannot be caught: the child still dies with its parent (PR_SET_PDEATHSIG), and a staging file
// or directory named .NAME.tmp-XXXXXX next to the output may remain.
#pragma once

#include <sys/types.h>

#include <string>

namespace ciosim::app {

/// Installs the handlers (once; later calls do nothing).
void install_cleanup_handlers();
/// In a forked child: back to the default actions, so that a signal to the child alone does not remove
/// the parent's staging files (the parent cleans up when it sees the child fail).
void reset_cleanup_handlers();

/// Registers a temporary file (dir = false) or an empty-when-done temporary directory whose files are
/// registered too (dir = true) to be removed if a signal stops the process. Returns a slot for forget().
int remember_temporary(const std::string& path, bool dir);
/// Registers a temporary directory to be removed with everything in it if a signal stops the process
/// (`validate`'s workspace: the MPI runs' outputs, logs, traces and files). Returns a slot for forget().
int remember_temporary_tree(const std::string& path);
/// The path no longer needs removing (it was renamed into place or removed).
void forget_temporary(int slot);

/// The most children simulating at once (`run -j`, `advise -j`): the size of the table of running children.
inline constexpr int kMaxJobs = 256;

/// The children simulating points (one, or several with `run -j N`), killed if a signal stops the parent.
/// A negative id -g is the process group g (an MPI launcher and the ranks it started).
void add_running_child(pid_t pid);
void remove_running_child(pid_t pid);

/// Deferred mode (a sweep's main loop, app/sweep.hpp): a signal only records itself and writes a byte to
/// `wake_fd`, so that the loop can save the finished points and then call die_of(). -1 ends the mode.
void defer_signals(int wake_fd);
/// The first signal received in deferred mode, or 0.
int pending_signal();
/// What a signal does in immediate mode: kill the children, remove the temporaries, end the process
/// with `sig`. Does not return.
[[noreturn]] void die_of(int sig);

}  // namespace ciosim::app
