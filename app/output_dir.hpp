// Output directories that never lose what a user has. Before anything is simulated, an OutputDir checks
// the target and stages an empty temporary directory next to it (so an unwritable or impossible --out is
// found first, exit 2). At the end the files are written into the staging directory and moved into
// place: a new target is the staging directory renamed (all or nothing); an existing ciosim results
// directory (or an empty one) gets each file renamed over its namesake, one atomic rename per file, and
// every other file in it is left alone. Anything else at the target is refused. The staging directory,
// and the parent directories it had to create, are removed if the run fails or is stopped by a signal
// (app/cleanup.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ciosim::app {

/// Throws config::ConfigError when `dir` exists and cannot receive results: not a directory (a file, a
/// FIFO, a symlink, a device), or a non-empty directory without a results.json or points/sweep.json (not
/// a ciosim output directory).
void check_output_dir(const std::filesystem::path& dir);

class OutputDir {
 public:
  /// Checks `dir` (check_output_dir), creates the missing parent directories and the staging directory.
  /// Throws config::ConfigError (one line, naming --out) when that is impossible.
  explicit OutputDir(std::filesystem::path dir);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  const std::filesystem::path& path() const { return target_; }
  /// Where a file named `name` is written directly (e.g. by a point's process) so that commit() moves it
  /// into place with the others; commit() skips it if it was never written.
  std::filesystem::path stage(const std::string& name);
  /// Writes `files` (name, content) and moves them into place as described above. Throws
  /// std::runtime_error (one line) on I/O failure; the target is then as it was, but for files already
  /// moved when several replace an existing directory's.
  /// `stale` names files of ciosim's own that this run does not write (e.g. the effective configuration
  /// in the other format): removed from an existing directory so that it never mixes two runs' outputs.
  void commit(const std::vector<std::pair<std::string, std::string>>& files,
              const std::vector<std::string>& stale = {});

  /// A sweep saves as it goes (app/sweep_folder.hpp): creates the target now if it does not exist (it
  /// is then kept, as are the parents made for it); later commits replace files one by one.
  void create();
  /// Writes one file at `rel` (e.g. "points/point-000003.json") under the created target: staged, then
  /// renamed into place (atomic). Creates the subdirectory.
  void put(const std::string& rel, const std::string& content);
  /// Removes the regular file at `rel` under the target, if there is one (ciosim's own files only).
  void remove_own(const std::string& rel);

 private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
  std::vector<std::filesystem::path> created_parents_;  ///< deepest first
  int slot_ = -1;                                       ///< cleanup registration of the staging dir
  std::vector<int> file_slots_;
  std::vector<std::string> staged_;  ///< stage()'s names
  bool committed_ = false;
};

}  // namespace ciosim::app
