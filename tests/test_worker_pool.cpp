// WorkerPool (models/filesystem/worker_pool_sim.hpp) recycles a server's request actors; every request
// must start and end at the simulated instants, and in the order at equal instants, of an actor started
// per request. One SimGrid engine per TEST_CASE (ctest runs every TEST_CASE in its own process).
#include <algorithm>
#include <catch2/catch.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "models/filesystem/disk_ops_sim.hpp"
#include "models/filesystem/worker_pool_sim.hpp"
#include "tests/sim_engine.hpp"

namespace sg4 = simgrid::s4u;
using ciosim::filesystem::DiskOps;
using ciosim::filesystem::WorkerPool;

namespace {

struct Request {
  int client = 0;
  int index = 0;
  std::int64_t bytes = 0;
  sg4::Mailbox* reply = nullptr;
};

/// What happened, in the order the actors did it: (instant, what, client, request index).
using Events = std::vector<std::tuple<double, std::string, int, int>>;

/// Two servers and their clients on one host, sharing its CPU and disk; requests are served by an actor
/// each (the reference) or by the pool. A request takes the CPU (a mutex; 1 ms for every fourth request),
/// then writes `bytes` on the disk and replies.
struct Side {
  sg4::Host* host = nullptr;
  sg4::Disk* disk = nullptr;
  sg4::MutexPtr cpu;
  Events events;

  void note(const char* what, const Request* r) {
    events.emplace_back(sg4::Engine::get_clock(), what, r->client, r->index);
  }
  int serve(Request* r) {
    note("start", r);
    {
      std::unique_lock lock(*cpu);
      note("cpu", r);
      if (r->index % 4 == 0) sg4::this_actor::sleep_for(1e-3);
    }
    DiskOps ops(host);
    ops.run(disk, true, r->bytes);
    note("disk", r);
    const Request asked = *r;  // the client reuses *r once it has the reply
    r->reply->put(r, 0);
    note("replied", &asked);
    return ops.direct_issued();
  }
};

}  // namespace

TEST_CASE("a worker pool serves every request at the instants of an actor per request", "[model][pool]") {
  // Thread contexts: the servers and idle workers are daemons killed at the end (sim_engine.hpp).
  ciosim::test::SimEngine engine(ciosim::test::SimEngine::Contexts::threads);
  auto* zone = sg4::create_full_zone("zone");
  Side fresh, pooled;
  fresh.host = zone->create_host("fresh", 1e9);
  pooled.host = zone->create_host("pooled", 1e9);
  fresh.disk = fresh.host->create_disk("disk", 50e6, 20e6)->seal();
  pooled.disk = pooled.host->create_disk("disk", 50e6, 20e6)->seal();
  zone->seal();
  constexpr int kClients = 6;
  constexpr int kRequests = 120;
  long started = 0;
  for (Side* side : {&fresh, &pooled}) {
    side->cpu = sg4::Mutex::create();
    const bool pool = side == &pooled;
    const std::string tag = pool ? "pooled" : "fresh";
    // Two servers share the CPU and the disk, so that requests reaching both at one instant take the
    // CPU in the order their actors run.
    for (int k = 0; k < 2; ++k) {
      sg4::Actor::create("server", side->host, [side, pool, mailbox = tag + std::to_string(k), &started] {
        sg4::Actor::self()->daemonize();
        auto* mb = sg4::Mailbox::by_name(mailbox);
        WorkerPool workers(side->host, "worker");
        for (;;) {
          auto* r = mb->get<Request>();
          if (pool) {
            const long before = workers.started();
            workers.submit([side, r] { return side->serve(r); });
            started += workers.started() - before;
          } else {
            sg4::Actor::create("worker", side->host, [side, r] { side->serve(r); })->daemonize();
          }
        }
      });
    }
    // Clients send together every 20 ms, and messages of zero bytes on a loopback without latency take
    // no time: many steps of different requests fall on the same instant, where the order in which the
    // actors take them is what the pool must keep.
    for (int c = 0; c < kClients; ++c) {
      sg4::Actor::create("client", side->host, [side, c, tag] {
        // Four clients on server 0, two on server 1: their workers retire at different times, so that
        // a new worker on one server meets a reused one on the other.
        auto* server = sg4::Mailbox::by_name(tag + (c % 3 == 0 ? "1" : "0"));
        auto* reply = sg4::Mailbox::by_name(tag + "-reply" + std::to_string(c));
        for (int i = 0; i < kRequests; ++i) {
          if ((i + c) % (c + 2) == 0) continue;  // clients skip different ticks: workers retire apart
          Request r{c, i, (i % 5 + 1) * 4000, reply};
          sg4::this_actor::sleep_until(i * 20e-3);  // every 20 ms, all clients at once
          side->note("send", &r);
          server->put(&r, 0);
          reply->get<Request>();
          side->note("answered", &r);
        }
      });
    }
  }
  engine->run();
  REQUIRE(fresh.events.size() > 3 * kClients * kRequests);
  REQUIRE(pooled.events.size() == fresh.events.size());
  CHECK(pooled.events == fresh.events);  // (a worker started one scheduling round late fails here)
  // Steps of different requests did meet at equal instants.
  int together = 0;
  for (std::size_t i = 1; i < fresh.events.size(); ++i) {
    const auto& [t0, what0, c0, i0] = fresh.events[i - 1];
    const auto& [t1, what1, c1, i1] = fresh.events[i];
    together += t0 == t1 && c0 != c1 && what0 == what1 ? 1 : 0;
  }
  CHECK(together > kRequests);
  // Workers were reused, and retired after DiskOps::kDirect operations each (one per request here).
  const auto served = std::count_if(pooled.events.begin(), pooled.events.end(),
                                    [](const auto& e) { return std::get<1>(e) == "start"; });
  CHECK(started < served / 2);
  CHECK(started >= served / DiskOps::kDirect);
}
