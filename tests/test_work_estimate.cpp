// The work estimate (config/work_estimate.hpp): what makes a point long is counted (view-based's blocks of
// a tiny hints.vb_buffer_size, independent I/O's requests, a sequence's calls), the knob that shortens it is
// named, and `run` prints it with --dry-run and refuses a point past --max-work before anything runs.
#include <catch2/catch.hpp>
#include <string>

#include "cli_workspace.hpp"
#include "config/work_estimate.hpp"

using namespace ciosim;
using namespace ciosim::config;

namespace {

RunSpec point(const std::string& algorithm, std::int64_t nx, std::int64_t bx) {
  RunSpec r;
  r.algorithm = algorithm;
  r.ranks = 4;
  r.workload.nx = nx;
  r.workload.bx = bx;
  r.platform.cores_per_node = 1;
  return r;
}

double events(const RunSpec& r) {
  return estimate_work(r, workload_size(r.workload, r.ranks)).events;
}

}  // namespace

TEST_CASE("work estimate: what makes a point long is counted, and the knob that shortens it named",
          "[work]") {
  // View-based I/O with 1-byte blocks on 1 MiB: a block a byte (measured: 25 s on the developers' VM).
  RunSpec vb = point("view-based", 262144, 1);
  vb.hints.vb_buffer_size = 1;
  const WorkEstimate tiny = estimate_work(vb, workload_size(vb.workload, vb.ranks));
  CHECK(tiny.events >= 1048576);
  CHECK(tiny.detail.find("blocks of hints.vb_buffer_size") != std::string::npos);
  CHECK(tiny.knob == "raise hints.vb_buffer_size");
  vb.hints.vb_buffer_size = 4 << 20;
  CHECK(events(vb) < tiny.events / 100);
  // Independent I/O: a request a piece, so Bx = 1 is 64 times the work of Bx = 64.
  CHECK(events(point("independent", 1 << 20, 1)) ==
        Approx(64 * events(point("independent", 1 << 20, 64))).epsilon(0.05));
  // Block I/O writes each rank's buffer whole: its work does not grow with the pieces.
  CHECK(events(point("block", 1 << 20, 1)) == events(point("block", 1 << 20, 64)));
  // A sequence repeats the calls: 40 writes are 40 times one.
  RunSpec seq = point("two-phase", 1 << 20, 1);
  const double once = events(seq);
  seq.sequence = "open (write next)*40 close";
  CHECK(events(seq) == Approx(40 * once));
  // A trace whose capture cannot be read is not estimated (it is refused with its reason elsewhere);
  // tests/test_replay.cpp estimates a readable one.
  RunSpec trace = point("two-phase", 0, 1);
  trace.workload.kind = "trace";
  CHECK(events(trace) == 0);
  // The refusal names the estimate, what dominates, the bound and what to change; 0 is no bound.
  CHECK(work_refusal(tiny, 1e5) == "its estimated work, " + tiny.detail +
                                       ", exceeds --max-work 1e+05; raise hints.vb_buffer_size, or raise "
                                       "--max-work");
  CHECK(work_refusal(tiny, 0).empty());
  CHECK(work_refusal(tiny, 1e9).empty());
}

TEST_CASE("work estimate: run --dry-run prints it, --max-work refuses before anything runs", "[work][cli]") {
  cli_test::Workspace ws;
  const cli_test::Output d = ws.run("run s.toml --dry-run");
  REQUIRE(d.code == 0);
  CHECK(d.out.find("work ~ ") != std::string::npos);
  const cli_test::Output r = ws.run(
      "run s.toml -q --out no --max-work 1e3 --set run.algorithm=view-based --set hints.vb_buffer_size=1");
  CHECK(r.code == 2);
  CHECK(r.err.find("exceeds --max-work 1e+03; raise hints.vb_buffer_size, or raise --max-work") !=
        std::string::npos);
  CHECK(!cli_test::fs::exists(ws.root / "no"));
  // The default bound (1e9 events) refuses a gigabyte written through 1-byte blocks; --max-work 0 lifts it
  // (checked with --dry-run only).
  const cli_test::Output g = ws.run(
      "run s.toml --dry-run --set run.algorithm=view-based --set hints.vb_buffer_size=1 --set "
      "workload.nx=268435456");
  CHECK(g.code == 2);
  CHECK(g.err.find("exceeds --max-work 1e+09") != std::string::npos);
  CHECK(
      ws.run("run s.toml --dry-run --max-work 0 --set run.algorithm=view-based --set hints.vb_buffer_size=1 "
             "--set workload.nx=268435456")
          .code == 0);
  const cli_test::Output bad = ws.run("run s.toml --dry-run --max-work -3");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("--max-work: must be a number of events >= 0") != std::string::npos);
}

TEST_CASE("work estimate: with -j the longest points start first, and the results are those of -j 1",
          "[work][cli][sweep]") {
  cli_test::Workspace ws;
  const std::string sweep = "run s.toml --set run.algorithm=[block,independent] --set workload.bx=[64,1]";
  const cli_test::Output one = ws.run(sweep + " -q --out one");
  REQUIRE(one.code == 0);
  const cli_test::Output two = ws.run(sweep + " -j 2 --out two");
  REQUIRE(two.code == 0);
  // Independent I/O at Bx = 1 (a request a piece: the most events) is point 4 of 4 and starts first.
  const auto first = two.err.find("ciosim: [");
  REQUIRE(first != std::string::npos);
  CHECK(two.err.substr(first, two.err.find('\n', first) - first) ==
        "ciosim: [4/4] independent  run.algorithm=independent, workload.bx=1");
  for (const char* f : {"results.json", "results.csv", "phases.csv"})
    CHECK(cli_test::slurp(ws.root / "one" / f) == cli_test::slurp(ws.root / "two" / f));
}
