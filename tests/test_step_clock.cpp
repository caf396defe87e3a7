// The step clock (Process::record_steps): each compute() charge paired with the real time the code took
// before it, by the charge's site; code between two calls that charges nothing, by phase.
#include <catch2/catch.hpp>
#include <chrono>

#include "algorithms/common/process.hpp"

namespace {

using namespace ciosim;

/// A backend whose calls do nothing: the step clock lives in Process, above every backend.
class NullProcess final : public Process {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string host() const override { return "node0"; }

 protected:
  void do_send(int, int, std::span<const std::byte>) override {}
  void do_recv(int, int, std::span<std::byte>) override {}
  Request do_isend(int, int, std::span<const std::byte>) override { return Request{}; }
  Request do_irecv(int, int, std::span<std::byte>) override { return Request{}; }
  void do_wait(Request&) override {}
  void do_waitall(std::vector<Request>&) override {}
  int do_waitany(std::vector<Request>&) override { return -1; }
  void do_barrier() override {}
  void do_bcast(std::span<std::byte>, int) override {}
  void do_gather(std::span<const std::byte>, std::span<std::byte>, int) override {}
  void do_gatherv(std::span<const std::byte>, std::span<std::byte>, std::span<const std::int64_t>,
                  int) override {}
  void do_allgather(std::span<const std::byte>, std::span<std::byte>) override {}
  void do_alltoall(std::span<const std::byte>, std::span<std::byte>) override {}
  void do_allreduce_max(std::span<std::int64_t>) override {}
  void do_compute(const Work&) override {}
  void do_file_open(const std::string&) override {}
  void do_file_close() override {}
  void do_write_at(Offset, std::span<const std::byte>) override {}
  void do_read_at(Offset, std::span<std::byte>) override {}
  void do_write_list(std::span<const Extent>, std::span<const std::byte>) override {}
  void do_read_list(std::span<const Extent>, std::span<std::byte>) override {}
  void do_file_sync() override {}
  void do_phase(const std::string&) override {}
  void do_operation(const std::string&) override {}
};

/// Busy for `s` seconds of wall time (the code a charge stands for).
void busy(double s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
  while (std::chrono::steady_clock::now() < until) {
  }
}

template <class T>
void charge_in_template(Process& p, T tuples) {
  busy(0.001);
  p.compute(Work{0, static_cast<std::int64_t>(tuples)});
}

const StepTime* find(const std::vector<StepTime>& steps, const std::string& part) {
  for (const StepTime& s : steps)
    if (s.site.find(part) != std::string::npos) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("step clock: off by default, nothing recorded") {
  NullProcess p;
  p.phase("a");
  p.compute(Work{8, 2});
  p.barrier();
  CHECK(p.steps().empty());
}

TEST_CASE("step clock: a charge gets the code's time since the last call, by its site") {
  NullProcess p;
  p.record_steps(true);
  p.phase("work");
  p.barrier();
  busy(0.004);
  p.compute(Work{100, 7});  // charge A
  busy(0.002);
  p.compute(Work{50, 3});  // charge B: only the time since charge A
  charge_in_template(p, 5);
  const std::vector<StepTime> steps = p.steps();
  int sites_here = 0;
  for (const StepTime& s : steps)
    if (s.site.find("test_step_clock.cpp:") != std::string::npos) ++sites_here;
  REQUIRE(sites_here == 3);
  // Sites are "function, file:line"; the line tells A from B.
  const StepTime* a = nullptr;
  const StepTime* b = nullptr;
  for (const StepTime& s : steps)
    if (s.tuples == 7)
      a = &s;
    else if (s.tuples == 3)
      b = &s;
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  CHECK(a->charges == 1);
  CHECK(a->bytes_copied == 100);
  // Wall time is at least the busy time whatever the load (upper bounds would be flaky on a shared machine).
  CHECK(a->seconds >= 0.004);
  CHECK(b->seconds >= 0.002);
  CHECK(a->site.find("CATCH2_INTERNAL") == std::string::npos);
  // A function template's site is named without its arguments or template arguments.
  const StepTime* t = find(steps, "charge_in_template,");
  REQUIRE(t != nullptr);
  CHECK(t->site.find('<') == std::string::npos);
  CHECK(t->site.find('(') == std::string::npos);
  CHECK(t->seconds >= 0.001);
}

TEST_CASE("step clock: code between calls that charges nothing is reported by phase") {
  NullProcess p;
  p.record_steps(true);
  p.phase("exchange");
  p.barrier();
  busy(0.003);  // work without a charge, then a call
  p.barrier();
  p.phase("write");
  busy(0.001);  // ended by the next phase mark
  p.phase("close");
  const std::vector<StepTime> steps = p.steps();
  const StepTime* ex = find(steps, "uncharged code, phase exchange");
  const StepTime* wr = find(steps, "uncharged code, phase write");
  REQUIRE(ex != nullptr);
  REQUIRE(wr != nullptr);
  CHECK(ex->seconds >= 0.003);
  CHECK(ex->tuples == 0);
  CHECK(wr->seconds >= 0.001);
}

TEST_CASE("step clock: an operation mark ends a region as a phase mark does") {
  NullProcess p;
  p.record_steps(true);
  p.phase("write");
  p.operation("write 1");
  busy(0.002);  // uncharged code of phase write, ended by the next operation's mark
  p.operation("write 2");
  const std::vector<StepTime> steps = p.steps();
  const StepTime* un = find(steps, "uncharged code, phase write");
  REQUIRE(un != nullptr);
  CHECK(un->seconds >= 0.002);
}

TEST_CASE("step clock: a call ends the region, so work before it is not the next charge's") {
  NullProcess p;
  p.record_steps(true);
  p.phase("p");
  busy(0.003);
  p.barrier();            // the 3 ms go to the phase's uncharged code ...
  p.compute(Work{0, 1});  // ... and this charge gets only what ran after the barrier
  const std::vector<StepTime> steps = p.steps();
  const StepTime* un = find(steps, "uncharged code, phase p");
  REQUIRE(un != nullptr);
  CHECK(un->seconds >= 0.003);
  CHECK(un->charges == 1);  // one region: from the phase mark to the barrier
  const StepTime* charge = find(steps, "test_step_clock.cpp:");
  REQUIRE(charge != nullptr);
  CHECK(charge->charges == 1);
  CHECK(charge->tuples == 1);
}
