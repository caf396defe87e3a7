#include "app/machine.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace ciosim::app {
namespace {

/// The first value of `key` in a "key : value" file such as /proc/cpuinfo.
std::string proc_value(const char* file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

}  // namespace

std::string machine_description() {
  const unsigned cores = std::thread::hardware_concurrency();
  std::string cpu = proc_value("/proc/cpuinfo", "model name");
  if (cpu.empty()) cpu = "unknown CPU";
  std::string mem = proc_value("/proc/meminfo", "MemTotal");
  std::ostringstream out;
  out << cores << " x " << cpu;
  if (!mem.empty()) {
    const double kib = std::atof(mem.c_str());
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", kib / 1048576);
    out << ", " << buf << " GiB";
  }
  struct utsname u {};
  if (::uname(&u) == 0) out << ", Linux " << u.release;
  return out.str();
}

std::string machine_hardware(const std::string& description) {
  const auto linux_at = description.find(", Linux ");
  return linux_at == std::string::npos ? description : description.substr(0, linux_at);
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double one = -1;
  if (!(in >> one)) return -1;
  return one;
}

std::string load_note(double before, double after, const std::string& during) {
  const unsigned cores = std::thread::hardware_concurrency();
  if (before < 0 || after < 0) return "load: /proc/loadavg could not be read";
  char buf[240];
  std::snprintf(
      buf, sizeof buf, "load average (1 min) %.2f before and %.2f after %s, on %u hardware threads%s", before,
      after, during.c_str(), cores,
      std::max(before, after) > 0.5 * cores ? ": the machine was busy, measured times include other work"
                                            : "");
  return buf;
}

}  // namespace ciosim::app
