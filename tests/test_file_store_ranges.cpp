// A server's chunk of a list request written and read at once (FileStore::write_ranges / read_ranges,
// used by the PVFS model): the file and the buffer must end as one write or read per range leaves them,
// with bytes and with elided payloads, for a Bx = 1 request (ranges at a stride, data back to back), data
// out of order, holes read back, and empty ranges.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "algorithms/common/payload.hpp"
#include "models/filesystem/file_store.hpp"

using namespace ciosim;
using filesystem::FileStore;
using filesystem::Placement;
using payload::Piece;

namespace {

/// 64 ranges of 4 bytes at a stride of 64 (rank 3 of 16 at Bx = 1), their data back to back; then two
/// ranges whose data lie apart and backwards in the buffer, an empty one, and one overwriting the first.
std::vector<Placement> request() {
  std::vector<Placement> ps;
  for (Offset k = 0; k < 64; ++k) ps.push_back(Placement{12 + 64 * k, 4 * k, 4});
  ps.push_back(Placement{5000, 400, 16});
  ps.push_back(Placement{4096, 300, 8});
  ps.push_back(Placement{4200, 308, 0});
  ps.push_back(Placement{12, 260, 4});
  return ps;
}

/// Writes `ps` from `data` one range at a time, as the store's callers did before write_ranges.
void write_each(FileStore& f, const std::vector<Placement>& ps, const std::byte* data) {
  for (const Placement& p : ps)
    f.write(p.file_offset, std::span(data + p.data_offset, static_cast<std::size_t>(p.length)));
}

void read_each(const FileStore& f, const std::vector<Placement>& ps, std::byte* data) {
  for (const Placement& p : ps)
    f.read(p.file_offset, std::span(data + p.data_offset, static_cast<std::size_t>(p.length)));
}

}  // namespace

TEST_CASE("file store: a chunk's ranges at once equal one write and read per range, elided", "[payload]") {
  const payload::ModeScope scope(payload::Mode::Elided);
  payload::Buffer data(512);
  // The buffer: a strided piece (a rank's Bx = 1 data), then consecutive sources, then never written.
  payload::assign(std::span(data.data(), 256), std::vector<Piece>{{256, 12, 4, 64}});
  payload::assign(std::span(data.data() + 256, 200), std::vector<Piece>{{200, 9000}});
  FileStore batched;
  FileStore each;
  batched.set_elided(true);
  each.set_elided(true);
  batched.write_pieces(0, std::vector<Piece>{{64, 1}});  // something to overwrite
  each.write_pieces(0, std::vector<Piece>{{64, 1}});
  const std::vector<Placement> ps = request();
  batched.write_ranges(ps, data.data());
  write_each(each, ps, data.data());
  CHECK(batched.size() == each.size());
  CHECK(batched.size() == 5016);
  const std::vector<Piece> got = batched.pieces();
  CHECK(got == each.pieces());
  CHECK_FALSE(payload::same_contents(got, std::vector<Piece>{{batched.size(), payload::kUndefined}}));

  // Read back, holes included (the gap between 4104 and 5000 is never written): zeros, not undefined.
  std::vector<Placement> back = ps;
  back.push_back(Placement{4100, 470, 20});
  payload::Buffer one(512);
  payload::Buffer two(512);
  batched.read_ranges(back, one.data());
  read_each(each, back, two.data());
  CHECK(payload::pieces(one) == payload::pieces(two));
  // File bytes 4100..4103 came from data bytes 304..307 (sources 9048..9051); 4104..4119 are a hole.
  CHECK(payload::pieces(std::span<const std::byte>(one.data() + 470, 20)) ==
        std::vector<Piece>{{4, 9048}, {16, payload::kZero}});

  // An elided store refuses bytes, and bytes refuse it, before anything is written.
  std::vector<std::byte> bytes(512);
  CHECK_THROWS_AS(batched.write_ranges(ps, bytes.data()), std::logic_error);
  CHECK(batched.pieces() == got);
}

TEST_CASE("file store: a chunk's ranges at once equal one write and read per range, bytes", "[payload]") {
  std::vector<std::byte> data(512);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7 + 1);
  FileStore batched;
  FileStore each;
  const std::vector<Placement> ps = request();
  batched.write_ranges(ps, data.data());
  write_each(each, ps, data.data());
  CHECK(batched.bytes() == each.bytes());
  CHECK(batched.bytes().size() == 5016);
  std::vector<std::byte> one(512, std::byte{0xee});
  std::vector<std::byte> two(512, std::byte{0xee});
  batched.read_ranges(ps, one.data());
  read_each(each, ps, two.data());
  CHECK(one == two);
  CHECK(one[0] == data[260]);  // the last range overwrote the first's file bytes with data 260..263
}
