// Elided payloads (algorithms/common/payload.hpp): the piece map, buffers and copies, the elided file store,
// and every technique that runs elided run on the same points with bytes and elided: identical simulated
// times, calls and network bytes, and both verdicts true. A wrong write is caught.
#include <catch2/catch.hpp>

#include "algorithms/common/distribution.hpp"
#include "algorithms/two_phase/two_phase.hpp"
#include "config/workload.hpp"
#include "models/filesystem/file_store.hpp"
#include "sim/simulate.hpp"
#include "tests/sim_fork.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;
using payload::Piece;

namespace {

std::vector<Piece> P(std::initializer_list<Piece> l) {
  return l;
}

RunSpec spec(const std::string& algorithm, int ranks) {
  return test::block_cyclic_spec(algorithm, 4096, 4, ranks);
}

using test::stem2_spec;

/// Runs `s` with bytes and elided in forked children and compares them.
void same_in_both_modes(RunSpec s) {
  INFO(s.algorithm << " bx=" << s.workload.bx << " kind=" << s.workload.kind << " ranks=" << s.ranks
                   << (s.access == Access::Read ? " read" : " write"));
  s.payload = PayloadChoice::Bytes;
  const test::Forked bytes = test::simulate_forked(s);
  s.payload = PayloadChoice::Elided;
  const test::Forked elided = test::simulate_forked(s);
  REQUIRE(bytes.ok);
  INFO(elided.error);
  REQUIRE(elided.ok);
  CHECK_FALSE(bytes.elided);
  CHECK(elided.elided);
  CHECK(bytes.verified);
  CHECK(elided.verified);
  CHECK(elided.sim_time_s == bytes.sim_time_s);  // exactly: the same calls of the same sizes
  CHECK(elided.calls == bytes.calls);
  CHECK(elided.bytes_network == bytes.bytes_network);
}

}  // namespace

TEST_CASE("a piece map merges what continues and splits what it overwrites", "[payload]") {
  payload::PieceMap m;
  m.assign(0, P({{10, 100}}));
  m.assign(10, P({{5, 110}}));  // continues the first: one entry
  CHECK(m.entries() == 1);
  CHECK(m.extract(0, 15) == P({{15, 100}}));
  m.assign(4, P({{3, 500}}));  // a hole punched in the middle
  CHECK(m.entries() == 3);
  CHECK(m.extract(0, 15) == P({{4, 100}, {3, 500}, {8, 107}}));
  CHECK(m.extract(5, 4) == P({{4, 501, 2, 107 - 501}}));  // two equal runs of x: one strided piece
  m.assign(4, P({{3, 104}}));                             // restored: merges back into one
  CHECK(m.entries() == 1);
  CHECK(m.extract(0, 15) == P({{15, 100}}));
  CHECK(m.extract(12, 8) == P({{3, 112}, {5, payload::kUndefined}}));  // past the end: undefined
  m.erase(2, 3);
  CHECK(m.extract(0, 6) == P({{2, 100}, {3, payload::kUndefined}, {1, 105}}));
  m.assign(20, P({{2, payload::kZero}, {3, payload::kZero}}));
  CHECK(m.extract(20, 5) == P({{5, payload::kZero}}));
  CHECK(m.end() == 25);
  m.assign(0, P({{25, payload::kUndefined}}));  // undefined pieces leave their range unassigned
  CHECK(m.entries() == 0);
}

TEST_CASE("elided buffers copy pieces, never bytes, and refuse to mix with bytes", "[payload]") {
  const payload::ModeScope scope(payload::Mode::Elided);
  payload::Buffer a(64);
  payload::Buffer b(64);
  CHECK(a.elided());
  CHECK(payload::is_elided(a.span()));
  CHECK(payload::pieces(a) == P({{64, payload::kUndefined}}));
  payload::assign(a, P({{32, 0}, {32, 1000}}));
  payload::copy(b.span().subspan(0, 32), a.span().subspan(32, 32));
  CHECK(payload::pieces(b) == P({{32, 1000}, {32, payload::kUndefined}}));
  std::vector<std::byte> real(32);
  CHECK_THROWS_WITH(payload::copy(real, a.span().first(32)),
                    Catch::Contains("elided buffer copied into real"));
  std::vector<std::byte> big(payload::kMaxLiteralBytes + 1);
  CHECK_THROWS_WITH(payload::copy(a.span().first(big.size()), big),
                    Catch::Contains("real bytes copied into an elided"));
  // A header (literals) goes into an elided buffer and comes back out; data does not.
  const std::int64_t head[2] = {7, -9};
  payload::copy(b.span().subspan(40, 16), std::as_bytes(std::span(head)));
  std::int64_t back[2] = {0, 0};
  payload::copy(std::as_writable_bytes(std::span(back)), b.span().subspan(40, 16));
  CHECK(back[0] == 7);
  CHECK(back[1] == -9);
  CHECK_THROWS(payload::copy(std::as_writable_bytes(std::span(back)), b.span().subspan(24, 16)));
  payload::Buffer grown(4);
  payload::assign(grown, P({{4, 400}}));
  grown.grow(100);
  CHECK(grown.size() == 100);
  CHECK(payload::pieces(grown) == P({{4, 400}, {96, payload::kUndefined}}));
  payload::Buffer empty;
  empty.grow(10);
  CHECK(empty.elided());  // an empty buffer grows in the current mode
  CHECK_THROWS_WITH(payload::require_bytes(a, "alltoall"), Catch::Contains("alltoall does not carry elided"));
  const payload::Buffer bytes(8, payload::Mode::Bytes);
  CHECK_FALSE(bytes.elided());
  CHECK(bytes.span().size() == 8);
  const std::size_t live = payload::live_entries();
  { const payload::Buffer gone = std::move(a); }
  CHECK(payload::live_entries() == live - 1);  // a's two equal runs, one strided piece, freed with it
}

TEST_CASE("the elided file store keeps sources, reads holes as zeros and checks like bytes", "[payload]") {
  const payload::ModeScope scope(payload::Mode::Elided);
  Distribution d;
  d.nx = 16;
  d.per_rank = {Datatype{{{0, 4}}, 2, 8}, Datatype{{{4, 4}}, 2, 8}};  // block-cyclic, Bx = 4, 2 ranks
  filesystem::FileStore f;
  f.set_elided(true);
  const payload::Buffer r0 = make_local_payload(d, 0, 4);
  const payload::Buffer r1 = make_local_payload(d, 1, 4);
  CHECK(payload::pieces(r0) == P({{32, 0, 16, 32}}));  // two blocks of 4 entries, 8 entries apart
  f.write(0, r0.span().first(16));
  f.write(32, r0.span().subspan(16));
  f.write(16, r1.span().first(16));
  payload::Buffer back(64);
  f.read(0, back);
  CHECK(payload::pieces(back) == P({{48, 0}, {16, payload::kZero}}));  // rank 1's second block unwritten
  CHECK_FALSE(payload::same_contents(f.pieces(), expected_pieces(d, FileLayout::Logical, 4)));
  f.write(48, r1.span().subspan(16));
  CHECK(payload::same_contents(f.pieces(), expected_pieces(d, FileLayout::Logical, 4)));
  CHECK(f.pieces() == P({{64, 0}}));
  f.write(48, r1.span().first(16));  // rank 1's first block written where its second belongs
  CHECK_FALSE(payload::same_contents(f.pieces(), expected_pieces(d, FileLayout::Logical, 4)));
  CHECK_THROWS_WITH(f.bytes(), Catch::Contains("elided"));
  CHECK_THROWS_WITH(f.export_to("/tmp/never"), Catch::Contains("run.payload = elided"));
  std::vector<std::byte> real(4);
  CHECK_THROWS(f.write(0, real));
}

TEST_CASE("every elided technique: same times, calls and verdicts as with bytes (block-cyclic)",
          "[payload][sim]") {
  for (const std::string a : {"iec", "iec-parametric", "block", "list-io", "independent", "two-phase",
                              "sequential", "gathered", "view-based"})
    for (const std::int64_t bx : {1, 4}) {
      const bool iec = a == "iec" || a == "iec-parametric";
      RunSpec s = spec(a, iec ? 8 : 4);
      s.workload.nx = iec ? 8192 : 4096;
      s.workload.bx = bx;
      s.hints.cb_buffer_size = 2048;  // two-phase: several rounds
      same_in_both_modes(s);
    }
}

TEST_CASE("elided reads, repeated writes, irregular and 3-D workloads agree with bytes", "[payload][sim]") {
  for (const std::string a : {"block", "list-io", "independent", "two-phase", "gathered", "view-based"}) {
    RunSpec s = spec(a, 4);
    s.access = Access::Read;
    s.workload.bx = 2;
    same_in_both_modes(s);
  }
  RunSpec twice = spec("iec", 4);
  twice.iterations = 2;
  same_in_both_modes(twice);
  RunSpec irregular = spec("iec", 8);
  irregular.workload.kind = "irregular";
  irregular.workload.nx = 2048;
  irregular.workload.seed = 7;
  same_in_both_modes(irregular);
  irregular.algorithm = "two-phase";
  same_in_both_modes(irregular);
  RunSpec cube = spec("two-phase", 8);
  cube.workload.kind = "block3d";
  cube.workload.nx = cube.workload.ny = cube.workload.nz = 16;
  cube.hints.cb_nodes = 2;
  same_in_both_modes(cube);
}

TEST_CASE("multiple-phase and sequential on STEM-II agree with bytes, elided", "[payload][sim]") {
  for (const int phases : {0, 1}) {
    same_in_both_modes(stem2_spec("multiple-phase", 8, phases));
    RunSpec read = stem2_spec("multiple-phase", 8, phases);
    read.access = Access::Read;
    same_in_both_modes(read);
  }
  same_in_both_modes(stem2_spec("sequential", 4, 0));
}

TEST_CASE("two-phase's read-modify-write keeps the file's holes as zeros, elided", "[payload][sim]") {
  // The hole test of test_sim_two_phase.cpp, elided: blocks of 8 entries, the first 4 held, the rest holes.
  const Distribution d = test::half_held_blocks();
  TechniqueInput in{&d, 4, "x.dat", 1, {}};
  in.hints.cb_nodes = 1;
  in.hints.cb_buffer_size = 512;
  std::vector<Piece> file;
  std::vector<std::int64_t> reads(4, -1);
  const payload::ModeScope scope(payload::Mode::Elided);
  sim::run_with(
      spec("two-phase", 4),
      [&](Process& p) {
        const payload::Buffer local = make_local_payload(d, p.rank(), 4);
        two_phase::run_write(p, in, local);
        reads[static_cast<std::size_t>(p.rank())] = p.counters().count(Call::FileRead);
      },
      [&](const filesystem::FileStore& f) { file = f.pieces(); });
  CHECK(reads == std::vector<std::int64_t>{4, 0, 0, 0});
  std::vector<Piece> expect;
  for (std::int64_t e = 0; e < 508; e += 8) {
    payload::append(expect, Piece{16, 4 * e});
    if (e + 4 < 508)
      payload::append(expect, Piece{std::min<std::int64_t>(16, 4 * (508 - e - 4)), payload::kZero});
  }
  CHECK(file == expect);
}

TEST_CASE("an elided run that writes the wrong sources fails its check", "[payload][sim]") {
  // Block I/O's writes with ranks 0 and 1 swapped: every byte is written once, with the right sizes, but
  // rank 0's data lands at rank 1's offset. The file check compares sources, so it notices.
  const RunSpec s = spec("block", 4);
  const Distribution d = make_distribution(s.workload, s.ranks);
  bool same = true;
  const payload::ModeScope scope(payload::Mode::Elided);
  sim::run_with(
      s,
      [&](Process& p) {
        const payload::Buffer local = make_local_payload(d, p.rank(), 4);
        const int to = p.rank() < 2 ? 1 - p.rank() : p.rank();
        p.write_at(static_cast<Offset>(to) * 1024 * 4, local);
      },
      [&](const filesystem::FileStore& f) {
        same = f.pieces() == expected_pieces(d, FileLayout::RankMajor, 4);
        CHECK(f.size() == 4096 * 4);
      });
  CHECK_FALSE(same);
}

TEST_CASE("run.payload: elided is refused where it cannot run, auto chooses by size", "[payload]") {
  RunSpec s = spec("iec", 4);
  s.payload = PayloadChoice::Elided;
  s.sequence = "open write close";
  const Distribution d = make_distribution(s.workload, s.ranks);
  CHECK_THROWS_WITH(sim::payload_elided(s, technique("iec"), d), Catch::Contains("run.sequence"));
  s.sequence.clear();
  s.algorithm = "iec";
  s.export_file = "/tmp/x";
  CHECK_THROWS_WITH(sim::payload_elided(s, technique("iec"), d), Catch::Contains("export"));
  s.export_file.clear();
  CHECK(sim::payload_elided(s, technique("iec"), d));
  s.payload = PayloadChoice::Auto;
  CHECK_FALSE(sim::payload_elided(s, technique("iec"), d));  // 16 KiB of data: bytes
  s.workload.nx = std::int64_t{1} << 28;                     // 1 GiB of 4-byte entries ...
  s.workload.bx = s.workload.nx / 64;                        // ... in blocks of 16 MiB: elided
  const Distribution big = make_distribution(s.workload, s.ranks);
  CHECK(sim::payload_elided(s, technique("iec"), big));
  s.export_file = "/tmp/x";
  CHECK_FALSE(sim::payload_elided(s, technique("iec"), big));  // auto never refuses: bytes
  s.export_file.clear();
  s.workload.bx = 1;  // a tuple per entry, but one piece a rank: IEC's buffers stay a few pieces a rank
  const Distribution fine = make_distribution(s.workload, s.ranks);
  CHECK(sim::payload_elided(s, technique("iec"), fine));
  s.algorithm = "two-phase";  // takes a round's pieces one by one: elided would cost more than the bytes
  CHECK_FALSE(sim::payload_elided(s, technique("two-phase"), fine));
}

TEST_CASE("run.payload = auto: elided where many ranks each keep a copy of the array", "[payload]") {
  // Multiple-phase keeps the whole array on every rank: with bytes a 4 MiB array on 1024 ranks is 4 GiB of
  // copies (4206 MiB measured), elided 182 MiB and 3.5x faster; on 16 ranks elided is the slower one.
  auto chooses_elided = [](const std::string& algorithm, int ranks, std::int64_t nx) {
    RunSpec s = test::block_cyclic_spec(algorithm, nx, 1, ranks);
    s.payload = PayloadChoice::Auto;
    return sim::payload_elided(s, technique(algorithm), make_distribution(s.workload, s.ranks));
  };
  CHECK(chooses_elided("multiple-phase", 1024, std::int64_t{1} << 20));       // 1024 copies of 4 MiB
  CHECK(chooses_elided("multiple-phase", 128, std::int64_t{1} << 21));        // 128 copies of 8 MiB: 1 GiB
  CHECK_FALSE(chooses_elided("multiple-phase", 128, std::int64_t{1} << 20));  // 128 copies of 4 MiB
  CHECK_FALSE(chooses_elided("multiple-phase", 64, std::int64_t{1} << 22));   // 64 copies: bytes are faster
  CHECK_FALSE(chooses_elided("multiple-phase", 16, std::int64_t{1} << 24));
  CHECK_FALSE(chooses_elided("two-phase", 1024, std::int64_t{1} << 20));  // one copy of the array
  CHECK(technique("multiple-phase").array_per_rank);
  CHECK_FALSE(technique("two-phase").array_per_rank);
}
