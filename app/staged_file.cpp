#include "app/staged_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "app/cleanup.hpp"
#include "config/input_files.hpp"
#include "config/params.hpp"

namespace ciosim::app {

namespace fs = std::filesystem;

StagedFile::StagedFile(const std::string& option, const fs::path& target, const std::string& also)
    : option_(option), target_(target), also_(also) {
  const std::string what = option + " " + target.string();
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    throw config::ConfigError(what + ": directory " + parent.string() + " does not exist");
  const auto st = fs::symlink_status(target, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw config::ConfigError(what + " is " + config::file_kind(st) + "; " + option +
                              " replaces only a regular file or creates a new one");
  std::string templ = (parent / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(templ.data());
  if (fd < 0)
    throw config::ConfigError(what + ": cannot create a file in " + parent.string() + ": " +
                              std::strerror(errno));
  ::close(fd);
  tmp_ = templ;
  slots_[0] = remember_temporary(tmp_.string(), false);
  if (!also_.empty()) slots_[1] = remember_temporary(tmp_.string() + also_, false);
}

StagedFile::~StagedFile() {
  std::error_code ec;
  if (!tmp_.empty()) fs::remove(tmp_, ec);
  if (!tmp_.empty() && !also_.empty()) fs::remove(tmp_.string() + also_, ec);
  for (int s : slots_)
    if (s >= 0) forget_temporary(s);
}

void StagedFile::write(const std::string& text) {
  std::ofstream f(tmp_, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw std::runtime_error(option_ + " " + target_.string() + ": cannot write " + tmp_.string());
}

void StagedFile::commit() {
  std::error_code ec;
  const auto st = fs::symlink_status(target_, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw std::runtime_error(option_ + " " + target_.string() + " became " + config::file_kind(st) +
                             " meanwhile; not replaced");
  fs::rename(tmp_, target_, ec);
  if (ec) throw std::runtime_error(option_ + " " + target_.string() + ": cannot replace it: " + ec.message());
  tmp_.clear();
}

}  // namespace ciosim::app
