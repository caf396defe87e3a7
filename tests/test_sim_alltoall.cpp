// MPICH's alltoall in the simulator (sim/collectives.cpp), through real SimGrid simulations: every byte
// each rank receives, and every message each algorithm sends (source, destination, bytes), read from the
// run's Chrome timeline. Bruck for blocks <= 256 B on >= 8 ranks: ceil(log2 P) messages per rank, the k-th
// to rank + 2^k carrying the blocks whose index has bit k set; "scattered" up to 32 KiB and pairwise
// above: one message of one block to every other rank. Each TEST_CASE runs one SimGrid engine.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "sim/simulate.hpp"

using namespace ciosim;

namespace {

/// Byte j of the block rank `from` sends to rank `to` in the alltoall of blocks of n bytes.
std::byte pattern(int from, int to, std::size_t j, std::size_t n) {
  return static_cast<std::byte>(
      (static_cast<std::size_t>(from) * 131 + static_cast<std::size_t>(to) * 17 + j * 7 + n * 3) & 0xff);
}

using Message = std::tuple<int, int, std::int64_t>;  // source, destination, bytes

/// The messages MPICH's algorithm for blocks of n bytes on P ranks sends (collectives.cpp's choice).
std::multiset<Message> expected_messages(int P, std::size_t n) {
  std::multiset<Message> m;
  if (n == 0) return m;
  if (n <= 256 && P >= 8) {
    for (int r = 0; r < P; ++r)
      for (int pof2 = 1; pof2 < P; pof2 <<= 1) {
        std::int64_t blocks = 0;
        for (int b = 1; b < P; ++b)
          if (b & pof2) ++blocks;
        m.emplace(r, (r + pof2) % P, blocks * static_cast<std::int64_t>(n));
      }
    return m;
  }
  for (int r = 0; r < P; ++r)
    for (int d = 0; d < P; ++d)
      if (d != r) m.emplace(r, d, static_cast<std::int64_t>(n));
  return m;
}

struct Outcome {
  std::int64_t wrong_bytes = 0;         ///< received bytes that differ from what their sender sent
  std::multiset<Message> messages;      ///< the alltoall messages of the whole run
  std::int64_t messages_elsewhere = 0;  ///< alltoall-tagged messages received outside an alltoall
};

/// One simulation of P ranks (one per node, Myrinet) calling alltoall once per block size in `blocks`, in
/// order; each rank checks every byte it receives.
Outcome run_alltoalls(int P, const std::vector<std::size_t>& blocks) {
  RunSpec s;
  s.algorithm = "none";
  s.ranks = P;
  s.platform.name = "test";
  s.platform.nodes = P;
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  char dir[] = "/tmp/ciosim-alltoall-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  s.timeline_formats = {"chrome"};
  s.timeline_path = std::string(dir) + "/timeline";
  std::vector<std::int64_t> wrong(static_cast<std::size_t>(P), 0);
  sim::run_with(s, [&](Process& p) {
    const auto np = static_cast<std::size_t>(p.size());
    for (const std::size_t n : blocks) {
      std::vector<std::byte> send(n * np), recv(n * np, std::byte{0xee});
      for (int to = 0; to < p.size(); ++to)
        for (std::size_t j = 0; j < n; ++j)
          send[n * static_cast<std::size_t>(to) + j] = pattern(p.rank(), to, j, n);
      p.alltoall(send, recv);
      for (int from = 0; from < p.size(); ++from)
        for (std::size_t j = 0; j < n; ++j)
          if (recv[n * static_cast<std::size_t>(from) + j] != pattern(from, p.rank(), j, n))
            ++wrong[static_cast<std::size_t>(p.rank())];
    }
  });
  Outcome o;
  for (const std::int64_t w : wrong) o.wrong_bytes += w;
  const std::string path = s.timeline_path + ".json";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json trace = nlohmann::json::parse(text.str());
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "message") continue;
    const auto& a = e["args"];
    if (a["tag"].get<int>() != -5) continue;  // collectives.cpp's kTagAlltoall
    if (a["received_in"] != "alltoall") ++o.messages_elsewhere;
    o.messages.emplace(a["src"].get<int>(), a["dst"].get<int>(), a["bytes"].get<std::int64_t>());
  }
  std::filesystem::remove_all(dir);
  return o;
}

/// Small blocks (Bruck from 8 ranks), the 256 B cut-over and one byte above it, a medium block
/// (scattered), and one byte above 32 KiB (pairwise).
const std::vector<std::size_t> kBlocks{1, 4, 256, 257, 1024, 32769};

void check_alltoalls(int P, const std::vector<std::size_t>& blocks) {
  const Outcome o = run_alltoalls(P, blocks);
  CHECK(o.wrong_bytes == 0);
  CHECK(o.messages_elsewhere == 0);
  std::multiset<Message> want;
  for (const std::size_t n : blocks) want.merge(expected_messages(P, n));
  CHECK(o.messages.size() == want.size());
  CHECK(o.messages == want);
}

}  // namespace

TEST_CASE("alltoall on 8 ranks (Bruck to 256 B then scattered then pairwise) delivers every byte",
          "[sim][alltoall]") {
  check_alltoalls(8, kBlocks);
}

TEST_CASE("alltoall on 9 ranks (Bruck to 256 B then scattered then pairwise) delivers every byte",
          "[sim][alltoall]") {
  check_alltoalls(9, kBlocks);
}

TEST_CASE("alltoall on 16 ranks (Bruck to 256 B then scattered then pairwise) delivers every byte",
          "[sim][alltoall]") {
  check_alltoalls(16, kBlocks);
}

TEST_CASE("alltoall on 33 ranks (Bruck to 256 B then scattered then pairwise) delivers every byte",
          "[sim][alltoall]") {
  check_alltoalls(33, kBlocks);
}

TEST_CASE("alltoall on 7 ranks: scattered even for 4-byte blocks (Bruck needs 8 ranks)", "[sim][alltoall]") {
  check_alltoalls(7, {4, 256});
}

TEST_CASE("alltoall of empty blocks sends nothing (MPI_Alltoall returns at once)", "[sim][alltoall]") {
  check_alltoalls(9, {0});
}

TEST_CASE("the expected Bruck messages: ceil(log2 P) per rank and the blocks with bit k set", "[alltoall]") {
  // The oracle itself, by hand: on 9 ranks rounds 1, 2, 4, 8 carry blocks {1,3,5,7}, {2,3,6,7},
  // {4,5,6,7}, {8}.
  const std::multiset<Message> m = expected_messages(9, 4);
  CHECK(m.size() == 9 * 4);
  CHECK(m.count(Message{0, 1, 16}) == 1);
  CHECK(m.count(Message{0, 2, 16}) == 1);
  CHECK(m.count(Message{0, 4, 16}) == 1);
  CHECK(m.count(Message{0, 8, 4}) == 1);
  CHECK(m.count(Message{8, 7, 4}) == 1);  // (8 + 8) mod 9
}
