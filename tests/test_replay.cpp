// A captured application replayed call by call (config/trace_replay.hpp, algorithms/replay.hpp): a
// hand-written capture of two ranks — a header written by rank 0 alone, two collective writes of one
// interleaved view a step apart with 0.1 s of computation between them, a sync, a collective read of the
// first step — turned into steps, shapes and computation, refused where it cannot be replayed, and run by
// `ciosim run` under every technique that can serve it, each writing the application's file.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "algorithms/replay.hpp"
#include "algorithms/technique.hpp"
#include "cli_workspace.hpp"
#include "config/trace_replay.hpp"

using namespace cli_test;
using namespace ciosim;

namespace {

const char* kHead = R"({"format": "ciosim-trace", "version": 1, "ranks": 2, "hosts": ["a", "a"],
 "mpi_library": "hand-written", "program": "app"})";

// Rank 0 writes a 16-byte header alone; then each collective write covers 32 bytes, rank 0's 4-byte
// entries at even positions, rank 1's at odd ones (a view of one entry every 8 bytes).
const char* kRank0 = R"(# rank 0
open 0.000 0.001 fh=1 comm=2 path="ckpt.dat"
write_at 0.001 0.002 fh=1 offset=0 bytes=16 regions=0+16
view 0.002 0.003 fh=1 disp=16 etype=4 extent=8 runs=0+4
write_all 0.003 0.004 fh=1 bytes=16 regions=16+4x4/8
write_all 0.104 0.105 fh=1 bytes=16 regions=48+4x4/8
sync 0.105 0.106 fh=1
read_all 0.106 0.107 fh=1 bytes=16 regions=16+4x4/8
close 0.107 0.108 fh=1
)";

const char* kRank1 = R"(open 0.000 0.001 fh=1 comm=2 path="ckpt.dat"
view 0.002 0.003 fh=1 disp=16 etype=4 extent=8 runs=4+4
write_all 0.003 0.004 fh=1 bytes=16 regions=20+4x4/8
write_all 0.104 0.105 fh=1 bytes=16 regions=52+4x4/8
sync 0.105 0.106 fh=1
read_all 0.106 0.107 fh=1 bytes=16 regions=20+4x4/8
close 0.107 0.108 fh=1
)";

void write_capture(Workspace& ws, const std::string& rank0, const std::string& rank1) {
  fs::create_directories(ws.root / "cap");
  ws.write("cap/trace.json", kHead);
  ws.write("cap/rank-0.txt", rank0);
  ws.write("cap/rank-1.txt", rank1);
}

std::string refusal(const std::string& rank0, const std::string& rank1, std::int64_t es = 4) {
  Workspace ws;
  write_capture(ws, rank0, rank1);
  try {
    (void)config::replay_from_capture((ws.root / "cap").string(), 2, es);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("replay: a capture becomes collective steps of one shape, independent calls and computation",
          "[replay]") {
  Workspace ws;
  write_capture(ws, kRank0, kRank1);
  const Replay r = config::replay_from_capture((ws.root / "cap").string(), 2, 4);
  REQUIRE(r.steps.size() == 3);
  REQUIRE(r.shapes.size() == 1);  // both writes and the read: the same regions relative to their start
  CHECK(r.shapes[0].nx == 8);
  CHECK(r.shapes[0].per_rank[0].tuples == std::vector<Tuple>{{0, 1}, {2, 1}, {4, 1}, {6, 1}});
  CHECK(r.shapes[0].per_rank[1].tuples == std::vector<Tuple>{{1, 1}, {3, 1}, {5, 1}, {7, 1}});
  CHECK(r.steps[0].name == "write_all");
  CHECK(r.steps[0].position == 16);
  CHECK(r.steps[0].view_set);  // the application set its view before it
  CHECK(r.steps[1].position == 48);
  CHECK(!r.steps[1].view_set);
  CHECK((!r.steps[2].write && r.steps[2].position == 16));
  // Rank 0: open, its header, the first write, the 0.1 s between the writes, the second, sync, read, close.
  const auto& a = r.ranks[0];
  REQUIRE(a.size() == 8);
  CHECK(a[0].kind == ReplayKind::Open);
  CHECK(a[1].kind == ReplayKind::IndependentWrite);
  CHECK(a[1].runs == std::vector<Extent>{{0, 16}});
  CHECK((a[2].kind == ReplayKind::Collective && a[2].step == 0));
  CHECK(a[3].kind == ReplayKind::Compute);
  CHECK(a[3].seconds == Approx(0.1));
  CHECK((a[4].kind == ReplayKind::Collective && a[4].step == 1));
  CHECK(a[5].kind == ReplayKind::Sync);
  CHECK((a[6].kind == ReplayKind::Collective && a[6].step == 2));
  CHECK(a[7].kind == ReplayKind::Close);
  // Rank 1: no header; the 1 ms between its open and its view is computation, the view's own time is not.
  const auto& b = r.ranks[1];
  REQUIRE(b.size() == 8);
  CHECK(b[1].kind == ReplayKind::Compute);
  CHECK(b[1].seconds == Approx(0.001));
  // What the file must hold: the header and both steps (bytes 0 .. 80), read bytes laid out first.
  CHECK(replay_initial_file(r).size() == 48);
  std::vector<std::byte> file(80);
  for (std::int64_t e = 0; e < 20; ++e)
    fill_entry(e, std::span(file).subspan(static_cast<std::size_t>(e * 4), 4));
  CHECK(check_replay_file(file, r).empty());
  const std::byte kept = file[50];
  file[50] = std::byte{0x7f};
  CHECK(check_replay_file(file, r).find("at byte 50") != std::string::npos);
  file[50] = kept;
  file.pop_back();
  CHECK(check_replay_file(file, r).find("79 bytes, the application's 80") != std::string::npos);
}

TEST_CASE("replay: captures and techniques that cannot be replayed call by call are refused by name",
          "[replay]") {
  // Ranks whose collective calls differ.
  CHECK(refusal(kRank0, replaced(kRank1, "read_all", "write_all"))
            .find("rank 1's collective call 5 on ckpt.dat is write_all, rank 0's read_all") !=
        std::string::npos);
  // A collective call whose regions overlap (both ranks write bytes 20 .. 24).
  CHECK(refusal(kRank0, replaced(kRank1, "regions=52+4x4/8", "regions=48+4x4/8"))
            .find("collective call 3 (write_all) on ckpt.dat: the ranks' regions must cover bytes [48, ") !=
        std::string::npos);
  // Regions that are not whole entries, a call ciosim does not replay, a file never closed.
  CHECK(refusal(kRank0, kRank1, 8).find("use an element size dividing 4") != std::string::npos);
  CHECK(refusal(replaced(kRank0, "sync 0.105 0.106 fh=1", "unsupported 0.105 0.106 call=MPI_File_iwrite_at"),
                kRank1)
            .find("rank 0 made MPI_File_iwrite_at, which ciosim cannot replay") != std::string::npos);
  CHECK(refusal(kRank0, replaced(kRank1, "close 0.107 0.108 fh=1\n", ""))
            .find("rank 1 never closes ckpt.dat") != std::string::npos);
  // Techniques: Block I/O's own layout, and IEC's equal shares per file chunk.
  Workspace ws;
  write_capture(ws, kRank0, kRank1);
  const Replay r = config::replay_from_capture((ws.root / "cap").string(), 2, 4);
  CHECK(replay_refusal(technique("block"), r).find("lays its file out rank by rank") != std::string::npos);
  CHECK(replay_refusal(technique("iec"), r)
            .find("iec has no read path, and collective call 3 (read_all of "
                  "bytes [16, 48)) reads") != std::string::npos);
  CHECK(replay_refusal(technique("two-phase"), r).empty());
}

TEST_CASE("replay: ciosim run replays the capture under every technique, each writing the application's file",
          "[replay][cli]") {
  Workspace ws;
  write_capture(ws, kRank0, kRank1);
  ws.write("r.toml", R"(name = "replay"
[run]
algorithm = ["two-phase", "list-io", "independent", "view-based", "gathered"]
ranks = 2
platform = "tiny"
[workload]
kind = "trace"
file = "cap"
)");
  const Output o = ws.run("run r.toml -q --out out");
  INFO(o.err);
  REQUIRE(o.code == 0);
  const nlohmann::json j = nlohmann::json::parse(slurp(ws.root / "out/results.json"));
  REQUIRE(j.at("runs").size() == 5);
  for (const auto& run : j.at("runs")) {
    INFO(run.at("algorithm").get<std::string>());
    CHECK(run.at("file_verified").get<bool>());
    // The application's 0.1 s of computation between its two writes is in every run.
    CHECK(run.at("sim_time_s").get<double>() > 0.1);
    std::vector<std::string> ops;
    for (const auto& op : run.at("operations")) ops.push_back(op.at("name").get<std::string>());
    CHECK(ops == std::vector<std::string>{"open", "write_all", "write_all", "sync", "read_all", "close"});
    CHECK(run.at("calls").at("file_open") == 2);  // one open a rank: the replay's own, no other
  }
  // The same capture as one collective write of its file (union): no reads, no computation, Block I/O too.
  const Output u = ws.run(
      "run r.toml -q --set workload.replay=union --set run.algorithm=[two-phase,block] "
      "--out union");
  INFO(u.err);
  REQUIRE(u.code == 0);
  // Refused before anything runs: Block I/O replayed call by call; run.sequence beside the capture.
  const Output b = ws.run("run r.toml -q --set run.algorithm=block --out no");
  CHECK(b.code == 2);
  CHECK(b.err.find("lays its file out rank by rank") != std::string::npos);
  const Output s = ws.run("run r.toml -q --set run.sequence=\"open write close\" --out no");
  CHECK(s.code == 2);
  CHECK(s.err.find("run.sequence and a trace replayed call by call both given") != std::string::npos);
  // --dry-run estimates its work: its collective calls' on their shapes, its independent requests, its
  // stretches of computation.
  const Output d = ws.run("run r.toml --dry-run --set run.algorithm=independent");
  CHECK(d.code == 0);
  CHECK(d.out.find("work ~ ?") == std::string::npos);
  CHECK(d.out.find("work ~ ") != std::string::npos);
  // ciosim plan shows one of its collective calls (--call K): that call's shape, under the technique.
  const Output p = ws.run("plan r.toml --set run.algorithm=two-phase --call 2");
  INFO(p.err);
  CHECK(p.code == 0);
  CHECK(p.out.find("collective call 2 of 3 (write_all from byte 48; file offsets below count from there)") !=
        std::string::npos);
  const Output p4 = ws.run("plan r.toml --set run.algorithm=two-phase --call 4");
  CHECK(p4.code == 2);
  CHECK(p4.err.find("--call 4 is out of range; the capture makes 3 collective calls (valid: 1..3)") !=
        std::string::npos);
  // LAP's aggregators serve two-phase writes only: an application that reads is refused before it runs.
  const Output l = ws.run("run r.toml -q --set run.algorithm=two-phase --set hints.lap=acn --out no");
  CHECK(l.code == 2);
  CHECK(l.err.find("applies to two-phase writes only, and collective call 3 (read_all) reads") !=
        std::string::npos);
  CHECK(!fs::exists(ws.root / "no"));
}

TEST_CASE("replay: ciosim advise ranks a captured application's configurations by their whole replay",
          "[replay][cli][advise]") {
  Workspace ws;
  write_capture(ws, kRank0, kRank1);
  ws.write("r.toml", R"(name = "replay"
[run]
algorithm = "two-phase"
ranks = 2
platform = "tiny"
[workload]
kind = "trace"
file = "cap"
)");
  const Output a = ws.run("advise r.toml -q --out adv");
  INFO(a.out + a.err);
  REQUIRE(a.code == 0);
  // Those that cannot serve one of its calls are named with the call.
  CHECK(a.out.find("run.algorithm=iec: technique iec has no read path, and collective call 3 (read_all") !=
        std::string::npos);
  CHECK(a.out.find("run.algorithm=two-phase, hints.lap=acn: hints.lap = \"acn\" applies to two-phase writes "
                   "only") != std::string::npos);
  // The first configuration is the fastest of every replay advise ran, and no slower than the techniques'
  // own replays with `ciosim run` (each of them one of advise's configurations).
  const auto fastest = [&](const fs::path& results) {
    double best = 1e300;
    const nlohmann::json j = nlohmann::json::parse(slurp(results));
    REQUIRE(!j.at("runs").empty());
    for (const auto& run : j.at("runs")) {
      CHECK(run.at("file_verified").get<bool>());
      best = std::min(best, run.at("sim_time_s").get<double>());
    }
    return best;
  };
  const double advised = fastest(ws.root / "adv/results.json");
  const Output r = ws.run(
      "run r.toml -q --set run.algorithm=[two-phase,list-io,independent,view-based,gathered] "
      "--out runs");
  REQUIRE(r.code == 0);
  CHECK(advised <= fastest(ws.root / "runs/results.json"));
  char t[32];
  std::snprintf(t, sizeof t, "%.6f", advised);
  const auto first = a.out.find("\n  1  ");
  REQUIRE(first != std::string::npos);
  const std::string line = a.out.substr(first + 1, a.out.find('\n', first + 1) - first - 1);
  CHECK(line.find(t) != std::string::npos);
}
