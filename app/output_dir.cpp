#include "app/output_dir.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "config/params.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

/// mkdtemp of `parent`/.`stem`.`tag`-XXXXXX.
fs::path make_temp_dir(const fs::path& parent, const std::string& stem, const std::string& tag) {
  std::string templ = (parent / ("." + stem + "." + tag + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data()))
    throw std::runtime_error("cannot create a temporary directory in " + parent.string() + ": " +
                             std::strerror(errno));
  return templ;
}

void remove_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

}  // namespace

void check_output_dir(const fs::path& dir) {
  std::error_code ec;
  const auto st = fs::symlink_status(dir, ec);
  if (ec || !fs::exists(st)) return;
  if (!fs::is_directory(st))
    throw config::ConfigError("output path " + dir.string() +
                              " exists and is not a directory; choose another --out");
  if (!fs::is_empty(dir, ec) && !fs::exists(dir / "results.json", ec))
    throw config::ConfigError(
        "output directory " + dir.string() +
        " exists and is not a ciosim results directory (no results.json); choose another "
        "--out");
}

void write_output_dir(const fs::path& dir, const std::vector<std::pair<std::string, std::string>>& files) {
  const fs::path target = dir.has_filename() ? dir : dir.parent_path();
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string stem = target.filename().string();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw std::runtime_error("cannot create " + parent.string() + ": " + ec.message());
  const fs::path tmp = make_temp_dir(parent, stem, "tmp");
  try {
    for (const auto& [name, content] : files) {
      std::ofstream out(tmp / name, std::ios::binary);
      out << content;
      out.close();
      if (!out) throw std::runtime_error("cannot write " + (target / name).string());
    }
    fs::permissions(tmp, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    fs::path old;
    if (fs::exists(fs::symlink_status(target, ec))) {
      check_output_dir(target);
      old = make_temp_dir(parent, stem, "old");
      try {
        fs::rename(target, old);  // onto the empty directory just made: atomic replace
      } catch (...) {
        remove_quietly(old);
        throw;
      }
    }
    try {
      fs::rename(tmp, target);
    } catch (...) {
      if (!old.empty()) fs::rename(old, target, ec);  // put the previous results back
      throw;
    }
    if (!old.empty()) remove_quietly(old);
  } catch (const fs::filesystem_error& e) {
    remove_quietly(tmp);
    throw std::runtime_error("cannot write " + target.string() + ": " + e.code().message());
  } catch (...) {
    remove_quietly(tmp);
    throw;
  }
}

}  // namespace ciosim::app
