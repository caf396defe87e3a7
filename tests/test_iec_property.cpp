// IEC I/O property tests: for many block-cyclic, irregular and random distributions the plans move real
// bytes into exactly x's order; check() accepts exactly the distributions the inspector can handle; the
// Process-driven inspector/executor (on an in-memory threaded Process) and Block I/O write the expected
// files; the technique registry. Paper: Singh et al., J. Supercomputing 47(1):53-75, 2009.
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "algorithms/baselines/block_io.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/iec/iec.hpp"

using namespace ciosim;

namespace {

// ---- an in-memory Process: one thread per rank, eager point-to-point, a shared file

struct World {
  explicit World(int n) : size(n) {}
  int size;
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::tuple<int, int, int>, std::deque<std::vector<std::byte>>> mail;  // (src, dst, tag)
  std::vector<std::byte> file;
  int writes = 0;
};

class FakeProcess : public Process {
 public:
  FakeProcess(World& w, int rank) : w_(w), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return w_.size; }
  std::string host() const override { return "node" + std::to_string(rank_); }
  std::vector<std::string> phases;
  Work work;

 protected:
  void do_send(int dst, int tag, std::span<const std::byte> buf) override { post(dst, tag, buf); }
  void do_recv(int src, int tag, std::span<std::byte> buf) override { take(src, tag, buf); }
  Request do_isend(int dst, int tag, std::span<const std::byte> buf) override {
    post(dst, tag, buf);
    return Request{-1};
  }
  Request do_irecv(int src, int tag, std::span<std::byte> buf) override {
    pending_.push_back({src, tag, buf});
    return Request{static_cast<std::int64_t>(pending_.size() - 1)};
  }
  void do_wait(Request& r) override {
    if (r.id >= 0) {
      const Pending& p = pending_[static_cast<std::size_t>(r.id)];
      take(p.src, p.tag, p.buf);
    }
    r.id = -1;
  }
  void do_waitall(std::vector<Request>& rs) override {
    for (Request& r : rs) do_wait(r);
  }
  int do_waitany(std::vector<Request>& rs) override {  // the first active one, as it would block on it
    for (std::size_t i = 0; i < rs.size(); ++i)
      if (rs[i].id >= 0) {
        do_wait(rs[i]);
        return static_cast<int>(i);
      }
    return -1;
  }
  void do_barrier() override { unsupported(); }
  void do_bcast(std::span<std::byte>, int) override { unsupported(); }
  void do_gather(std::span<const std::byte>, std::span<std::byte>, int) override { unsupported(); }
  void do_gatherv(std::span<const std::byte>, std::span<std::byte>, std::span<const std::int64_t>,
                  int) override {
    unsupported();
  }
  void do_allgather(std::span<const std::byte>, std::span<std::byte>) override { unsupported(); }
  void do_alltoall(std::span<const std::byte>, std::span<std::byte>) override { unsupported(); }
  void do_allreduce_max(std::span<std::int64_t>) override { unsupported(); }
  void do_compute(const Work& w) override {
    work.bytes_copied += w.bytes_copied;
    work.tuples += w.tuples;
  }
  void do_file_open(const std::string&) override {}
  void do_file_close() override {}
  void do_write_at(Offset offset, std::span<const std::byte> data) override {
    std::lock_guard lock(w_.mu);
    const auto end = static_cast<std::size_t>(offset) + data.size();
    if (w_.file.size() < end) w_.file.resize(end);
    std::memcpy(w_.file.data() + offset, data.data(), data.size());
    ++w_.writes;
  }
  void do_read_at(Offset, std::span<std::byte>) override { unsupported(); }
  void do_write_list(std::span<const Extent>, std::span<const std::byte>) override { unsupported(); }
  void do_read_list(std::span<const Extent>, std::span<std::byte>) override { unsupported(); }
  void do_file_sync() override {}
  void do_phase(const std::string& name) override { phases.push_back(name); }
  void do_operation(const std::string&) override {}

 private:
  struct Pending {
    int src;
    int tag;
    std::span<std::byte> buf;
  };
  [[noreturn]] static void unsupported() { throw std::logic_error("FakeProcess: not needed by these tests"); }
  void post(int dst, int tag, std::span<const std::byte> buf) {
    std::lock_guard lock(w_.mu);
    w_.mail[{rank_, dst, tag}].emplace_back(buf.begin(), buf.end());
    w_.cv.notify_all();
  }
  void take(int src, int tag, std::span<std::byte> buf) {
    std::unique_lock lock(w_.mu);
    auto& q = w_.mail[{src, rank_, tag}];
    if (!w_.cv.wait_for(lock, std::chrono::seconds(20), [&] { return !q.empty(); }))
      throw std::runtime_error("FakeProcess: receive timed out (deadlock?)");
    if (q.front().size() != buf.size()) throw std::runtime_error("FakeProcess: message size mismatch");
    std::memcpy(buf.data(), q.front().data(), buf.size());
    q.pop_front();
  }
  World& w_;
  int rank_;
  std::vector<Pending> pending_;
};

/// Runs fn(process) on every rank in its own thread; rethrows the first exception.
template <class Fn>
std::vector<std::unique_ptr<FakeProcess>> run_ranks(World& w, Fn fn) {
  std::vector<std::unique_ptr<FakeProcess>> procs;
  for (int r = 0; r < w.size; ++r) procs.push_back(std::make_unique<FakeProcess>(w, r));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(w.size));
  std::vector<std::thread> threads;
  for (int r = 0; r < w.size; ++r) {
    threads.emplace_back([&, r] {
      try {
        fn(*procs[static_cast<std::size_t>(r)]);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return procs;
}

/// A small deterministic generator for random test distributions (portable, unlike std::shuffle).
struct Lcg {
  std::uint64_t s;
  std::uint64_t below(std::uint64_t n) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (s >> 33) % n;
  }
};

/// A random partition of [0, nx) into np lists of nx/np entries each, in random storage order.
Distribution random_partition(std::int64_t nx, int np, std::uint64_t seed) {
  Lcg rng{seed};
  std::vector<std::int64_t> perm(static_cast<std::size_t>(nx));
  for (std::int64_t i = 0; i < nx; ++i) perm[static_cast<std::size_t>(i)] = i;
  for (std::int64_t i = nx - 1; i > 0; --i)
    std::swap(perm[static_cast<std::size_t>(i)], perm[rng.below(static_cast<std::uint64_t>(i) + 1)]);
  std::vector<std::vector<Tuple>> lists(static_cast<std::size_t>(np));
  for (std::int64_t i = 0; i < nx; ++i)
    lists[static_cast<std::size_t>(i / (nx / np))].push_back({perm[i], 1});
  return from_lists(nx, lists);
}

void require_iec_writes_x(const Distribution& d, std::int64_t es = 4) {
  REQUIRE(iec::check(d) == "");
  const std::vector<iec::RankPlan> plans = iec::inspect_all(d);
  CHECK(iec::simulate_file(d, plans, es) == expected_file(d, FileLayout::Logical, es));
}

}  // namespace

TEST_CASE("block-cyclic: the plans put every entry of x in place", "[iec][property]") {
  for (int np : {1, 2, 4, 8, 16, 32}) {
    for (std::int64_t bx : {1, 2, 3, 8}) {
      for (std::int64_t m : {1, 2, 3}) {
        const std::int64_t nx = static_cast<std::int64_t>(np) * np * bx * m;
        INFO("Nx=" << nx << " Np=" << np << " Bx=" << bx);
        const Distribution d = block_cyclic(nx, np, bx);
        require_iec_writes_x(d);
        // Every packing datatype is compact thanks to hvector replication: at most Np tuples per replica.
        for (const iec::RankPlan& p : iec::inspect_all(d)) CHECK(p.pack.tuples() <= np);
      }
    }
  }
  require_iec_writes_x(block_cyclic(256, 4, 4), 8);
  require_iec_writes_x(block_cyclic(64, 4, 2), 1);
}

TEST_CASE("irregular distributions: the plans put every entry of x in place", "[iec][property]") {
  for (int np : {1, 2, 4, 8, 16}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      for (std::int64_t m : {1, 3}) {
        INFO("Np=" << np << " seed=" << seed << " m=" << m);
        require_iec_writes_x(irregular(static_cast<std::int64_t>(np) * np * m * 2, np, seed));
      }
    }
  }
}

TEST_CASE("irregular distributions stored in random order (unsorted lists, many received runs)",
          "[iec][property]") {
  for (auto [nx, np] : {std::pair<std::int64_t, int>{4096, 4}, {8192, 8}, {2048, 2}}) {
    const Distribution sorted = irregular(nx, np, 11);
    Lcg rng{5};
    std::vector<std::vector<Tuple>> lists;
    for (const Datatype& dt : sorted.per_rank) {
      std::vector<Tuple> entries;
      for (const Tuple& t : dt.flatten())
        for (std::int64_t i = 0; i < t.length; ++i) entries.push_back({t.offset + i, 1});
      for (std::size_t i = entries.size() - 1; i > 0; --i) std::swap(entries[i], entries[rng.below(i + 1)]);
      lists.push_back(std::move(entries));
    }
    INFO("Nx=" << nx << " Np=" << np);
    require_iec_writes_x(from_lists(nx, std::move(lists)));
  }
}

TEST_CASE("check() accepts exactly what the inspector can deliver", "[iec][property]") {
  // Random partitions with random storage order; small enough that both outcomes occur.
  int accepted = 0;
  int rejected = 0;
  for (auto [nx, np] : {std::pair<std::int64_t, int>{8, 2}, {8, 4}, {16, 4}, {16, 8}, {32, 4}}) {
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
      const Distribution d = random_partition(nx, np, seed);
      const std::string why = iec::check(d);
      INFO("Nx=" << nx << " Np=" << np << " seed=" << seed << " check: " << why);
      if (why.empty()) {
        ++accepted;
        require_iec_writes_x(d);
      } else {
        ++rejected;
        CHECK_THAT(why, Catch::Contains("split evenly at every butterfly phase"));
        CHECK_THROWS_AS(iec::inspect_all(d), std::logic_error);
      }
    }
  }
  CHECK(accepted > 10);
  CHECK(rejected > 10);
}

TEST_CASE("the per-chunk condition is sufficient but not necessary", "[iec][property]") {
  // Rank 0 holds two entries of chunk 0 and none of chunk 1, yet the butterfly delivers every chunk.
  const Distribution d =
      from_lists(16, {{{0, 2}, {8, 2}}, {{4, 2}, {12, 2}}, {{2, 2}, {10, 2}}, {{6, 2}, {14, 2}}});
  require_iec_writes_x(d);
  // Nx=8, Np=4: Nx is not a multiple of Np^2, yet this distribution works too.
  require_iec_writes_x(
      from_lists(8, {{{0, 1}, {4, 1}}, {{2, 1}, {6, 1}}, {{1, 1}, {5, 1}}, {{3, 1}, {7, 1}}}));
}

TEST_CASE("check() rejects with a one-line reason naming the constraint", "[iec][property]") {
  const std::string np6 = iec::check(block_cyclic(72, 6, 1));
  CHECK_THAT(np6, Catch::Contains("power-of-two number of ranks") && Catch::Contains("Np=6") &&
                      Catch::Contains("valid: 1, 2, 4, 8"));
  const std::string bx4 = iec::check(block_cyclic(16, 4, 4));
  CHECK_THAT(bx4, Catch::Contains("Nx divisible by Np^2*Bx") && Catch::Contains("(Nx=16, Np=4)"));
  CHECK_THAT(bx4, Catch::Contains("in phase 0 rank 0 holds 4 entries of [0, 8) instead of Nx/(2*Np)=2"));
  CHECK_THROWS_AS(iec::inspect_all(block_cyclic(16, 4, 4)), std::logic_error);
  CHECK_THAT(iec::check(block_cyclic(12, 4, 1)), Catch::Contains("divisible by 2*Np"));
  Distribution dup = block_cyclic(16, 4, 1);
  dup.per_rank[1] = dup.per_rank[0];
  CHECK_THAT(iec::check(dup),
             Catch::StartsWith("IEC needs a partition of x: entry 0 of x is held by ranks 0 and 1"));
  const Distribution uneven = from_lists(16, {{{0, 5}}, {{5, 3}}, {{8, 4}}, {{12, 4}}});
  CHECK_THAT(iec::check(uneven), Catch::Contains("every rank to hold Nx/Np=4 entries (rank 0 holds 5)"));
  for (const std::string& why : {np6, bx4}) CHECK(why.find('\n') == std::string::npos);
  CHECK_THROWS_AS(iec::Inspector(block_cyclic(72, 6, 1), 0), std::invalid_argument);
}

TEST_CASE("on a Process: inspector and executor write x in order, with the expected calls",
          "[iec][process]") {
  for (auto [nx, np, bx] : {std::tuple<std::int64_t, int, std::int64_t>{64, 4, 1}, {256, 8, 2}, {32, 1, 1}}) {
    const Distribution d = block_cyclic(nx, np, bx);
    const std::vector<iec::RankPlan> reference = iec::inspect_all(d);
    World world(np);
    TechniqueInput in{&d, 4, "x.dat", 3, {}};
    std::vector<iec::RankPlan> plans(static_cast<std::size_t>(np));
    auto procs = run_ranks(world, [&](FakeProcess& p) {
      plans[static_cast<std::size_t>(p.rank())] = iec::inspect(p, d);
      technique("iec").run(p, in, make_local_data(d, p.rank(), 4));
    });
    INFO("Nx=" << nx << " Np=" << np << " Bx=" << bx);
    CHECK(world.file == expected_file(d, FileLayout::Logical, 4));
    CHECK(world.writes == np * 3);
    const int nph = iec::num_phases(np);
    for (int r = 0; r < np; ++r) {
      const auto& plan = plans[static_cast<std::size_t>(r)];
      const auto& ref = reference[static_cast<std::size_t>(r)];
      CHECK(plan.pack == ref.pack);
      CHECK(plan.file_offset == ref.file_offset);
      for (int ph = 0; ph < nph; ++ph) CHECK(plan.phases[ph].send == ref.phases[ph].send);
      const FakeProcess& p = *procs[static_cast<std::size_t>(r)];
      // Two inspections (ours and run's) exchange size + bundle per phase; three executions one message each.
      CHECK(p.counters().count(Call::Isend) == 2 * 2 * nph + 3 * nph);
      CHECK(p.counters().count(Call::Irecv) == 2 * 2 * nph + 3 * nph);
      CHECK(p.counters().count(Call::FileWrite) == 3);
      CHECK(p.counters().bytes_written == 3 * 4 * nx / np);
      CHECK(p.work.tuples > 0);
      CHECK(p.work.bytes_copied >= 3 * 4 * nx / np);
      std::vector<std::string> expected{"inspector", "inspector"};
      for (int it = 0; it < 3; ++it) {
        expected.push_back("place");  // the buffer allocated and the entries copied in, every execution
        for (int ph = 0; ph < nph; ++ph) expected.push_back("exchange" + std::to_string(ph));
        expected.push_back("pack");
        expected.push_back("write");
      }
      CHECK(p.phases == expected);
    }
  }
}

TEST_CASE("Block I/O writes each rank's entries contiguously in rank order", "[block][process]") {
  const Distribution d = irregular(64, 4, 7);
  World world(4);
  TechniqueInput in{&d, 4, "x.dat", 2, {}};
  auto procs = run_ranks(
      world, [&](FakeProcess& p) { technique("block").run(p, in, make_local_data(d, p.rank(), 4)); });
  CHECK(world.file == expected_file(d, FileLayout::RankMajor, 4));
  CHECK(world.writes == 8);
  for (const auto& p : procs) {
    CHECK(p->phases == std::vector<std::string>{"write", "write"});
    CHECK(p->counters().count(Call::Isend) == 0);
  }
  CHECK(block_io::rank_offset(d, 3) == 48);
  CHECK(block_io::check(d).empty());
  CHECK_THROWS_AS(run_ranks(world, [&](FakeProcess& p) { block_io::run(p, in, {}); }), std::invalid_argument);
}

TEST_CASE("technique registry, fill_entry and expected files", "[technique]") {
  std::vector<std::string> names;
  for (const TechniqueInfo& t : techniques()) names.push_back(t.name);
  REQUIRE(names == std::vector<std::string>{"iec", "iec-parametric", "block", "two-phase", "list-io",
                                            "independent", "gathered", "multiple-phase", "sequential",
                                            "view-based"});
  // View-based and two-phase keep state while the file is open (a Session: view-based its views and cached
  // blocks, two-phase the aggregators its open chose); the driver runs the others per call.
  for (const TechniqueInfo& t : techniques())
    CHECK(static_cast<bool>(t.session) == (t.name == "view-based" || t.name == "two-phase"));
  CHECK(technique("iec").layout == FileLayout::Logical);
  CHECK(technique("block").layout == FileLayout::RankMajor);
  CHECK_THAT(technique("iec").citation, Catch::Contains("Singh") && Catch::Contains("2009"));
  CHECK_THAT(technique("block").citation, Catch::Contains("Singh") && Catch::Contains("2009"));
  CHECK_FALSE(static_cast<bool>(technique("iec").read));  // IEC is a write technique
  for (const TechniqueInfo& t : techniques()) {
    CHECK_THAT(t.citation, Catch::Matches(".*(19|20)[0-9][0-9].*"));
    CHECK(t.description.size() > 100);
    CHECK(static_cast<bool>(t.check));
    CHECK(static_cast<bool>(t.run));
  }
  CHECK_THAT(technique("iec").check(block_cyclic(16, 4, 4)), Catch::Contains("Np^2*Bx"));
  try {
    technique("x");
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "unknown algorithm 'x' (valid: iec, iec-parametric, block, two-phase, list-io, independent, "
          "gathered, "
          "multiple-phase, sequential, view-based)");
  }

  std::vector<std::byte> four(4), two(2), twelve(12);
  fill_entry(0x01020304, four);
  CHECK(four == std::vector<std::byte>{std::byte{4}, std::byte{3}, std::byte{2}, std::byte{1}});
  fill_entry(0x0102, two);
  CHECK(two == std::vector<std::byte>{std::byte{2}, std::byte{1}});
  fill_entry(7, twelve);
  CHECK(twelve[0] == std::byte{7});
  CHECK(twelve[8] == std::byte{7});
  CHECK(twelve[1] == std::byte{0});

  const Distribution d = block_cyclic(8, 2, 2);  // rank 0: 0 1 4 5, rank 1: 2 3 6 7
  const std::vector<std::byte> local1 = make_local_data(d, 1, 1);
  CHECK(local1 == std::vector<std::byte>{std::byte{2}, std::byte{3}, std::byte{6}, std::byte{7}});
  const std::vector<std::byte> rank_major = expected_file(d, FileLayout::RankMajor, 1);
  CHECK(rank_major == std::vector<std::byte>{std::byte{0}, std::byte{1}, std::byte{4}, std::byte{5},
                                             std::byte{2}, std::byte{3}, std::byte{6}, std::byte{7}});
  const std::vector<std::byte> logical = expected_file(d, FileLayout::Logical, 2);
  REQUIRE(logical.size() == 16);
  for (int i = 0; i < 8; ++i) CHECK(logical[static_cast<std::size_t>(2 * i)] == std::byte(i));
}

TEST_CASE("local data and expected files hold fill_entry's bytes for every element size", "[technique]") {
  // Built whole values at a time where the host allows; byte for byte what fill_entry gives entry by entry,
  // with values past 2^32 and 2^56 (their high bytes) and a base.
  const std::vector<Distribution> dists{block_cyclic(96, 4, 3), block_cyclic(64, 2, 1), block3d(4, 6, 2, 4),
                                        irregular(72, 3, 7)};
  for (const std::int64_t es : {1, 2, 3, 4, 5, 8, 12, 16}) {
    for (const std::int64_t base : {std::int64_t{0}, std::int64_t{0x1234567890}, std::int64_t{1} << 57}) {
      INFO("element size " << es << ", base " << base);
      for (const Distribution& d : dists) {
        std::vector<std::byte> want_file;
        for (int r = 0; r < d.nprocs(); ++r) {
          std::vector<std::byte> want;
          const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
          for (std::int64_t k = 0; k < dt.size(); ++k) {  // element k is x[phy2log(dt, k)] (Fig. 9)
            std::vector<std::byte> e(static_cast<std::size_t>(es));
            fill_entry(base + phy2log(dt, k), e);
            want.insert(want.end(), e.begin(), e.end());
          }
          CHECK(make_local_data(d, r, es, base) == want);
          want_file.insert(want_file.end(), want.begin(), want.end());
        }
        CHECK(expected_file(d, FileLayout::RankMajor, es, base) == want_file);
        std::vector<std::byte> logical;
        for (std::int64_t i = 0; i < d.nx; ++i) {
          std::vector<std::byte> e(static_cast<std::size_t>(es));
          fill_entry(base + i, e);
          logical.insert(logical.end(), e.begin(), e.end());
        }
        CHECK(expected_file(d, FileLayout::Logical, es, base) == logical);
      }
    }
  }
}
