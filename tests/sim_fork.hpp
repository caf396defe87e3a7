// Runs sim::simulate in a forked child (SimGrid's engine can be created once per process;
// docs/architecture.md), so that one TEST_CASE can compare many simulations. The child exports the
// simulated file to a temporary path and reports through a pipe; the parent reads the file back.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/run_spec.hpp"
#include "sim/simulate.hpp"

namespace ciosim::test {

struct Forked {
  bool ok = false;
  std::string error;
  bool verified = false;
  double sim_time_s = 0;
  std::vector<std::byte> file;                ///< the simulated file after the run
  std::map<std::string, std::int64_t> calls;  ///< MPI and file calls summed over ranks (RunResult::calls)
  bool elided = false;                        ///< the run's payloads were elided (RunResult::elided)
  std::int64_t bytes_network = 0;
};

inline Forked simulate_forked(RunSpec spec) {
  char path[] = "/tmp/ciosim-test-XXXXXX";
  const int tmp = ::mkstemp(path);
  if (tmp < 0) return Forked{false, "mkstemp failed", false, 0, {}, {}, false, 0};
  ::close(tmp);
  if (spec.payload != PayloadChoice::Elided) spec.export_file = path;  // an elided file has no bytes
  int fds[2];
  if (::pipe(fds) != 0) return Forked{false, "pipe failed", false, 0, {}, {}, false, 0};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    nlohmann::json j;
    try {
      const RunResult r = sim::simulate(spec);
      j = {{"ok", true},       {"verified", r.file_verified}, {"sim_time_s", r.sim_time_s},
           {"calls", r.calls}, {"elided", r.elided},          {"bytes_network", r.bytes_network}};
    } catch (const std::exception& e) {
      j = {{"ok", false}, {"error", e.what()}};
    }
    const std::string text = j.dump();
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t w = ::write(fds[1], text.data() + done, text.size() - done);
      if (w <= 0) break;
      done += static_cast<std::size_t>(w);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t got; (got = ::read(fds[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(got));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  Forked f;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    f.ok = j.at("ok").get<bool>();
    if (f.ok) {
      f.verified = j.at("verified").get<bool>();
      f.sim_time_s = j.at("sim_time_s").get<double>();
      f.calls = j.at("calls").get<std::map<std::string, std::int64_t>>();
      f.elided = j.at("elided").get<bool>();
      f.bytes_network = j.at("bytes_network").get<std::int64_t>();
    } else {
      f.error = j.at("error").get<std::string>();
    }
  } catch (const std::exception&) {
    f.error = "the child reported nothing (status " + std::to_string(status) + ")";
  }
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char c : bytes) f.file.push_back(static_cast<std::byte>(c));
  std::remove(path);
  return f;
}

}  // namespace ciosim::test
