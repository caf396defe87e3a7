// Shared messages in the simulator (Process::isend_shared / irecv_shared): the receiver gets the sender's
// object itself, the network is charged its wire size (the same time as plain bytes of that size, eager
// and rendezvous alike), and a shared message meets a plain receive (its serialized bytes) and a plain
// send meets a shared receive (decoded). Each TEST_CASE runs one SimGrid engine.
#include <catch2/catch.hpp>
#include <cstring>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <vector>

#include "sim/simulate.hpp"

using namespace ciosim;

namespace {

/// A message of `n` bytes, each byte its index times `mult`.
class Pattern final : public SharedMessage {
 public:
  Pattern(std::int64_t n, int mult) : n_(n), mult_(mult) {}
  std::int64_t wire_size() const override { return n_; }
  void serialize(std::span<std::byte> out) const override {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<std::byte>(i * static_cast<std::size_t>(mult_));
  }
  std::int64_t n_;
  int mult_;
};

SharedMessagePtr decode_pattern(std::span<const std::byte> bytes) {
  const int mult = bytes.size() > 1 ? static_cast<int>(bytes[1]) : 0;
  return std::make_shared<const Pattern>(static_cast<std::int64_t>(bytes.size()), mult);
}

RunSpec two_ranks() {
  RunSpec s;
  s.algorithm = "none";
  s.ranks = 2;
  s.platform.name = "test";
  s.platform.nodes = 2;
  s.network_mpi = "myrinet";
  s.network_io = "myrinet";
  return s;
}

}  // namespace

TEST_CASE("shared messages: the object itself, charged as its bytes, meeting plain sends and receives",
          "[sim][shared]") {
  const std::int64_t small = 512;         // eager on myrinet
  const std::int64_t large = 4 << 20;     // rendezvous
  std::vector<SharedMessagePtr> sent(2);  // rank 0's shared messages
  std::vector<SharedMessagePtr> got(3);   // what rank 1 received as shared
  std::vector<double> shared_time(2), plain_time(2);
  std::vector<std::byte> plain_in(static_cast<std::size_t>(small));
  bool mismatch_refused = false;
  sim::run_with(two_ranks(), [&](Process& p) {
    const std::vector<std::int64_t> sizes{small, large};
    if (p.rank() == 0) {
      for (std::size_t k = 0; k < 2; ++k) {
        p.recv(1, 100, {});  // rank 1 has posted its receive
        const double t0 = simgrid::s4u::Engine::get_clock();
        sent[k] = std::make_shared<const Pattern>(sizes[k], 3);
        Request r = p.isend_shared(1, 1, sent[k]);
        p.wait(r);
        p.recv(1, 101, {});
        shared_time[k] = simgrid::s4u::Engine::get_clock() - t0;
        // The same size as plain bytes, timed the same way.
        p.recv(1, 100, {});
        const double t1 = simgrid::s4u::Engine::get_clock();
        std::vector<std::byte> bytes(static_cast<std::size_t>(sizes[k]));
        p.send(1, 2, bytes);
        p.recv(1, 101, {});
        plain_time[k] = simgrid::s4u::Engine::get_clock() - t1;
      }
      Request r = p.isend_shared(1, 3, std::make_shared<const Pattern>(small, 5));  // into a plain receive
      p.wait(r);
      std::vector<std::byte> bytes(static_cast<std::size_t>(small));
      for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 7);
      p.send(1, 4, bytes);  // into a shared receive: decoded
      r = p.isend_shared(1, 5,
                         std::make_shared<const Pattern>(small, 1));  // the receiver expects another size
      p.wait(r);
    } else {
      for (std::size_t k = 0; k < 2; ++k) {
        Request r = p.irecv_shared(0, 1, sizes[k], &got[k], decode_pattern);
        p.send(0, 100, {});
        p.wait(r);
        p.send(0, 101, {});
        std::vector<std::byte> bytes(static_cast<std::size_t>(sizes[k]));
        r = p.irecv(0, 2, bytes);
        p.send(0, 100, {});
        p.wait(r);
        p.send(0, 101, {});
      }
      p.recv(0, 3, plain_in);
      Request r = p.irecv_shared(0, 4, small, &got[2], decode_pattern);
      p.wait(r);
      SharedMessagePtr wrong;
      r = p.irecv_shared(0, 5, small + 8, &wrong, decode_pattern);
      try {
        p.wait(r);
      } catch (const std::runtime_error&) {
        mismatch_refused = wrong == nullptr;
      }
    }
  });
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(got[k] == sent[k]);  // the object itself, not a copy
    CHECK(shared_time[k] == Approx(plain_time[k]).epsilon(1e-12));
  }
  CHECK(shared_time[1] > shared_time[0]);
  for (std::size_t i = 0; i < plain_in.size(); ++i) REQUIRE(plain_in[i] == static_cast<std::byte>(i * 5));
  REQUIRE(got[2] != nullptr);
  const auto* decoded = dynamic_cast<const Pattern*>(got[2].get());
  REQUIRE(decoded != nullptr);
  CHECK(decoded->n_ == small);
  CHECK(decoded->mult_ == 7);
  CHECK(mismatch_refused);
}
