// A file written beside its target and renamed onto it only when whole: what `run --export-file` and
// `plan --svg` write, so that a failure or a stop leaves the user's file as it was.
#pragma once

#include <filesystem>
#include <string>

namespace ciosim::app {

/// A file created next to `target` (mkstemp) that is renamed onto `target` by commit() only when
/// everything succeeded, and removed otherwise (and by a signal: app/cleanup.hpp). Only a new path or an
/// existing regular file is accepted as `target`, in an existing directory: never a directory, a symbolic
/// link, a FIFO (whose open would block), a socket or a device, whose replacement would destroy
/// something of the user's. `option` names the flag in messages ("--svg"); `also` is a suffix of a second
/// temporary that the writer may leave beside the first (FileStore::export_to's ".partial"), removed too.
class StagedFile {
 public:
  StagedFile(const std::string& option, const std::filesystem::path& target, const std::string& also = "");
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  ~StagedFile();
  /// The temporary to write.
  const std::filesystem::path& path() const { return tmp_; }
  /// Writes `text` into the temporary; throws std::runtime_error when the write fails.
  void write(const std::string& text);
  /// Renames the temporary onto the target, checking the target again first (it may have changed).
  void commit();

 private:
  std::string option_;
  std::filesystem::path target_;
  std::filesystem::path tmp_;
  std::string also_;
  int slots_[2] = {-1, -1};
};

}  // namespace ciosim::app
