// The `ciosim` command run as a separate process (CIOSIM_BINARY) in a scratch workspace: shared by the
// command-line tests.
#pragma once

#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cli_test {

namespace fs = std::filesystem;

inline const char* kPlatform = R"(name = "tiny"
description = "a four-node test platform"
[nodes]
count = 4
cores_per_node = 1
memcpy_Bps = 3.0e8
tuple_cost_s = 5e-8
loopback_Bps = 1e9
[network]
mpi = "myrinet"
io = "myrinet"
[pvfs]
io_servers = 2
stripe_size = 4096
disk_write_Bps = 4e7
disk_read_Bps = 4.5e7
request_overhead_s = 1e-4
region_overhead_s = 5e-6
client_region_overhead_s = 1e-6
flow_buffer = 65536
max_outstanding = 8
request_header = 256
region_descriptor = 16
)";

inline const char* kScenario = R"(name = "small"
description = "two techniques, two block sizes"
[run]
algorithm = ["iec", "block"]
ranks = 4
platform = "tiny"
[workload]
nx = 1024
bx = [1, 4]
)";

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Output {
  int code = -1;
  std::string out;
  std::string err;
};

/// A temporary working directory with data/platforms/tiny.toml and s.toml; runs ciosim inside it with
/// CIOSIM_DATA_DIR pointing at data/.
struct Workspace {
  fs::path root;
  Workspace() {
    std::string templ = (fs::temp_directory_path() / "ciosim-cli-XXXXXX").string();
    root = ::mkdtemp(templ.data());
    fs::create_directories(root / "data/platforms");
    write("data/platforms/tiny.toml", kPlatform);
    write("s.toml", kScenario);
  }
  ~Workspace() { fs::remove_all(root); }
  void write(const std::string& rel, const std::string& text) const { std::ofstream(root / rel) << text; }
  Output run(const std::string& args) const {
    const fs::path o = root / ".stdout", e = root / ".stderr";
    const std::string cmd = "cd '" + root.string() + "' && CIOSIM_DATA_DIR='" + (root / "data").string() +
                            "' '" + CIOSIM_BINARY + "' " + args + " >'" + o.string() + "' 2>'" + e.string() +
                            "'";
    const int status = std::system(cmd.c_str());
    Output r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(o);
    r.err = slurp(e);
    fs::remove(o);
    fs::remove(e);
    return r;
  }
  /// Names in the workspace other than the fixture's own.
  std::vector<std::string> extra_entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(root)) {
      const std::string n = e.path().filename().string();
      if (n != "data" && n != "s.toml" && n != "bad.toml") out.push_back(n);
    }
    return out;
  }
};

/// The pids of the live (not zombie) processes whose parent is `parent`, from /proc.
inline std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    int ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') out.push_back(std::stoi(name));
  }
  return out;
}

/// Starts `/bin/sh -c command` as a child of this process; returns its pid.
inline pid_t start_shell(const std::string& command) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

/// True once none of `pids` runs (gone, or a zombie), waiting up to 5 s.
inline bool all_gone(const std::vector<pid_t>& pids) {
  const auto runs = [](pid_t p) {
    std::ifstream stat("/proc/" + std::to_string(p) + "/stat");
    std::string line;
    return std::getline(stat, line) && line.find(") Z") == std::string::npos;
  };
  for (int i = 0; i < 100; ++i) {
    if (std::none_of(pids.begin(), pids.end(), runs)) return true;
    ::usleep(50000);
  }
  return false;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace cli_test
