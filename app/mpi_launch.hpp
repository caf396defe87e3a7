// Starting ciosim-mpi under the MPI launcher (for `ciosim validate` and `ciosim calibrate`): finding the
// launcher, the flags this machine needs, and running it with its output captured.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ciosim::app {

/// How to start MPI jobs, from the command line of validate/calibrate.
struct MpiOptions {
  std::string mpirun;                   ///< launcher name or path; "" = the one ciosim-mpi was built for
  std::string hostfile;                 ///< "" = run on this machine only
  std::vector<std::string> extra_args;  ///< passed to the launcher before the program (--mpirun-arg)
};

enum class MpiFlavor { OpenMpi, Mpich, Unknown };

struct Launcher {
  std::string path;  ///< absolute path of the launcher
  MpiFlavor flavor = MpiFlavor::Unknown;
  std::string version;  ///< first line of `launcher --version`
};

/// The path of ciosim-mpi: $CIOSIM_MPI_BINARY if set, else the one built with this ciosim. Throws
/// config::ConfigError when this ciosim was built without MPI or the binary is missing.
std::filesystem::path mpi_binary();

/// Finds the launcher (a path, or a name looked up on PATH) and asks it for its version. Throws
/// config::ConfigError (one line, saying what to install or pass) when it is not found.
Launcher find_launcher(const MpiOptions& opt);

/// The full command line: launcher, -n np, the flags the flavor needs here (Open MPI: --allow-run-as-root
/// as root; --oversubscribe --bind-to none when np exceeds this machine's cores and no hostfile is given;
/// --mca btl self,vader without a hostfile), `launcher_args` (e.g. --mca io romio321), the user's extra
/// arguments, then the program and its arguments.
/// The launcher's arguments that make MPI-IO run on ROMIO: Open MPI 4 chooses OMPIO unless told
/// (--mca io romio321); MPICH's MPI-IO is ROMIO.
std::vector<std::string> romio_args(const Launcher& l);

std::vector<std::string> launch_command(const Launcher& l, int np, const MpiOptions& opt,
                                        const std::vector<std::string>& launcher_args,
                                        const std::vector<std::string>& program);

struct LaunchResult {
  int exit_code = 0;       ///< the launcher's exit status (128 + signal if it was killed)
  std::string output;      ///< stdout and stderr, interleaved
  bool timed_out = false;  ///< it ran past the limit and was ended
};

/// Runs `argv` with stdin from /dev/null and stdout+stderr captured into `log` (a file path), and
/// returns its exit status and output. Throws std::runtime_error if it cannot be started. With
/// `timeout_s` > 0, a run still going after that many seconds is ended with its process group (the
/// launcher and the ranks it started): SIGTERM, then SIGKILL 2 s later; `timed_out` is then true.
LaunchResult run_logged(const std::vector<std::string>& argv, const std::filesystem::path& log,
                        double timeout_s = 0);

/// Throws std::runtime_error saying that the MPI job of `what` ("the real runs") ran past --timeout
/// `timeout_s` and was ended with its ranks, and that nothing was written (the caller writes nothing).
[[noreturn]] void throw_timed_out(const std::string& what, double timeout_s);

/// "a b 'c d'" (for messages).
std::string shell_join(const std::vector<std::string>& argv);

/// The last `lines` non-empty lines of `text`, joined with " | " (for one-line error messages).
std::string tail_lines(const std::string& text, int lines);

/// What a failed ciosim-mpi job said: its ranks' "ciosim-mpi: error:" lines (each once, joined by " | "),
/// which the launcher's own report of the abort that ends the job follows; else the last `lines` lines.
std::string job_error(const std::string& output, int lines);

}  // namespace ciosim::app
