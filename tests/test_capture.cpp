// The capture of an application's MPI-IO calls (libciosim-capture.so, validate/capture/capture.cpp) and the
// trace format's reader (config/capture_trace.hpp): a real MPI program of ours (tests/mpi/checkpoint.cpp:
// a subarray checkpoint on a 2 x 2 grid of ranks) run under mpiexec with the library preloaded, its trace
// read back and every data call's file regions compared with the ones the checkpoint's layout gives.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "config/capture_trace.hpp"
#include "tests/mpi_job.hpp"

using namespace ciosim::config;
using ciosim::testing::run_output;
#ifdef CIOSIM_MPIEXEC_PATH
using ciosim::testing::launch;
#endif
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// A fresh folder for a capture, removed at the end.
struct Folder {
  fs::path root;
  Folder() {
    std::string t = (fs::temp_directory_path() / "ciosim-capture-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    root = t;
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

const CapturedCall* find_call(const std::vector<CapturedCall>& calls, const std::string& kind) {
  for (const auto& c : calls)
    if (c.kind == kind) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("capture: REGIONS text keeps strided runs as one token and reads back", "[capture]") {
  const std::vector<ByteRun> rows = {{64, 40}, {144, 40}, {224, 40}, {400, 8}, {408, 8}};
  const std::string text = format_regions(rows);
  CHECK(text == "64+40x3/80 400+16");  // the last two continue each other: one run
  const std::vector<ByteRun> back = parse_regions(text);
  CHECK(back == std::vector<ByteRun>{{64, 40}, {144, 40}, {224, 40}, {400, 16}});
  for (const char* bad : {"12", "1+0", "1+2x0/4", "1+4x2/2", "1+2x3", "a+1", "-1+2"})
    CHECK_THROWS_AS(parse_regions(bad), std::invalid_argument);
}

#ifdef CIOSIM_CAPTURE_LIBRARY
TEST_CASE("capture: a subarray checkpoint's calls and regions, recorded under real MPI", "[capture][mpi]") {
  Folder f;
  const fs::path cap = f.root / "cap";
  int code = -1;
  // The ranks get the preload, not mpiexec; a sanitized build's library needs its runtime's link order
  // check relaxed (the program links the runtime, the preload comes first).
  std::string cmd = launch(4, {{"LD_PRELOAD", CIOSIM_CAPTURE_LIBRARY},
                               {"CIOSIM_CAPTURE_DIR", cap.string()},
                               {"ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=0"}});
  constexpr int kRows = 3, kCols = 5;  // each rank's block of doubles; a 2 x 2 grid: 6 x 10 in all
  cmd += std::string(CIOSIM_CAPTURE_PROGRAM) + " " + (f.root / "ckpt.dat").string() + " " +
         std::to_string(kRows) + " " + std::to_string(kCols) + " iwrite";
  const std::string out = run_output(cmd, &code);
  INFO(cmd << "\n" << out);
  REQUIRE(code == 0);

  const CapturedTrace t = read_capture(cap);
  CHECK(t.version == 1);
  REQUIRE(t.ranks == 4);
  CHECK(t.hosts.size() == 4);
  CHECK(t.program.find("ciosim_capture_checkpoint") != std::string::npos);
  for (int r = 0; r < 4; ++r) {
    INFO("rank " << r);
    const auto& calls = t.calls[static_cast<std::size_t>(r)];
    std::vector<std::string> kinds;
    for (const auto& c : calls) kinds.push_back(c.kind);
    std::vector<std::string> want = {"open",        "view",        "write_all", "sync",
                                     "read_at_all", "unsupported", "close"};
    if (r == 0) want.insert(want.begin() + 1, "write_at");
    CHECK(kinds == want);
    // Times: each call ends after it starts, and after the previous one.
    for (std::size_t i = 1; i < calls.size(); ++i) CHECK(calls[i].start >= calls[i - 1].end);
    // The block of rank (pr, pc): kRows rows of kCols doubles, one row of the 10-column array apart.
    const int pr = r / 2, pc = r % 2;
    std::vector<ByteRun> rows;
    for (int i = 0; i < kRows; ++i)
      rows.push_back({64 + ((pr * kRows + i) * 2 * kCols + pc * kCols) * 8, kCols * 8});
    const CapturedCall* w = find_call(calls, "write_all");
    REQUIRE(w != nullptr);
    CHECK(w->bytes == kRows * kCols * 8);
    CHECK(w->regions == rows);
    const CapturedCall* rd = find_call(calls, "read_at_all");
    REQUIRE(rd != nullptr);
    CHECK(rd->regions == rows);
    const CapturedCall* v = find_call(calls, "view");
    REQUIRE(v != nullptr);
    CHECK(v->disp == 64);
    CHECK(v->etype == 8);
    CHECK(v->extent == 6 * 10 * 8);
    CHECK(find_call(calls, "unsupported")->call == "MPI_File_iwrite_at");
    CHECK(find_call(calls, "open")->path == (f.root / "ckpt.dat").string());
  }
  const CapturedCall* h = find_call(t.calls[0], "write_at");
  REQUIRE(h != nullptr);
  CHECK(h->regions == std::vector<ByteRun>{{0, 64}});
}

TEST_CASE("replay: a captured checkpoint's file written by every technique that can serve it",
          "[capture][mpi][replay]") {
  Folder f;
  int code = -1;
  const std::string ciosim =
      std::string("ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 ") + CIOSIM_BINARY;
  for (const char* extra : {"", " iwrite"}) {
    const std::string out = run_output(
        ciosim + " capture --out " + (f.root / (*extra ? "cap-iwrite" : "cap")).string() + " -- " +
            launch(4) + CIOSIM_CAPTURE_PROGRAM + " " + (f.root / "ckpt.dat").string() + " 4 6" + extra,
        &code);
    INFO(out);
    REQUIRE(code == 0);
  }
  write_file(f.root / "s.toml", R"(name = "replay"
[run]
algorithm = ["two-phase", "list-io", "independent", "view-based", "gathered"]
ranks = 4
platform = "quickstart"
[workload]
kind = "trace"
file = "cap"
element_size = 8
)");
  // Every point writes the file and checks it byte for byte (64 header bytes + a 8 x 12 array of doubles),
  // and every read: replayed call by call (the default), and as one collective write of its file, which
  // Block I/O can write too (in its own layout).
  const auto verified_points = [&](const std::string& sets, const std::string& dir) {
    const std::string out = run_output(
        ciosim + " run -q " + (f.root / "s.toml").string() + sets + " --out " + (f.root / dir).string(),
        &code);
    INFO(out);
    REQUIRE(code == 0);
    std::ifstream in(f.root / dir / "results.csv");
    std::string header, line;
    std::getline(in, header);
    int points = 0;
    while (std::getline(in, line)) ++points;
    std::ifstream j(f.root / dir / "results.json");
    std::stringstream text;
    text << j.rdbuf();
    const std::string json = text.str();
    int verified = 0;
    for (std::size_t at = json.find("\"file_verified\": true"); at != std::string::npos;
         at = json.find("\"file_verified\": true", at + 1))
      ++verified;
    CHECK(json.find("\"file_verified\": false") == std::string::npos);
    return verified == points ? points : -1;
  };
  CHECK(verified_points("", "calls") == 5);
  // ciosim advise on the captured program: its configurations ranked by their whole replay, those that
  // cannot serve one of its calls named with the call (IEC: its shares).
  const std::string advice = run_output(
      ciosim + " advise -q " + (f.root / "s.toml").string() + " --out " + (f.root / "adv").string(), &code);
  INFO(advice);
  CHECK(code == 0);
  CHECK(advice.find("\n  1  ") != std::string::npos);
  CHECK(advice.find("run.algorithm=iec: technique iec cannot serve collective call 1 (write_all") !=
        std::string::npos);
  CHECK(verified_points(" --set workload.replay=union --set "
                        "run.algorithm=[two-phase,list-io,independent,view-based,gathered,block]",
                        "union") == 6);
  // A capture with a write ciosim cannot replay, and the wrong rank count, are refused by name.
  CHECK(run_output(ciosim + " run -q " + (f.root / "s.toml").string() + " --set workload.file=" +
                       (f.root / "cap-iwrite").string() + " --out " + (f.root / "no").string(),
                   &code)
            .find("MPI_File_iwrite_at") != std::string::npos);
  CHECK(code == 2);
  CHECK(run_output(ciosim + " run -q " + (f.root / "s.toml").string() + " --set run.ranks=2 --out " +
                       (f.root / "no").string(),
                   &code)
            .find("has 4 ranks but run.ranks = 2") != std::string::npos);
  CHECK(code == 2);
}

TEST_CASE("replay: the captured twins of the tile, btio and mesh workloads make the workloads' calls",
          "[capture][mpi][replay]") {
  // tests/mpi/tile.cpp, btio.cpp and mesh.cpp make the calls MPI-Tile-IO, NPB BT-IO and the BIPS3D kernel
  // make (a subarray view and one write_all; a struct of subarray cells, write_at_all of 4 time steps,
  // close, reopen, read_at_all of each; an unstructured MPI_Type_indexed view of a partitioned mesh).
  // Captured on 4 ranks and replayed call by call, each technique must make the same calls, kind by kind,
  // as the `tile` workload, the `btio` workload's operation sequence and the `mesh` workload, and leave the
  // same (verified) file.
  Folder f;
  int code = -1;
  const std::string ciosim =
      std::string("ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 ") + CIOSIM_BINARY;
  struct Twin {
    std::string program, args, run, workload;  // run: keys of [run] beside the five techniques
    std::string element_size = "8";            // the program's element: doubles, or the mesh's floats
  };
  const Twin twins[] = {
      {CIOSIM_CAPTURE_TILE, "2 2 6 5 8", "",
       "kind = \"tile\"\ntiles_x = 2\ntiles_y = 2\ntile_x = 6\ntile_y = 5\nheader_bytes = 64\n"},
      {CIOSIM_CAPTURE_BTIO, "12 4", "sequence = \"open (write next)*4 close open (read next)*4 close\"\n",
       "kind = \"btio\"\nclass = \"S\"\n"},
      {CIOSIM_CAPTURE_MESH, std::string(CIOSIM_SOURCE_DIR) + "/scenarios/data/mesh-small-4.part 8", "",
       "kind = \"mesh\"\nnx = 60\nload = 8\npartition = \"" + std::string(CIOSIM_SOURCE_DIR) +
           "/scenarios/data/mesh-small-4.part\"\n",
       "4"},
  };
  const auto calls_of = [&](const std::string& scenario, const std::string& dir) {
    write_file(f.root / (dir + ".toml"), scenario);
    const std::string out = run_output(
        ciosim + " run -q " + (f.root / (dir + ".toml")).string() + " --out " + (f.root / dir).string(),
        &code);
    INFO(out);
    REQUIRE(code == 0);
    std::ifstream in(f.root / dir / "results.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    std::vector<nlohmann::json> calls;
    for (const auto& run : j.at("runs")) {
      CHECK(run.at("file_verified").get<bool>());
      calls.push_back(run.at("calls"));
    }
    return calls;
  };
  const std::string head = R"(name = "twin"
[run]
algorithm = ["two-phase", "list-io", "independent", "view-based", "gathered"]
ranks = 4
platform = "quickstart"
)";
  int n = 0;
  for (const Twin& t : twins) {
    INFO(t.program);
    const std::string cap = "cap" + std::to_string(++n);
    const std::string out =
        run_output(ciosim + " capture --out " + (f.root / cap).string() + " -- " + launch(4) + t.program +
                       " " + (f.root / (cap + ".dat")).string() + " " + t.args,
                   &code);
    INFO(out);
    REQUIRE(code == 0);
    const auto replayed = calls_of(head + "[workload]\nkind = \"trace\"\nfile = \"" + cap +
                                       "\"\nelement_size = " + t.element_size + "\n",
                                   cap + "-replay");
    const auto direct = calls_of(
        head + t.run + "[workload]\nelement_size = " + t.element_size + "\n" + t.workload, cap + "-direct");
    REQUIRE(replayed.size() == 5);
    CHECK(replayed == direct);
  }
}

TEST_CASE("ciosim capture runs a launch command with the library preloaded and keeps nothing on failure",
          "[capture][mpi][cli]") {
  Folder f;
  int code = -1;
  const std::string ciosim = CIOSIM_BINARY;
  const std::string cmd = ciosim + " capture --out " + (f.root / "cap").string() + " -- " + launch(2) +
                          CIOSIM_CAPTURE_PROGRAM + " " + (f.root / "ckpt.dat").string() + " 2 3";
  const std::string out = run_output("ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 " + cmd, &code);
  INFO(cmd << "\n" << out);
  REQUIRE(code == 0);
  CHECK(out.find("captured 2 ranks") != std::string::npos);
  CHECK(read_capture(f.root / "cap").ranks == 2);
  // An existing capture is never overwritten; a failing command leaves no folder.
  CHECK(run_output(cmd, &code).find("exists and is not an empty folder") != std::string::npos);
  CHECK(code == 2);
  const std::string failing =
      run_output(ciosim + " capture --out " + (f.root / "none").string() + " -- false", &code);
  CHECK(code == 1);
  CHECK(failing.find("no capture kept") != std::string::npos);
  CHECK(!fs::exists(f.root / "none"));
}
#endif

TEST_CASE("capture: a malformed trace is refused with its file and line", "[capture]") {
  Folder f;
  write_file(f.root / "trace.json",
             R"({"format": "ciosim-trace", "version": 1, "ranks": 1, "hosts": ["a"], "program": "p"})");
  const auto error = [&](const std::string& line) {
    write_file(f.root / "rank-0.txt", "# a comment\n" + line + "\n");
    try {
      (void)read_capture(f.root);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error("open 0 1 fh=1 comm=1 amode=5 path=\"x\"").empty());
  CHECK(error("write_all 0.1 0.2 fh=1 bytes=8 regions=0+8").empty());
  CHECK(error("write_all 0.1 0.2 fh=1 bytes=9 regions=0+8").find("rank-0.txt:2: its regions hold 8 bytes") !=
        std::string::npos);
  CHECK(error("frobnicate 0 1 fh=1").find("unknown call frobnicate") != std::string::npos);
  // Huge: a count that would hold more regions than a replay can, or end past a 64-bit offset.
  CHECK(error("write_all 0.1 0.2 fh=1 bytes=8 regions=0+1x100000000000/8")
            .find("more than 16777216 regions in one call") != std::string::npos);
  CHECK(error("write_all 0.1 0.2 fh=1 bytes=8 regions=9223372036854775800+8x2/8")
            .find("ends past the largest 64-bit offset") != std::string::npos);
  CHECK(error("close 2 1 fh=1").find("ends") != std::string::npos);
  CHECK(error("close 0 1").find("needs fh=N") != std::string::npos);
  CHECK(error("close 0 1 fh=1 colour=red").find("unknown key colour") != std::string::npos);
  CHECK(error("open 0 1 fh=1 path=\"x").find("no closing quote") != std::string::npos);
  write_file(f.root / "trace.json",
             R"({"format": "ciosim-trace", "version": 2, "ranks": 1, "hosts": ["a"]})");
  CHECK(error("close 0 1 fh=1").find("version 2") != std::string::npos);
  write_file(f.root / "trace.json",
             R"({"format": "ciosim-trace", "version": 1, "ranks": 2, "hosts": ["a", "b"]})");
  CHECK(error("close 0 1 fh=1").find("rank-1.txt is missing") != std::string::npos);
}
