#include "app/output_dir.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "app/cleanup.hpp"
#include "config/params.hpp"

namespace ciosim::app {
namespace {

namespace fs = std::filesystem;

void remove_quietly(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
}

}  // namespace

void check_output_dir(const fs::path& dir) {
  if (dir.empty()) throw config::ConfigError("--out is empty; give a directory");
  std::error_code ec;
  const auto st = fs::symlink_status(dir, ec);
  if (ec || !fs::exists(st)) return;
  if (fs::is_symlink(st))
    throw config::ConfigError(
        "output path " + dir.string() +
        " is a symbolic link; ciosim writes only into real directories, choose another --out");
  if (!fs::is_directory(st))
    throw config::ConfigError("output path " + dir.string() +
                              " exists and is not a directory; choose another --out");
  if (!fs::is_empty(dir, ec) && !fs::exists(dir / "results.json", ec) &&
      !fs::exists(dir / "points" / "sweep.json", ec))
    throw config::ConfigError(
        "output directory " + dir.string() +
        " exists and is not a ciosim results directory (no results.json); choose another "
        "--out");
}

OutputDir::OutputDir(fs::path dir) : target_(std::move(dir)) {
  check_output_dir(target_);
  if (!target_.has_filename()) target_ = target_.parent_path();
  const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  // The parents that do not exist yet, created now and removed again if the run fails.
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path p = parent; !p.empty() && !fs::exists(fs::symlink_status(p, ec)); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!fs::create_directory(*it, ec) && ec) {
      for (const auto& made : created_parents_) fs::remove(made, ec);
      throw config::ConfigError("--out " + target_.string() + ": cannot create directory " + it->string() +
                                ": " + ec.message());
    }
    created_parents_.insert(created_parents_.begin(), *it);
  }
  std::string templ = (parent / ("." + target_.filename().string() + ".tmp-XXXXXX")).string();
  if (!::mkdtemp(templ.data())) {
    const int err = errno;
    for (const auto& made : created_parents_) fs::remove(made, ec);
    throw config::ConfigError("--out " + target_.string() + ": cannot write in " + parent.string() + ": " +
                              std::strerror(err));
  }
  staging_ = templ;
  slot_ = remember_temporary(staging_.string(), true);
  for (const auto& made : created_parents_) file_slots_.push_back(remember_temporary(made.string(), true));
}

OutputDir::~OutputDir() {
  remove_quietly(staging_);
  forget_temporary(slot_);
  for (int s : file_slots_) forget_temporary(s);
  if (!committed_) {
    std::error_code ec;
    for (const auto& made : created_parents_) fs::remove(made, ec);  // only if still empty
  }
}

fs::path OutputDir::stage(const std::string& name) {
  staged_.push_back(name);
  return staging_ / name;
}

void OutputDir::commit(const std::vector<std::pair<std::string, std::string>>& files,
                       const std::vector<std::string>& stale) {
  std::vector<int> slots;  // forgotten once the files are in place (or were removed by a failure)
  struct Forget {
    std::vector<int>& s;
    ~Forget() {
      for (int slot : s) forget_temporary(slot);
    }
  } forget{slots};
  try {
    for (const auto& [name, content] : files) {
      const fs::path f = staging_ / name;
      slots.push_back(remember_temporary(f.string(), false));
      std::ofstream out(f, std::ios::binary);
      out << content;
      out.close();
      if (!out) {
        std::error_code ec;
        fs::remove(f, ec);
        throw std::runtime_error("cannot write " + (target_ / name).string());
      }
    }
    fs::permissions(staging_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(target_, ec))) {
      fs::rename(staging_, target_);  // a new directory: all or nothing
    } else {
      check_output_dir(target_);  // still a results directory (or empty)?
      for (const auto& [name, content] : files) fs::rename(staging_ / name, target_ / name);
      for (const auto& name : staged_)
        if (fs::exists(fs::symlink_status(staging_ / name, ec))) fs::rename(staging_ / name, target_ / name);
      for (const auto& name : stale) {
        const auto st = fs::symlink_status(target_ / name, ec);
        if (fs::is_regular_file(st)) fs::remove(target_ / name, ec);
      }
    }
    committed_ = true;
  } catch (const fs::filesystem_error& e) {
    throw std::runtime_error("cannot write " + target_.string() + ": " + e.code().message());
  } catch (const config::ConfigError& e) {
    throw std::runtime_error(e.what());
  }
}

}  // namespace ciosim::app

namespace ciosim::app {

void OutputDir::create() {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(target_, ec))) {
    if (!fs::create_directory(target_, ec) && ec)
      throw std::runtime_error("cannot create " + target_.string() + ": " + ec.message());
    fs::permissions(target_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
  }
  committed_ = true;
}

void OutputDir::put(const std::string& rel, const std::string& content) {
  const fs::path dest = target_ / rel;
  const fs::path tmp = staging_ / fs::path(rel).filename();
  const int slot = remember_temporary(tmp.string(), false);
  try {
    std::ofstream out(tmp, std::ios::binary);
    out << content;
    out.close();
    if (!out) throw std::runtime_error("cannot write " + dest.string());
    fs::create_directories(dest.parent_path());
    fs::rename(tmp, dest);
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove(tmp, ec);
    forget_temporary(slot);
    if (dynamic_cast<const fs::filesystem_error*>(&e))
      throw std::runtime_error("cannot write " + dest.string() + ": " +
                               static_cast<const fs::filesystem_error&>(e).code().message());
    throw;
  }
  forget_temporary(slot);
}

void OutputDir::remove_own(const std::string& rel) {
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(target_ / rel, ec))) fs::remove(target_ / rel, ec);
}

}  // namespace ciosim::app
