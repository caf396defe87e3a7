// Operation sequences (algorithms/sequence.hpp), the pure parts: the text form and its expansion, the
// structural checks, where each step lands, the steps laid out before a run, and the file check.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/common/distribution.hpp"
#include "algorithms/sequence.hpp"

using namespace ciosim;

namespace {

std::string error_of(const std::string& text, std::int64_t es = 4) {
  try {
    check_sequence(parse_sequence(text), es);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> names(const std::vector<Op>& ops) {
  std::vector<std::string> out;
  for (const Op& op : ops) out.push_back(op_name(op));
  return out;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// Block-cyclic x of 64 entries over 4 ranks, blocks of 4.
Distribution small() {
  return block_cyclic(64, 4, 4);
}

}  // namespace

TEST_CASE("a sequence expands its repetitions, nested ones included", "[sequence]") {
  const auto ops = parse_sequence("open (compute:1.5 write next)*3 close");
  CHECK(ops.size() == 11);
  CHECK(names(ops) == std::vector<std::string>{"open", "compute", "write", "next", "compute", "write", "next",
                                               "compute", "write", "next", "close"});
  CHECK(ops[1].seconds == 1.5);
  const auto nested = parse_sequence("open ((write)*2 view:64)*2 close");
  CHECK(names(nested) ==
        std::vector<std::string>{"open", "write", "write", "view:64", "write", "write", "view:64", "close"});
  CHECK(parse_sequence("open write close") == parse_sequence("  open\twrite   close "));
  CHECK(parse_sequence("(open write close) * 2").size() == 6);
  const auto w = parse_sequence("open compute:workload write close");
  CHECK(w[1].workload);
}

TEST_CASE("a sequence that cannot be read is named in one line with the valid operations", "[sequence]") {
  CHECK(contains(error_of("open wrte close"), "unknown operation \"wrte\" at character 6"));
  CHECK(contains(error_of("open wrte close"), "valid: open, close, write, read"));
  CHECK(contains(error_of("open (write close"), "never closed"));
  CHECK(contains(error_of("open (write) close"), "must be followed by *N"));
  CHECK(contains(error_of("open (write)*0 close"), "whole number from 1"));
  CHECK(contains(error_of("open write) close"), "unexpected \")\""));
  CHECK(contains(error_of("open view:abc write close"), "view:BYTES takes a displacement"));
  CHECK(contains(error_of("open compute:-1 write close"), "compute:SECONDS takes seconds"));
  CHECK(contains(error_of("open compute:nan write close"), "compute:SECONDS takes seconds"));
  CHECK(contains(error_of("open ((write)*1000)*1001 close"), "more than 1000000 operations"));
  for (const std::string& e : {error_of("open wrte close"), error_of("open (write close")})
    CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("a sequence must open before it accesses, close at the end, and access at least once",
          "[sequence]") {
  CHECK(error_of("open write close").empty());
  CHECK(error_of("compute:1 open write close compute:2").empty());  // computing with the file closed is fine
  CHECK(contains(error_of("write open close"), "\"write\" (operation 1) while the file is closed"));
  CHECK(contains(error_of("open open write close"), "already open"));
  CHECK(contains(error_of("open write"), "ends with the file open"));
  CHECK(contains(error_of("open sync close"), "has no write and no read"));
  CHECK(contains(error_of("open view:6 write close", 4), "multiple of the element size (4 bytes)"));
  CHECK(error_of("open view:8 write close", 4).empty());
  CHECK(contains(error_of(""), "no operation"));
}

TEST_CASE("compute:workload takes the workload's time, or is refused when it has none", "[sequence]") {
  auto ops = parse_sequence("open compute:workload write close");
  resolve_compute(ops, 2.5, "btio");
  CHECK(ops[1].seconds == 2.5);
  auto none = parse_sequence("open compute:workload write close");
  CHECK_THROWS_WITH(resolve_compute(none, -1, "block-cyclic"),
                    Catch::Contains("workload block-cyclic defines no computation"));
}

TEST_CASE("each access lands at its view's displacement plus the steps taken", "[sequence]") {
  const auto ops = parse_sequence("open (write next)*2 view:1000 write next read close open read close");
  const auto a = sequence_accesses(ops, 256);
  REQUIRE(a.size() == 5);
  CHECK((a[0].write && a[0].position == 0));
  CHECK((a[1].write && a[1].position == 256));
  CHECK((a[2].write && a[2].position == 1000));
  CHECK((!a[3].write && a[3].position == 1256));
  CHECK((!a[4].write && a[4].position == 0));  // open starts again at displacement 0
  CHECK(value_base(1256, 4) == 314);
}

TEST_CASE("only the steps read before they are written are laid out beforehand", "[sequence]") {
  const Distribution d = small();
  const auto ops = parse_sequence("open read next write next read close open read close");
  const auto steps = sequence_initial_steps(d, FileLayout::Logical, 4, ops);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].first == 0);
  CHECK(steps[1].first == 512);  // read at step 2, never written
  CHECK(steps[1].second == expected_file(d, FileLayout::Logical, 4, 128));
}

TEST_CASE("the file check finds a step written at the wrong place, and stray bytes", "[sequence]") {
  const Distribution d = small();
  const auto ops = parse_sequence("open (write next)*3 close");
  const Offset step = step_bytes(d, FileLayout::Logical, 4);
  REQUIRE(step == 256);
  std::vector<std::byte> file;
  for (int k = 0; k < 3; ++k) {
    const auto s = expected_file(d, FileLayout::Logical, 4, value_base(k * step, 4));
    file.insert(file.end(), s.begin(), s.end());
  }
  CHECK(check_sequence_file(file, d, FileLayout::Logical, 4, ops).empty());

  // Step 1's bytes where step 2 belongs (the same data written twice, or to the wrong offset).
  std::vector<std::byte> swapped = file;
  std::copy(file.begin() + step, file.begin() + 2 * step, swapped.begin() + 2 * step);
  CHECK(check_sequence_file(swapped, d, FileLayout::Logical, 4, ops) ==
        "the file differs from the sequence's at byte 512");

  std::vector<std::byte> longer = file;
  longer.push_back(std::byte{1});
  CHECK(contains(check_sequence_file(longer, d, FileLayout::Logical, 4, ops), "past the last step"));

  std::vector<std::byte> shorter(file.begin(), file.end() - 4);  // the last entry's first byte is not zero
  CHECK(!check_sequence_file(shorter, d, FileLayout::Logical, 4, ops).empty());

  // A view past the end leaves a hole, which must read as zeros.
  const auto gap = parse_sequence("open write view:512 write close");
  std::vector<std::byte> holey(768);
  const auto s0 = expected_file(d, FileLayout::Logical, 4, 0);
  const auto s2 = expected_file(d, FileLayout::Logical, 4, 128);
  std::copy(s0.begin(), s0.end(), holey.begin());
  std::copy(s2.begin(), s2.end(), holey.begin() + 512);
  CHECK(check_sequence_file(holey, d, FileLayout::Logical, 4, gap).empty());
  holey[300] = std::byte{7};
  CHECK(contains(check_sequence_file(holey, d, FileLayout::Logical, 4, gap), "outside every step"));

  // Overlapping views (128 bytes apart, steps of 256): the file is checked as a whole, in write order.
  const auto overlap = parse_sequence("open write view:128 write close");
  std::vector<std::byte> ov(384);
  const auto s1 = expected_file(d, FileLayout::Logical, 4, 32);
  std::copy(s0.begin(), s0.end(), ov.begin());
  std::copy(s1.begin(), s1.end(), ov.begin() + 128);
  CHECK(check_sequence_file(ov, d, FileLayout::Logical, 4, overlap).empty());
  std::fill(ov.begin() + 300, ov.end(), std::byte{0});  // the second write cut short
  CHECK(check_sequence_file(ov, d, FileLayout::Logical, 4, overlap) ==
        "the file differs from the sequence's at byte 300");
  // Rank-major steps differ where they overlap: the later write must win.
  const Distribution irr = block_cyclic(64, 4, 1);
  std::vector<std::byte> rm(384);
  const auto r0 = expected_file(irr, FileLayout::RankMajor, 4, 0);
  const auto r1 = expected_file(irr, FileLayout::RankMajor, 4, 32);
  std::copy(r0.begin(), r0.end(), rm.begin());
  std::copy(r1.begin(), r1.end(), rm.begin() + 128);
  CHECK(check_sequence_file(rm, irr, FileLayout::RankMajor, 4, overlap).empty());
  std::copy(r0.begin(), r0.end(), rm.begin());  // the first write last: wrong order
  CHECK(!check_sequence_file(rm, irr, FileLayout::RankMajor, 4, overlap).empty());
}
