// `ciosim plan` (the IEC memory layout per phase as text and SVG, a scenario point's two-phase plan) and
// `ciosim plot` (a results folder drawn into SVG and PNG), run as separate processes.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "algorithms/technique.hpp"
#include "algorithms/two_phase/two_phase_explain.hpp"
#include "cli_workspace.hpp"
#include "config/workload.hpp"

namespace fs = std::filesystem;
using namespace cli_test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// The lines after the first one starting with `heading`, up to the next empty line.
std::vector<std::string> section(const std::string& text, const std::string& heading) {
  const auto all = lines_of(text);
  std::vector<std::string> out;
  bool in = false;
  for (const auto& l : all) {
    if (!in) {
      in = l.rfind(heading, 0) == 0;
      continue;
    }
    if (l.empty()) break;
    out.push_back(l);
  }
  return out;
}

/// A memory row of the text view: "  P<r> |" then one right-aligned cell of width 3 per slot, "." empty.
std::string row(int r, const std::vector<int>& cells) {
  std::string s = "  P" + std::to_string(r) + " |";
  for (int c : cells) {
    const std::string v = c < 0 ? "." : std::to_string(c);
    s += std::string(3 - v.size(), ' ') + v;
  }
  return s + " |";
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

constexpr int E = -1;

}  // namespace

TEST_CASE("ciosim plan shows the paper's worked example (Nx=16, Np=4) as its tables and figures") {
  Workspace w;
  const Output r = w.run("plan --nx 16 --np 4 --bx 1");
  INFO(r.err << r.out);
  REQUIRE(r.code == 0);
  // Tables 1-4 (Singh et al., J. Supercomputing 2009): alloc_offset, partners, recv_offset, file_offset.
  const std::vector<std::vector<std::string>> tables{{"P0", "0", "P1", "4", "P2", "6", "0"},
                                                     {"P1", "2", "P0", "0", "P3", "6", "8"},
                                                     {"P2", "2", "P3", "6", "P0", "0", "4"},
                                                     {"P3", "4", "P2", "2", "P1", "0", "12"}};
  const auto summary = section(r.out, "Summary (the paper's Tables 1-4)");
  REQUIRE(summary.size() == 5);  // header + 4 ranks
  for (std::size_t i = 0; i < 4; ++i) CHECK(words(summary[i + 1]) == tables[i]);
  // Figs. 3, 5 and 6 of the conference paper: the memory after 0, 1 and 2 phases.
  const std::vector<std::vector<std::vector<int>>> figs{{{0, 4, 8, 12, E, E, E, E},
                                                         {E, E, 1, 5, 9, 13, E, E},
                                                         {E, E, 2, 6, 10, 14, E, E},
                                                         {E, E, E, E, 3, 7, 11, 15}},
                                                        {{0, 4, 8, 12, 1, 5, E, E},
                                                         {8, 12, 1, 5, 9, 13, E, E},
                                                         {E, E, 2, 6, 10, 14, 3, 7},
                                                         {E, E, 10, 14, 3, 7, 11, 15}},
                                                        {{0, 4, 8, 12, 1, 5, 2, 3},
                                                         {8, 12, 1, 5, 9, 13, 10, 11},
                                                         {4, 5, 2, 6, 10, 14, 3, 7},
                                                         {12, 13, 10, 14, 3, 7, 11, 15}}};
  const char* headings[] = {"Step 1.", "  memory after phase 1:", "  memory after phase 2:"};
  for (std::size_t f = 0; f < 3; ++f) {
    const auto grid = section(r.out, headings[f]);
    INFO(headings[f]);
    REQUIRE(grid.size() >= 5);
    for (int k = 0; k < 4; ++k)
      CHECK(grid[grid.size() - 4 + static_cast<std::size_t>(k)] ==
            row(k, figs[f][static_cast<std::size_t>(k)]));
  }
  // §3.3.1: P0 sends {2,2} (entries 8 and 12) to P1 in phase 1, {1,1},{5,1} (entries 4 and 5) to P2 in
  // phase 2.
  CHECK(contains(r.out, "  P0 -> P1: slots 2-3 (x 8 12); receives into slots 4-5\n"));
  CHECK(contains(r.out, "  P0 -> P2: slots 1, 5 (x 4 5); receives into slots 6-7\n"));
  // Fig. 7: the packed chunks and where they are written (Table 4).
  CHECK(contains(r.out, "  P0 packs slots 0, 4, 6-7 (x 0 1 2 3) -> file entries 0-3\n"));
  CHECK(contains(r.out, "  P2 packs slots 0-1, 3, 7 (x 4 5 6 7) -> file entries 4-7\n"));
  CHECK(w.run("plan --nx 16 --np 4 --bx 1").out == r.out);

  // The JSON plan stays available.
  const Output j = w.run("plan --nx 16 --np 4 --json");
  REQUIRE(j.code == 0);
  CHECK(nlohmann::json::parse(j.out)["ranks"][3]["file_offset"] == 12);
}

TEST_CASE("ciosim plan --svg draws every phase's memory, deterministically") {
  Workspace w;
  REQUIRE(w.run("plan --nx 16 --np 4 --svg a.svg").code == 0);
  REQUIRE(w.run("plan --nx 16 --np 4 --svg b.svg").code == 0);
  const std::string svg = slurp(w.root / "a.svg");
  CHECK(svg == slurp(w.root / "b.svg"));
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(contains(svg, "</svg>"));
  // A background, 3 memory states x 4 ranks x 8 slots, and 4 packed chunks of 4 entries.
  CHECK(count(svg, "<rect") == 1 + 3 * 4 * 8 + 4 * 4);
  CHECK(count(svg, "stroke=\"#b00000\"") == 2 * 4 * 2);  // 2 phases x 4 ranks x 2 entries sent
  for (const char* bad : {"plan --nx 4096 --np 4 --svg c.svg", "plan --nx 16 --np 4 --svg .",
                          "plan --nx 16 --np 4 --svg no/a.svg", "plan --np 4", "plan s.toml --nx 16",
                          "plan s.toml", "plan s.toml --point 9", "plan --nx 16 --np 4 --point 2",
                          "plan s.toml --point 1 --set run.algorithm=nope",
                          "plan s.toml --point 1 --set run.algorithm=block --svg d.svg"}) {
    const Output e = w.run(bad);
    INFO(bad << " -> " << e.err);
    CHECK(e.code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    CHECK(e.out.empty());
  }
  CHECK_FALSE(fs::exists(w.root / "c.svg"));
  CHECK_FALSE(fs::exists(w.root / "d.svg"));
}

TEST_CASE(
    "ciosim plan --svg refuses a FIFO, a device and a symbolic link before drawing, and replaces a file "
    "whole") {
  Workspace w;
  REQUIRE(::mkfifo((w.root / "fifo.svg").c_str(), 0600) == 0);  // opening it would block forever
  fs::create_symlink("elsewhere.svg", w.root / "link.svg");
  for (const std::string bad : {"fifo.svg", "/dev/null", "link.svg"}) {
    const Output e = w.run("plan --nx 16 --np 4 --svg " + bad);
    INFO(bad << " -> " << e.err);
    CHECK(e.code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    CHECK(e.err.find("--svg " + bad + " is a") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(w.root / "elsewhere.svg"));
  w.write("old.svg", "the user's picture\n");
  REQUIRE(w.run("plan --nx 16 --np 4 --svg old.svg").code == 0);
  CHECK(slurp(w.root / "old.svg").rfind("<?xml", 0) == 0);
  for (const auto& e : fs::directory_iterator(w.root))  // no staging file left behind
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
}

TEST_CASE("ciosim plan SCENARIO shows iec-parametric's plans, which are the inspector's") {
  Workspace w;
  w.write("p.toml",
          "name = \"p\"\n[run]\nalgorithm = [\"iec\", \"iec-parametric\"]\nranks = 4\nplatform = \"tiny\"\n"
          "[workload]\nkind = \"block-cyclic\"\nnx = 96\nbx = 3\n");
  const Output a = w.run("plan p.toml --point 1");
  const Output b = w.run("plan p.toml --point 2");
  INFO(a.err << b.err);
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  const auto body = [](const std::string& s) { return s.substr(s.find('\n')); };  // past the title
  CHECK(body(a.out) == body(b.out));
  CHECK(contains(b.out, "iec-parametric, 4 ranks"));
  w.write("q.toml",
          "name = \"q\"\n[run]\nalgorithm = \"iec-parametric\"\nranks = 4\nplatform = \"tiny\"\n"
          "[workload]\nkind = \"block3d\"\nnx = 8\nny = 8\nnz = 8\n");
  const Output e = w.run("plan q.toml");
  CHECK(e.code == 2);
  CHECK(contains(e.err, "needs a block-cyclic distribution"));
  CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
}

TEST_CASE("ciosim plan SCENARIO shows the aggregators, file domains and rounds two-phase computes") {
  Workspace w;
  w.write("b.toml",
          "name = \"b3\"\n[run]\nalgorithm = \"two-phase\"\nranks = 4\nplatform = \"tiny\"\n"
          "[workload]\nkind = \"block3d\"\nnx = 8\nny = 8\nnz = 8\n[hints]\ncb_buffer_size = 256\n");
  const std::string args = "plan b.toml --rounds 99";  // one point: no --point needed
  const Output r = w.run(args);
  INFO(r.err << r.out);
  REQUIRE(r.code == 0);
  ciosim::WorkloadSpec ws;
  ws.kind = "block3d";
  ws.nx = ws.ny = ws.nz = 8;
  const ciosim::Distribution d = ciosim::make_distribution(ws, 4);
  ciosim::IoHints h;
  h.cb_buffer_size = 256;
  const auto plan = ciosim::two_phase::plan_write(d, 4, h, {"node0", "node1", "node2", "node3"});
  REQUIRE(plan.aggregators.size() == 4);
  CHECK(contains(r.out, "\n  aggregators: P0 P1 P2 P3\n"));
  const auto table = section(r.out, "  The accessed range is split into 4 file domains");
  REQUIRE(table.size() == 5);
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& ag = plan.aggregators[k];
    CHECK(words(table[k + 1]) ==
          std::vector<std::string>{"P" + std::to_string(ag.rank), "node" + std::to_string(ag.rank),
                                   std::to_string(ag.domain_start), std::to_string(ag.domain_end),
                                   std::to_string(ag.data_start), std::to_string(ag.data_end),
                                   std::to_string(ag.rounds.size())});
    for (std::size_t m = 0; m < ag.rounds.size(); ++m)
      CHECK(contains(r.out, "    round " + std::to_string(m + 1) + ": bytes " +
                                std::to_string(ag.rounds[m].offset) + "-" +
                                std::to_string(ag.rounds[m].offset + ag.rounds[m].size - 1) + " from"));
  }
  CHECK(plan.aggregators[0].rounds.size() == 2);  // 512-byte domains in 256-byte windows
}

TEST_CASE("ciosim plot draws a results folder into SVG and PNG, byte-identical across runs") {
  Workspace w;
  REQUIRE(w.run("run -q s.toml --out res").code == 0);
  fs::create_directories(w.root / "again");
  const Output a = w.run("plot res");
  INFO(a.err);
  REQUIRE(a.code == 0);
  REQUIRE(w.run("plot res/results.json --out again").code == 0);
  const auto j = nlohmann::json::parse(slurp(w.root / "res/results.json"));
  std::size_t phases = 0;
  for (const auto& run : j["runs"]) phases += run["phases"].size();
  for (const char* stem : {"sweep", "phases"}) {
    INFO(stem);
    const std::string svg = slurp(w.root / "res" / (std::string(stem) + ".svg"));
    const std::string png = slurp(w.root / "res" / (std::string(stem) + ".png"));
    CHECK(svg == slurp(w.root / "again" / (std::string(stem) + ".svg")));
    CHECK(png == slurp(w.root / "again" / (std::string(stem) + ".png")));
    CHECK(png.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(contains(svg, "</svg>"));
    CHECK(contains(svg, "id=\"ciosim-legend\""));
  }
  const std::string sweep = slurp(w.root / "res/sweep.svg");
  CHECK(count(sweep, "id=\"ciosim-series-") == 2);  // iec and block against workload.bx
  CHECK(contains(sweep, ">iec<"));
  CHECK(contains(sweep, ">block<"));
  CHECK(contains(sweep, ">workload.bx<"));
  CHECK(count(slurp(w.root / "res/phases.svg"), "id=\"ciosim-phase-") == phases);  // one bar piece each
  CHECK(contains(a.out, "sweep.png"));

  // Choices: the y axis and a subset.
  const Output b =
      w.run("plot res --kind sweep --y phase:write --where run.algorithm=iec --out again --format svg");
  INFO(b.err);
  REQUIRE(b.code == 0);
  CHECK(count(slurp(w.root / "again/sweep.svg"), "id=\"ciosim-series-") == 1);

  // An operation sequence's totals on the y axis (op:KIND).
  REQUIRE(w.run("run -q s.toml --out seq --set run.algorithm=block --set 'run.sequence=open (write next)*3 "
                "close'")
              .code == 0);
  const Output o = w.run("plot seq --kind sweep --y op:write --out again --format svg");
  INFO(o.err);
  REQUIRE(o.code == 0);
  const std::string ops = slurp(w.root / "again/sweep.svg");
  CHECK(count(ops, "id=\"ciosim-series-") == 1);
  CHECK(contains(ops, "all write operations"));
  CHECK(w.run("plot seq --y op:read").code == 2);  // the sequence has no read: no such value

  for (const char* bad : {"plot nowhere", "plot data", "plot res --x workload.colour", "plot res --kind pie",
                          "plot res --where run.algorithm=romio", "plot res --out nowhere", "plot"}) {
    const Output e = w.run(bad);
    INFO(bad << " -> " << e.err);
    CHECK(e.code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    CHECK(e.err.rfind("ciosim: error: ", 0) == 0);
  }
  // A python without matplotlib: Debian's, without its site packages (-S).
  w.write("bare-python", "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
  fs::permissions(w.root / "bare-python", fs::perms::owner_all);
  ::setenv("CIOSIM_PYTHON", (w.root / "bare-python").c_str(), 1);
  const Output m = w.run("plot res");
  CHECK(m.code == 2);
  CHECK(contains(m.err, "matplotlib is not installed"));
  CHECK(std::count(m.err.begin(), m.err.end(), '\n') == 1);
  ::setenv("CIOSIM_PYTHON", (w.root / "no-python").c_str(), 1);
  const Output e = w.run("plot res");
  ::unsetenv("CIOSIM_PYTHON");
  CHECK(e.code == 2);
  CHECK(contains(e.err, "no-python"));
  CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
}

TEST_CASE("ciosim list explains every registered technique step by step") {
  Workspace w;
  const Output r = w.run("list");
  REQUIRE(r.code == 0);
  const std::string algos = r.out.substr(0, r.out.find("\nNetworks"));
  const auto& all = ciosim::techniques();
  for (std::size_t i = 0; i < all.size(); ++i) {
    INFO(all[i].name);
    const std::size_t at = algos.find("\n  " + all[i].name + " ");
    REQUIRE(at != std::string::npos);
    const std::size_t next = i + 1 < all.size() ? algos.find("\n  " + all[i + 1].name + " ") : algos.size();
    const std::string entry = algos.substr(at, next - at);
    CHECK(contains(entry, " 1. "));
    CHECK(contains(entry, " 2. "));
  }
}

TEST_CASE("ciosim plan SCENARIO shows what multiple-phase's ranks hold after each phase and write") {
  Workspace w;
  // A STEM-II array of 4 planes of 8 entries on 4 ranks (each holds 2 rows of every plane), as Fig. 3.
  w.write("m.toml",
          "name = \"m\"\n[run]\nalgorithm = \"multiple-phase\"\nranks = 4\nplatform = \"tiny\"\n"
          "[workload]\nkind = \"stem2\"\nnx = 2\nny = 4\nnz = 2\nnl = 2\nnchem = 1\n");
  const Output r = w.run("plan m.toml");
  INFO(r.err << r.out);
  REQUIRE(r.code == 0);
  // Before: every rank's rows in every plane; after phase 0 the pair's rows of half the planes; after
  // phase 1 (log2 4 = 2, all of them) one plane each, every row: one contiguous block per rank.
  CHECK(contains(r.out, "    P1   ..11....|..11....|..11....|..11....\n"));
  CHECK(contains(r.out, "    P2   ....2233|....2233|........|........\n"));
  CHECK(contains(r.out, "    P2   ........|00112233|........|........\n"));
  const auto write = section(r.out, "  rank      first byte");
  REQUIRE(write.size() == 4);
  // Rank 2 keeps plane 1 after the second phase: bytes 32..63 of the file, one region.
  CHECK(words(write[2]) == std::vector<std::string>{"P2", "32", "63", "1", "32"});
  CHECK(contains(r.out, "Every rank writes one contiguous block"));
  CHECK(w.run("plan m.toml").out == r.out);  // deterministic
  // One phase: two planes each, a region per plane.
  const Output one = w.run("plan m.toml --set run.phases=1");
  REQUIRE(one.code == 0);
  CHECK_FALSE(contains(one.out, "Phase 1 ("));
  CHECK(words(section(one.out, "  rank      first byte")[0]) ==
        std::vector<std::string>{"P0", "0", "47", "2", "32"});
  // The picture: every rank's 32 entries at each of the 3 steps (a box each, plus the page), the entries sent
  // outlined (4 per rank and phase), the same text printed beside it, and byte-identical twice.
  const Output s1 = w.run("plan m.toml --svg m1.svg");
  REQUIRE(s1.code == 0);
  CHECK(s1.out == r.out);
  REQUIRE(w.run("plan m.toml --svg m2.svg").code == 0);
  const std::string svg = slurp(w.root / "m1.svg");
  CHECK(svg == slurp(w.root / "m2.svg"));
  CHECK(count(svg, "<rect ") == 3 * 4 * 32 + 1);
  CHECK(count(svg, "stroke=\"#b00000\"") == 2 * 4 * 4);
  // What the plan cannot show is refused in one line, and no picture is written: an array too large to
  // draw, a rank count the butterfly cannot pair.
  for (const char* bad :
       {"plan m.toml --svg big.svg --set workload.ny=64", "plan m.toml --set run.ranks=3"}) {
    const Output e = w.run(bad);
    INFO(bad << ": " << e.err);
    CHECK(e.code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(w.root / "big.svg"));
}

TEST_CASE("ciosim plan SCENARIO shows the LAP assignment: intervals, benefit matrix, chosen hosts") {
  Workspace w;
  // The worked example of docs/two-phase.md: BIPS3D mesh1 on 8 hosts of one rank, load 100, AVN.
  const std::string scenario = std::string(CIOSIM_SOURCE_DIR) + "/scenarios/lap-mesh1.toml";
  const Output r = w.run("plan " + scenario + " --point 3");
  INFO(r.err << r.out);
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "hints.lap=avn"));
  CHECK(contains(r.out, "floor(N / hosts) = 5900 items each"));
  // Interval -> host 1 2 6 7 0 3 4 5, the chosen string, and the two-phase plan that follows uses it.
  CHECK(contains(r.out, "  cb_config_list = \"node1,node2,node6,node7,node0,node3,node4,node5\"\n"));
  CHECK(contains(r.out, "\n  aggregators: P1 P2 P6 P7 P0 P3 P4 P5\n"));
  // The chosen hosts keep more of each interval's data than ROMIO's default: the totals row.
  const auto choice = section(r.out, "  interval  LAP host");
  REQUIRE(choice.size() == 10);  // 8 intervals, the total, the string
  const auto total = words(choice[8]);
  REQUIRE(total.size() == 3);
  CHECK(std::stoll(total[1]) > std::stoll(total[2]));
  CHECK(w.run("plan " + scenario + " --point 3").out == r.out);  // deterministic
  // The picture: the 8 x 8 benefit matrix, one red outline per interval (the chosen host), one dot per
  // default cell, and the same totals and cb_config_list as the text.
  REQUIRE(w.run("plan " + scenario + " --point 3 --svg lap.svg").code == 0);
  const std::string svg = slurp(w.root / "lap.svg");
  CHECK(count(svg, "<rect ") == 1 + 8 * 8);
  CHECK(count(svg, "stroke=\"#b00000\"") == 8);
  CHECK(count(svg, "<circle ") == 8);
  CHECK(contains(svg, "total benefit: LAP " + total[1] + ", default " + total[2]));
  CHECK(contains(svg, "node1,node2,node6,node7,node0,node3,node4,node5"));
}

TEST_CASE("ciosim plan SCENARIO shows view-based's shipped views, block owners and pools, as the run does") {
  Workspace w;
  // block3d 32^3 4-byte entries (128 KiB) on 4 ranks, blocks of 4 KiB: 32 blocks, 8 per aggregator.
  const std::string toml =
      "name = \"v\"\n[run]\nalgorithm = \"view-based\"\nranks = 4\nplatform = \"tiny\"\n"
      "sequence = \"open write close\"\n[workload]\nkind = \"block3d\"\nnx = 32\nny = 32\nnz = 32\n"
      "[hints]\nvb_buffer_size = 4096\n";
  w.write("v.toml", toml);
  const Output r = w.run("plan v.toml");
  INFO(r.err << r.out);
  REQUIRE(r.code == 0);
  CHECK(contains(r.out, "is cut into 32 blocks of 4096 bytes"));
  // The intervals and data messages each rank sends, summed, are the receives the simulated write makes
  // beside the open's view messages (one per rank and aggregator but itself), and the data messages the
  // Waitanys that serve them as they arrive.
  const auto senders = section(r.out, "  rank    blocks  intervals  messages");
  REQUIRE(senders.size() == 4);
  long long intervals = 0, messages = 0;
  for (const auto& l : senders) {
    intervals += std::stoll(words(l)[2]);
    messages += std::stoll(words(l)[3]);
  }
  CHECK(messages > 0);
  REQUIRE(w.run("run v.toml -q --out out").code == 0);
  const auto res = nlohmann::json::parse(slurp(w.root / "out/results.json"));
  const long long irecvs = res["runs"][0]["calls"]["irecv"];
  const long long waitanys = res["runs"][0]["calls"]["waitany"];
  CHECK(intervals + messages + 4 * 3 == irecvs);
  CHECK(messages == waitanys);
  // The pool: 16 buffers by default hold an aggregator's 8 blocks; with 2 buffers, 6 are written back during
  // the call and 2 wait for the close.
  const auto pools = section(r.out, "  aggregator   messages in");
  REQUIRE(pools.size() == 4);
  CHECK(words(pools[0])[4] == "0");
  const Output small = w.run("plan v.toml --set hints.vb_pool_size=8192");
  REQUIRE(small.code == 0);
  const auto tight = section(small.out, "  aggregator   messages in");
  REQUIRE(tight.size() == 4);
  CHECK(words(tight[0]).size() == 6);
  CHECK(words(tight[0])[3] == "8");
  CHECK(words(tight[0])[4] == "6");
  CHECK(words(tight[0])[5] == "2");
  // ... as the simulated run does: its write phase writes the evicted blocks, its flush the dirty ones.
  long long back = 0, dirty = 0;
  for (const auto& l : tight) {
    back += std::stoll(words(l)[4]);
    dirty += std::stoll(words(l)[5]);
  }
  REQUIRE(w.run("run v.toml -q --out tight --set hints.vb_pool_size=8192").code == 0);
  const auto phases = nlohmann::json::parse(slurp(w.root / "tight/results.json"))["runs"][0]["phases"];
  for (const auto& ph : phases) {
    if (ph["name"] == "write") CHECK(ph["calls"]["file_write"].get<long long>() == back);
    if (ph["name"] == "flush") CHECK(ph["calls"]["file_write"].get<long long>() == dirty);
  }
  CHECK(w.run("plan v.toml").out == r.out);  // deterministic
  // The picture of the same plan: 32 blocks, one row of owners, 4 rank rows, one row of pools; a red outline
  // for every (rank, block) piece that travels: each rank's view touches 16 blocks (the text's "blocks"),
  // 4 of them its own; grey for each block the tight pool writes back during the call.
  REQUIRE(w.run("plan v.toml --set hints.vb_pool_size=8192 --svg v.svg").code == 0);
  const std::string svg = slurp(w.root / "v.svg");
  REQUIRE(w.run("plan v.toml --set hints.vb_pool_size=8192 --svg v2.svg").code == 0);
  CHECK(svg == slurp(w.root / "v2.svg"));
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(count(svg, "<rect ") == 1 + 32 * (1 + 4 + 1));
  long long touched = 0;
  for (const auto& l : senders) touched += std::stoll(words(l)[1]);
  CHECK(touched == 4 * 16);
  CHECK(count(svg, "stroke=\"#b00000\"") == static_cast<std::size_t>(touched - 4 * 4));
  CHECK(count(svg, "fill=\"#d0d0d0\"") == static_cast<std::size_t>(back));
  CHECK(w.run("plan v.toml --svg big.svg --set hints.vb_buffer_size=64").code == 2);  // 2048 blocks
  CHECK_FALSE(fs::exists(w.root / "big.svg"));
}

TEST_CASE("ciosim plot marks a partial sweep and skipped points in its titles") {
  Workspace w;
  REQUIRE(w.run("run -q s.toml --out res").code == 0);
  // As a stopped sweep leaves it (app/sweep_folder.hpp): "partial", points done and total.
  auto j = nlohmann::ordered_json::parse(slurp(w.root / "res/results.json"));
  j["runs"].erase(j["runs"].begin() + 2, j["runs"].end());
  nlohmann::ordered_json marked;
  marked["partial"] = true;
  marked["points_done"] = 2;
  marked["points_total"] = 4;
  for (auto& [k, v] : j.items()) marked[k] = v;
  w.write("res/results.json", marked.dump(2));
  const Output p = w.run("plot res --format svg --kind phases");
  INFO(p.err);
  REQUIRE(p.code == 0);
  CHECK(contains(p.err, "partial: 2 of 4 points: the figures show the points that are there"));
  CHECK(contains(slurp(w.root / "res/phases.svg"), "[partial: 2 of 4 points]"));
  // --keep-going's skipped points.
  REQUIRE(w.run("run -q --keep-going s.toml --set run.ranks=3 --set workload.nx=3072 --out skip").code == 0);
  const Output k = w.run("plot skip --format svg --kind phases");
  INFO(k.err);
  REQUIRE(k.code == 0);
  CHECK(contains(slurp(w.root / "skip/phases.svg"), "2 points skipped]"));
}

TEST_CASE("ciosim plot --timeline draws a point's run as a Gantt chart") {
  Workspace w;
  REQUIRE(w.run("run -q s.toml --out res --timeline chrome").code == 0);
  const Output a = w.run("plot res --timeline --point 2");
  INFO(a.err);
  REQUIRE(a.code == 0);
  CHECK(contains(a.out, "gantt-2.svg"));
  const std::string svg = slurp(w.root / "res/gantt-2.svg");
  const std::string png = slurp(w.root / "res/gantt-2.png");
  CHECK(png.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
  // One bar per phase span of every rank, a lane label per rank and server, the legend, the point.
  const auto trace = nlohmann::json::parse(slurp(w.root / "res/timeline-2.json"));
  std::size_t spans = 0;
  std::set<std::string> names;
  for (const auto& e : trace["traceEvents"])
    if (e.value("cat", "") == "phase") {
      ++spans;
      names.insert(e["name"].get<std::string>());
    }
  REQUIRE(spans > 0);
  CHECK(count(svg, "id=\"ciosim-phase-") == spans);
  for (const std::string& n : names) CHECK(contains(svg, ">" + n + "<"));
  for (const char* lane : {">rank 0<", ">rank 3<", ">iod0 disk<"}) CHECK(contains(svg, lane));
  CHECK(contains(svg, "id=\"ciosim-legend\""));
  CHECK(contains(svg, trace["otherData"]["point"].get<std::string>()));
  // Byte-identical when drawn again.
  fs::create_directories(w.root / "again");
  REQUIRE(w.run("plot res --timeline --point 2 --out again").code == 0);
  CHECK(slurp(w.root / "again/gantt-2.svg") == svg);
  CHECK(slurp(w.root / "again/gantt-2.png") == png);
  // A point out of range, and results without timelines: one line each, exit 2.
  REQUIRE(w.run("run -q s.toml --out bare").code == 0);
  for (const char* bad : {"plot res --timeline --point 99", "plot bare --timeline"}) {
    const Output e = w.run(bad);
    INFO(bad << " -> " << e.err);
    CHECK(e.code == 2);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
  }
  CHECK(contains(w.run("plot bare --timeline").err, "--timeline chrome"));
}

TEST_CASE("ciosim plan SCENARIO shows the baselines' calls, as many as their runs make") {
  // Blocks of 3 entries over 3 ranks (999 entries), chunks that cut pieces (cb_buffer_size 100 bytes),
  // List I/O batches of 7: every count the plan states is the simulated run's.
  Workspace w;
  w.write("b.toml",
          "name = \"bl\"\n[run]\nalgorithm = [\"block\", \"independent\", \"list-io\", \"gathered\", "
          "\"sequential\"]\nranks = 3\nplatform = \"tiny\"\n[workload]\nnx = 999\nbx = 3\n"
          "[hints]\ncb_buffer_size = 100\nlistio_batch = 7\n");
  const Output run = w.run("run b.toml -q --out r");
  INFO(run.err);
  REQUIRE(run.code == 0);
  const auto results = nlohmann::json::parse(slurp(w.root / "r/results.json")).at("runs");
  REQUIRE(results.size() == 5);
  const auto calls = [&](int point, const std::string& kind) {
    return results.at(static_cast<std::size_t>(point - 1)).at("calls").value(kind, std::int64_t{0});
  };
  const auto plan = [&](int point) {
    const Output r = w.run("plan b.toml --point " + std::to_string(point));
    INFO(r.err);
    CHECK(r.code == 0);
    return r.out;
  };
  const auto last = [](const std::string& text) { return lines_of(text).back(); };
  CHECK(last(plan(1)) == std::to_string(calls(1, "file_write")) + " write_at calls in all, one per rank.");
  CHECK(calls(1, "file_write") == 3);
  CHECK(last(plan(2)) == std::to_string(calls(2, "file_write")) + " write_at calls in all.");
  CHECK(last(plan(3)) == std::to_string(calls(3, "file_list_write")) + " write_list calls in all.");
  CHECK(calls(3, "file_list_write") < calls(2, "file_write"));  // batches of 7 pieces
  CHECK(last(plan(4)) == std::to_string(calls(4, "file_write")) + " write_at calls, all by rank 0; " +
                             std::to_string(calls(4, "send")) + " offset/length lists and " +
                             std::to_string(calls(4, "isend")) + " data messages to rank 0.");
  CHECK(calls(4, "file_write") == 40);  // 3996 bytes in chunks of 100
  CHECK(last(plan(5)) == "1 write_at call, by rank 0.");
  CHECK(calls(5, "file_write") == 1);
  // Block I/O's file bytes are rank-major: rank 1's start where rank 0's 333 entries end.
  CHECK(contains(plan(1), "\n  1              333           1332  [1332, 2664)\n"));
  // --svg is for the pictured plans only.
  const Output svg = w.run("plan b.toml --point 2 --svg p.svg");
  CHECK(svg.code == 2);
  CHECK(contains(svg.err, "independent's plan is text"));
  CHECK_FALSE(fs::exists(w.root / "p.svg"));
}

TEST_CASE("ciosim plot's phase bars stay legible: shares beside a wide span, 40 runs a figure") {
  Workspace w;
  // Independent I/O at Bx = 1 (1,024 write calls a rank) beside Block I/O (one): totals far apart, so a
  // second panel draws each run's phases as shares of its own time.
  REQUIRE(
      w.run("run -q s.toml --out wide --set 'run.algorithm=[block,independent]' --set workload.bx=1").code ==
      0);
  const auto j = nlohmann::json::parse(slurp(w.root / "wide/results.json"));
  REQUIRE(j["runs"].size() == 2);
  CHECK(j["runs"][1]["sim_time_s"].get<double>() > 10 * j["runs"][0]["sim_time_s"].get<double>());
  std::size_t phases = 0;
  for (const auto& run : j["runs"]) phases += run["phases"].size();
  const Output a = w.run("plot wide --kind phases --format svg");
  INFO(a.err);
  REQUIRE(a.code == 0);
  const std::string svg = slurp(w.root / "wide/phases.svg");
  CHECK(count(svg, "id=\"ciosim-phase-") == phases);
  CHECK(count(svg, "id=\"ciosim-share-") == phases);
  CHECK(contains(svg, "each run's phases as shares of its own time"));
  // The quickstart-like sweep's totals are close: one panel.
  REQUIRE(w.run("run -q s.toml --out close").code == 0);
  REQUIRE(w.run("plot close --kind phases --format svg").code == 0);
  CHECK(count(slurp(w.root / "close/phases.svg"), "id=\"ciosim-share-") == 0);
  // 45 runs: two figures, 40 and 5 runs, titled with the runs they hold.
  REQUIRE(w.run("run -q s.toml --out many --set run.algorithm=block --set run.ranks=1 "
                "--set 'workload.nx=[45,90,135,180,225,270,315,360,405]' --set 'workload.bx=[1,3,5,9,15]'")
              .code == 0);
  const Output m = w.run("plot many --kind phases --format svg");
  INFO(m.err);
  REQUIRE(m.code == 0);
  CHECK(contains(m.out, "many/phases-1.svg"));
  CHECK(contains(m.out, "many/phases-2.svg"));
  CHECK_FALSE(fs::exists(w.root / "many/phases.svg"));
  CHECK(contains(slurp(w.root / "many/phases-1.svg"), "(runs 1-40 of 45)"));
  CHECK(contains(slurp(w.root / "many/phases-2.svg"), "(runs 41-45 of 45)"));
  CHECK(count(slurp(w.root / "many/phases-2.svg"), "id=\"ciosim-phase-4-") > 0);
  CHECK(count(slurp(w.root / "many/phases-2.svg"), "id=\"ciosim-phase-5-") == 0);
}
