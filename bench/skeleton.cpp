// The raw-SimGrid skeleton of an IEC run: the same SimGrid platform, the same messages and the same stripe
// writes as `ciosim run` with run.algorithm = iec on a block-cyclic workload with Bx = 1, but no algorithm
// (no inspector, no datatypes) and no payload (every message and every chunk is a size only). Running both on
// the same point and comparing wall time and peak memory gives what ciosim costs on top of SimGrid itself:
// bench/bench_skeleton.sh, docs/benchmarks.md.
//
// What it mirrors, activity for activity (so the simulated times agree; docs/benchmarks.md shows both):
//  - the platform: sim/platform.cpp's star zone for one network (MPI and PVFS on the same profile), every
//    server on a host of its own (pvfs.server_placement = dedicated, whatever the platform file says: it
//    says so on stderr), built here by hand with the project's own helpers (models/network/network_sim.hpp:
//    CM02, split-duplex NICs, message-size factors, the rendezvous latency factor) from the same platform
//    file. By hand, not with sim::build_platform, because that needs a World whose file system keeps the
//    file's bytes;
//  - the ranks (sim/simulate.cpp, sim/sim_process.cpp): a common start, open (a metadata round trip),
//    the IEC executor of algorithms/iec/iec_executor.cpp (per butterfly phase ph: the pack's CPU time,
//    isend + irecv of Nx/(2 Np) entries with rank r XOR 2^ph, waitall; then the pack of the chunk and one
//    contiguous write of Nx/Np entries at bitrev(r) Nx/Np), close. Eager messages go to mailboxes with a
//    permanent receiver and are held until they have ended (not detached), rendezvous ones are
//    put_async + wait, as SimProcess does;
//  - the PVFS model (models/pvfs/pvfs_sim.cpp): the same splitting by stripe (pvfs::split_by_stripe), a
//    metadata server as a receiving actor and one CPU worker replying detached, I/O servers that serve
//    each request in a recycled handler actor (models/filesystem/worker_pool_sim.hpp, plain S4U, as the
//    model does), a server CPU as a mutex, a request's flows of flow_buffer chunks with two
//    in flight driven together by the rank with wait_any, at most max_outstanding disk I/Os per server,
//    an acknowledgement after the last chunk is on disk. (The model hands a request's disk operations
//    past the 16th to helper actors, models/filesystem/disk_ops_sim.hpp; the skeleton's requests have a
//    few chunks each, so it issues them itself, as the model does below that count.)
// What it leaves out: the inspector (its messages and its CPU time: the ranks wait at a zero-cost
// barrier instead, so the executor's phases start together as they do after ciosim's inspector), every
// byte of payload, the file store and its verification, call counters, traces, the activity log.
// The CPU work the executor declares is charged as one execution per step, with the closed form that
// block-cyclic Bx = 1 gives: bytes/memcpy_Bps + tuples*tuple_cost_s with 2^ph tuples in exchange ph and
// Nx/Np in the pack (read off ciosim's phase CPU times; other Bx have other tuple counts).
//
// With --list-io BX it is instead the skeleton of run.algorithm = list-io on a block-cyclic workload with
// blocks of BX entries (algorithms/baselines/list_io.cpp): after the open, each rank writes its blocks in
// storage order in batches of --batch regions (hints.listio_batch, 64), charging each batch's tuples as
// one execution and sending it through the same PVFS request path, then closes. No exchanges, no
// inspector. The seed-000 study's List I/O points are thousands to millions of such requests, so this
// measures what SimGrid alone costs for them.
//
//   ciosim_skeleton PLATFORM.toml NP NX ELEMENT_SIZE [--nodes N] [--list-io BX [--batch N]] [--self-test]
//                   [--cfg=key:value ...]
//
// Prints one JSON object: the simulated time, each phase's time (the slowest rank's, as results.json's
// phases), the messages and bytes. --self-test exits 1 unless exchange0 equals its closed form.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "config/platform_file.hpp"
#include "config/resources.hpp"
#include "models/filesystem/worker_pool_sim.hpp"
#include "models/network/network_sim.hpp"
#include "models/pvfs/striping.hpp"

namespace sg4 = simgrid::s4u;
using namespace ciosim;

namespace {

constexpr double kHostSpeed = 1e9;  // sim/platform.cpp: CPU work is converted to flops at this speed
constexpr int kChunksInFlight = 2;  // models/pvfs/pvfs_sim.cpp: double buffering of the flow protocol
constexpr int kExchangeTagBase = 100;

struct Point {
  PlatformSpec ps;
  const NetworkProfile* net = nullptr;
  int np = 0;
  std::int64_t nx = 0;
  std::int64_t es = 0;
  std::int64_t bx = 0;  ///< --list-io: entries per block (0: the IEC skeleton)
  int batch = 64;       ///< --list-io: regions per request (hints.listio_batch)
};

/// One client-to-server request of the PVFS model, sizes only.
struct IoReq {
  std::int64_t bytes = 0;          ///< data bytes for this server
  std::int64_t pieces = 0;         ///< region descriptors in the request
  std::int64_t local_regions = 0;  ///< contiguous regions on the server (its CPU charge)
  sg4::Mailbox* data = nullptr;
  sg4::Mailbox* ack = nullptr;
};

struct MetaReq {
  sg4::Mailbox* reply = nullptr;
};

struct World {
  Point pt;
  sg4::Host* mds = nullptr;
  std::vector<sg4::Host*> iods;
  std::vector<sg4::Host*> rank_hosts;
  std::vector<sg4::ActorPtr> rank_actors;
  std::vector<std::vector<std::pair<std::string, double>>> marks;  ///< per rank: (phase, start)
  std::vector<double> end;
  /// Per rank: eager sends not yet waited for (held, not detached, as SimProcess holds them).
  std::vector<std::deque<sg4::CommPtr>> eager_sent;
  /// Per (rank, server): the data and acknowledgement mailboxes, looked up on first use.
  std::vector<std::pair<sg4::Mailbox*, sg4::Mailbox*>> pair_mailboxes;
  long messages = 0;
  double message_bytes = 0;
};

World* g = nullptr;  // the one world of this process (SimGrid allows one engine per process)

double now() {
  return sg4::Engine::get_clock();
}

std::int64_t bit_reverse(std::int64_t v, int bits) {
  std::int64_t out = 0;
  for (int b = 0; b < bits; ++b) out |= ((v >> b) & 1) << (bits - 1 - b);
  return out;
}

// ---- the platform: sim/platform.cpp with one network (a star zone) ----

void build_platform(World& w) {
  const PlatformSpec& ps = w.pt.ps;
  using Dir = sg4::LinkInRoute::Direction;
  network::use_flow_model();
  sg4::NetZone* zone = sg4::create_star_zone("cluster");
  struct Ends {
    sg4::Host* host;
    sg4::Link* loopback;
    sg4::SplitDuplexLink* nic;
  };
  std::vector<Ends> eps;
  for (int i = 0; i < ps.nodes; ++i) {
    const std::string id = std::to_string(i);
    sg4::Host* h = zone->create_host("node" + id, kHostSpeed)->set_core_count(ps.cpu_cores);
    eps.push_back({h, zone->create_link("lo" + id, ps.loopback_Bps)->set_latency(0)->seal(),
                   network::create_nic(zone, "nic" + id, *w.pt.net)});
  }
  const auto add_server = [&](const std::string& name) {
    sg4::Host* h = zone->create_host(name, kHostSpeed);
    eps.push_back({h, zone->create_link("lo-" + name, ps.loopback_Bps)->set_latency(0)->seal(),
                   network::create_nic(zone, "srv-" + name, *w.pt.net)});
    return h;
  };
  w.mds = add_server("mds");
  for (int k = 0; k < ps.pvfs.io_servers; ++k) {
    sg4::Host* h = add_server("iod" + std::to_string(k));
    h->create_disk("disk", ps.pvfs.disk_read_Bps, ps.pvfs.disk_write_Bps)->seal();
    w.iods.push_back(h);
  }
  for (const Ends& e : eps) {
    zone->add_route(e.host->get_netpoint(), nullptr, nullptr, nullptr, {{e.nic, Dir::UP}}, false);
    zone->add_route(nullptr, e.host->get_netpoint(), nullptr, nullptr, {{e.nic, Dir::DOWN}}, false);
    zone->add_route(e.host->get_netpoint(), e.host->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(e.loopback)}, false);
  }
  zone->seal();
  std::unordered_set<const sg4::Host*> servers(w.iods.begin(), w.iods.end());
  servers.insert(w.mds);
  network::apply_message_factors(w.pt.net, w.pt.net, servers);
  for (int r = 0; r < w.pt.np; ++r)
    w.rank_hosts.push_back(eps[static_cast<std::size_t>(r / ps.cores_per_node)].host);
}

// ---- the PVFS model's activities (models/pvfs/pvfs_sim.cpp), sizes only ----

sg4::Mailbox* server_mailbox(const sg4::Host* h) {
  return sg4::Mailbox::by_name("pvfs:" + h->get_name());
}

void charge_cpu(const sg4::MutexPtr& cpu, double seconds) {
  std::unique_lock lock(*cpu);
  sg4::this_actor::sleep_for(seconds);
}

/// Returns the disk operations it issued (all of them, itself), for the server's WorkerPool.
int serve_write(IoReq* req, const sg4::MutexPtr& cpu, const sg4::SemaphorePtr& slots) {
  const PvfsConfig& cfg = g->pt.ps.pvfs;
  sg4::Disk* disk = sg4::this_actor::get_host()->get_disks().front();
  charge_cpu(cpu, cfg.request_overhead_s + static_cast<double>(req->local_regions) * cfg.region_overhead_s);
  const std::int64_t n = (req->bytes + cfg.flow_buffer - 1) / cfg.flow_buffer;
  IoReq* token = nullptr;
  sg4::CommPtr next = n > 0 ? req->data->get_async<IoReq>(&token) : nullptr;
  for (std::int64_t i = 0; i < n; ++i) {
    next->wait();
    if (i + 1 < n) next = req->data->get_async<IoReq>(&token);
    const std::int64_t len = std::min(cfg.flow_buffer, req->bytes - i * cfg.flow_buffer);
    slots->acquire();
    disk->write(static_cast<sg_size_t>(len));
    slots->release();
  }
  req->ack->put(req, static_cast<std::uint64_t>(cfg.request_header));
  return static_cast<int>(n);
}

/// A request's flows, driven together (PvfsSim::run_flows): the request, then its chunks with two in
/// flight, then the acknowledgement.
void run_flows(std::vector<IoReq>& reqs, const std::vector<sg4::Host*>& to) {
  const PvfsConfig& cfg = g->pt.ps.pvfs;
  struct Flow {
    std::int64_t sent = 0;                               ///< bytes of chunks posted
    int stage = 0;                                       ///< 0 request, 1 data, 2 ack, 3 done
    std::array<sg4::CommPtr, kChunksInFlight> inflight;  ///< chunks posted, oldest at head (a ring)
    std::size_t head = 0, n = 0;
    sg4::CommPtr current;
    IoReq* token = nullptr;
  };
  std::vector<Flow> flows(reqs.size());
  for (std::size_t i = 0; i < reqs.size(); ++i)
    flows[i].current = server_mailbox(to[i])->put_async(
        &reqs[i], static_cast<std::uint64_t>(cfg.request_header + cfg.region_descriptor * reqs[i].pieces));
  auto advance = [&](Flow& f, IoReq& r) {
    while (f.sent < r.bytes && f.n < kChunksInFlight) {
      const std::int64_t len = std::min(cfg.flow_buffer, r.bytes - f.sent);
      f.inflight[(f.head + f.n++) % kChunksInFlight] = r.data->put_async(&r, static_cast<std::uint64_t>(len));
      f.sent += len;
    }
    if (f.n > 0) {
      f.stage = 1;
      f.current = f.inflight[f.head];
    } else {
      f.stage = 2;
      f.current = r.ack->get_async<IoReq>(&f.token);
    }
  };
  std::vector<sg4::CommPtr> waiting;
  std::vector<std::size_t> owner;
  for (;;) {
    waiting.clear();
    owner.clear();
    for (std::size_t i = 0; i < flows.size(); ++i)
      if (flows[i].stage != 3) {
        waiting.push_back(flows[i].current);
        owner.push_back(i);
      }
    if (waiting.empty()) return;
    const std::size_t i = owner[static_cast<std::size_t>(sg4::Comm::wait_any(waiting))];
    Flow& f = flows[i];
    if (f.stage == 1) {
      f.inflight[f.head] = nullptr;
      f.head = (f.head + 1) % kChunksInFlight;
      --f.n;
    }
    if (f.stage == 2)
      f.stage = 3;
    else
      advance(f, reqs[i]);
  }
}

/// One write of the PVFS model (PvfsSim::io): split by strip, the client's per-piece CPU time, then a
/// request per server touched, driven together. Each (rank, server) pair's mailboxes are looked up once.
void write_regions(int rank, std::span<const Extent> regions) {
  const PvfsConfig& cfg = g->pt.ps.pvfs;
  auto parts = pvfs::split_by_stripe(regions, cfg.stripe_size, cfg.io_servers);
  std::int64_t pieces = 0;
  for (const auto& p : parts) pieces += static_cast<std::int64_t>(p.pieces.size());
  if (pieces > 0) sg4::this_actor::sleep_for(static_cast<double>(pieces) * cfg.client_region_overhead_s);
  std::vector<IoReq> reqs(parts.size());
  std::vector<sg4::Host*> to;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::size_t pair =
        static_cast<std::size_t>(rank) * g->iods.size() + static_cast<std::size_t>(parts[i].server);
    if (!g->pair_mailboxes[pair].first) {
      const std::string id = std::to_string(rank) + ">" + std::to_string(parts[i].server);
      sg4::Mailbox* data = sg4::Mailbox::by_name("pvfs-data:" + id);
      sg4::Mailbox* ack = sg4::Mailbox::by_name("pvfs-ack:" + id);
      g->pair_mailboxes[pair] = {data, ack};
    }
    reqs[i] = IoReq{parts[i].bytes, static_cast<std::int64_t>(parts[i].pieces.size()), parts[i].local_regions,
                    g->pair_mailboxes[pair].first, g->pair_mailboxes[pair].second};
    to.push_back(g->iods[static_cast<std::size_t>(parts[i].server)]);
  }
  run_flows(reqs, to);
}

void write_contiguous(int rank, std::int64_t offset, std::int64_t bytes) {
  const Extent e{offset, bytes};
  write_regions(rank, std::span(&e, 1));
}

void metadata_round_trip(int rank) {
  auto* reply = sg4::Mailbox::by_name("pvfs-meta:" + std::to_string(rank));
  MetaReq req{reply};
  server_mailbox(g->mds)->put(&req, static_cast<std::uint64_t>(g->pt.ps.pvfs.request_header));
  reply->get<MetaReq>();
}

void start_servers() {
  auto queue = std::make_shared<std::deque<MetaReq*>>();
  auto queued = sg4::Semaphore::create(0);
  sg4::Actor::create("mds", g->mds, [queue, queued] {
    sg4::Actor::self()->daemonize();
    auto* mb = server_mailbox(g->mds);
    for (;;) {
      queue->push_back(mb->get<MetaReq>());
      queued->release();
    }
  });
  sg4::Actor::create("mds-cpu", g->mds, [queue, queued] {
    sg4::Actor::self()->daemonize();
    for (;;) {
      queued->acquire();
      MetaReq* req = queue->front();
      queue->pop_front();
      sg4::this_actor::sleep_for(g->pt.ps.pvfs.metadata_overhead_s);
      req->reply->put_init(req, static_cast<std::uint64_t>(g->pt.ps.pvfs.request_header))->detach();
    }
  });
  for (sg4::Host* h : g->iods)
    sg4::Actor::create(h->get_name(), h, [h] {
      sg4::Actor::self()->daemonize();
      auto cpu = sg4::Mutex::create();
      auto slots = sg4::Semaphore::create(static_cast<unsigned>(g->pt.ps.pvfs.max_outstanding));
      auto* mb = server_mailbox(h);
      filesystem::WorkerPool handlers(h, "iod-handler");
      for (;;) {
        auto* req = mb->get<IoReq>();
        handlers.submit([req, cpu, slots] { return serve_write(req, cpu, slots); });
      }
    });
}

// ---- a rank: sim/simulate.cpp's rank_main around algorithms/iec/iec_executor.cpp's execute ----

void compute(double seconds) {
  if (seconds > 0) sg4::this_actor::execute(seconds * sg4::this_actor::get_host()->get_speed());
}

sg4::Mailbox* mailbox(int src, int dst, int tag, bool eager) {
  sg4::Mailbox* mb = sg4::Mailbox::by_name((eager ? "e" : "r") + std::to_string(src) + ">" +
                                           std::to_string(dst) + "#" + std::to_string(tag));
  if (eager) mb->set_receiver(g->rank_actors[static_cast<std::size_t>(dst)]);
  return mb;
}

/// isend + irecv of `bytes` with `peer`, then waitall (sim/sim_process.cpp, sizes only).
void exchange(int rank, int peer, int tag, std::int64_t bytes) {
  const NetworkProfile& net = *g->pt.net;
  const bool eager = bytes <= net.eager_threshold;
  static int token = 0;
  sg4::this_actor::sleep_for(net.send_overhead_s);
  sg4::CommPtr send;
  auto& held = g->eager_sent[static_cast<std::size_t>(rank)];
  if (eager)
    held.push_back(mailbox(rank, peer, tag, true)->put_async(&token, static_cast<std::uint64_t>(bytes)));
  else
    send = mailbox(rank, peer, tag, false)->put_async(&token, static_cast<std::uint64_t>(bytes));
  int* in = nullptr;
  sg4::CommPtr recv = mailbox(peer, rank, tag, eager)->get_async<int>(&in);
  // SimProcess::do_wait: about to block, first wait for (and so drop) the eager sends already ended.
  auto wait = [&](const sg4::CommPtr& c) {
    if (c->get_finish_time() < 0)
      while (!held.empty() && held.front()->get_finish_time() >= 0) {
        held.front()->wait();
        held.pop_front();
      }
    c->wait();
  };
  if (send) wait(send);
  wait(recv);
  sg4::this_actor::sleep_for(net.recv_overhead_s);
  ++g->messages;
  g->message_bytes += static_cast<double>(bytes);
}

void rank_main(int r, const sg4::BarrierPtr& start, const sg4::BarrierPtr& inspector) {
  const Point& pt = g->pt;
  const PlatformSpec& ps = pt.ps;
  auto& marks = g->marks[static_cast<std::size_t>(r)];
  const auto phase = [&](std::string name) { marks.emplace_back(std::move(name), now()); };
  const std::int64_t chunk = pt.nx / pt.np;
  const std::int64_t half = pt.nx / (2 * static_cast<std::int64_t>(pt.np));
  const int nph = std::countr_zero(static_cast<unsigned>(pt.np));
  start->wait();
  phase("open");
  metadata_round_trip(r);
  phase("inspector");
  inspector->wait();  // stands in for the inspector: no messages, no CPU time
  for (int ph = 0; ph < nph; ++ph) {
    phase("exchange" + std::to_string(ph));
    compute(static_cast<double>(half * pt.es) / ps.memcpy_Bps +
            static_cast<double>(1 << ph) * ps.tuple_cost_s);
    exchange(r, r ^ (1 << ph), kExchangeTagBase + ph, half * pt.es);
  }
  phase("pack");
  compute(static_cast<double>(chunk * pt.es) / ps.memcpy_Bps + static_cast<double>(chunk) * ps.tuple_cost_s);
  phase("write");
  write_contiguous(r, bit_reverse(r, nph) * chunk * pt.es, chunk * pt.es);
  phase("close");
  metadata_round_trip(r);
  g->end[static_cast<std::size_t>(r)] = now();
  for (const sg4::CommPtr& c : g->eager_sent[static_cast<std::size_t>(r)]) c->wait();  // SimProcess::finish
}

/// A rank of list-io (algorithms/baselines/list_io.cpp): its block-cyclic blocks, one region each (they
/// never touch: another rank's block lies between), in batches of pt.batch; each batch's tuples charged
/// as one execution before its write.
void rank_main_list_io(int r, const sg4::BarrierPtr& start) {
  const Point& pt = g->pt;
  auto& marks = g->marks[static_cast<std::size_t>(r)];
  const auto phase = [&](std::string name) { marks.emplace_back(std::move(name), now()); };
  const std::int64_t block = pt.bx * pt.es;
  const std::int64_t blocks = pt.nx / pt.bx / pt.np;  // each rank's (main() checks that they divide)
  start->wait();
  phase("open");
  metadata_round_trip(r);
  phase("write");
  std::vector<Extent> regions;
  regions.reserve(static_cast<std::size_t>(pt.batch));
  for (std::int64_t k = 0; k < blocks; ++k) {
    regions.push_back(Extent{(k * pt.np + r) * block, block});
    if (static_cast<int>(regions.size()) == pt.batch || k + 1 == blocks) {
      compute(static_cast<double>(regions.size()) * pt.ps.tuple_cost_s);
      write_regions(r, regions);
      regions.clear();
    }
  }
  phase("close");
  metadata_round_trip(r);
  g->end[static_cast<std::size_t>(r)] = now();
}

/// Each phase's time as results.json gives it: the longest of the ranks' times in that phase.
std::vector<std::pair<std::string, double>> phase_maxima(const World& w) {
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t r = 0; r < w.marks.size(); ++r) {
    const auto& m = w.marks[r];
    for (std::size_t i = 0; i < m.size(); ++i) {
      const double t = (i + 1 < m.size() ? m[i + 1].second : w.end[r]) - m[i].second;
      if (r == 0)
        out.emplace_back(m[i].first, t);
      else
        out[i].second = std::max(out[i].second, t);
    }
  }
  return out;
}

int usage() {
  std::fprintf(
      stderr,
      "usage: ciosim_skeleton PLATFORM.toml NP NX ELEMENT_SIZE [--nodes N] [--list-io BX [--batch N]] "
      "[--self-test] [--cfg=key:value ...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return usage();
  World w;
  g = &w;
  bool self_test = false;
  std::vector<char*> engine_argv{argv[0]};
  try {
    w.pt.ps = config::load_platform_file(argv[1]).spec;
    if (w.pt.ps.pvfs.server_placement != "dedicated")
      std::fprintf(stderr,
                   "ciosim_skeleton: its PVFS servers have hosts of their own: it runs %s with "
                   "pvfs.server_placement = dedicated (compare with ciosim run so)\n",
                   argv[1]);
    w.pt.np = std::stoi(argv[2]);
    w.pt.nx = std::stoll(argv[3]);
    w.pt.es = std::stoll(argv[4]);
    w.pt.ps.nodes = (w.pt.np + w.pt.ps.cores_per_node - 1) / w.pt.ps.cores_per_node;
    for (int i = 5; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--nodes" && i + 1 < argc)
        w.pt.ps.nodes = std::stoi(argv[++i]);
      else if (a == "--list-io" && i + 1 < argc)
        w.pt.bx = std::stoll(argv[++i]) < 1 ? -1 : std::stoll(argv[i]);  // < 1 is refused below (0 is IEC)
      else if (a == "--batch" && i + 1 < argc)
        w.pt.batch = std::stoi(argv[++i]);
      else if (a == "--self-test")
        self_test = true;
      else if (a.rfind("--cfg=", 0) == 0)
        engine_argv.push_back(argv[i]);
      else
        return usage();
    }
    if (w.pt.bx != 0) {
      if (w.pt.bx < 1 || w.pt.np < 1 || w.pt.es < 1 || w.pt.batch < 1 || w.pt.nx % (w.pt.bx * w.pt.np) != 0)
        throw std::invalid_argument(
            "--list-io: BX >= 1, NP >= 1, ELEMENT_SIZE >= 1, --batch >= 1 and NX divisible by BX*NP");
      if (self_test)
        throw std::invalid_argument("--self-test checks the IEC skeleton's exchange0, not --list-io");
    } else if (w.pt.np < 2 || !std::has_single_bit(static_cast<unsigned>(w.pt.np)) ||
               w.pt.nx % (2 * w.pt.np) != 0 || w.pt.es < 1) {
      throw std::invalid_argument("NP must be a power of two >= 2, NX divisible by 2*NP, ELEMENT_SIZE >= 1");
    }
    if (w.pt.ps.network_mpi != w.pt.ps.network_io)
      throw std::invalid_argument(
          "the skeleton builds one network (a star zone): the platform's MPI and I/O "
          "networks must be the same profile");
    if (w.pt.np > w.pt.ps.nodes * w.pt.ps.cores_per_node)
      throw std::invalid_argument("NP ranks do not fit the nodes");
    w.pt.net = &network_profile(w.pt.ps.network_mpi, w.pt.ps.networks);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ciosim_skeleton: %s\n", e.what());
    return 2;
  }
  // The engine settings ciosim takes from CIOSIM_SIMGRID_CFG ("key:value;key:value"), so that both run on
  // the same context factory (the sanitizer CI sets contexts/factory:thread: ASan cannot follow SimGrid's
  // raw context switches).
  std::vector<std::string> env_cfg;
  for (const std::string& item : config::simgrid_cfg_items(config::simgrid_cfg()))
    env_cfg.push_back("--cfg=" + item);
  for (std::string& c : env_cfg) engine_argv.push_back(c.data());
  engine_argv.push_back(const_cast<char*>("--log=root.thresh:critical"));
  int eargc = static_cast<int>(engine_argv.size());
  engine_argv.push_back(nullptr);
  sg4::Engine engine(&eargc, engine_argv.data());
  build_platform(w);
  w.marks.resize(static_cast<std::size_t>(w.pt.np));
  w.end.assign(static_cast<std::size_t>(w.pt.np), 0);
  w.eager_sent.resize(static_cast<std::size_t>(w.pt.np));
  w.pair_mailboxes.resize(static_cast<std::size_t>(w.pt.np) * w.iods.size());
  start_servers();
  auto start = sg4::Barrier::create(static_cast<unsigned>(w.pt.np));
  auto inspector = sg4::Barrier::create(static_cast<unsigned>(w.pt.np));
  for (int r = 0; r < w.pt.np; ++r)
    w.rank_actors.push_back(sg4::Actor::create(
        "rank" + std::to_string(r), w.rank_hosts[static_cast<std::size_t>(r)], [r, start, inspector] {
          if (g->pt.bx > 0)
            rank_main_list_io(r, start);
          else
            rank_main(r, start, inspector);
        }));
  engine.run();
  if (std::any_of(w.end.begin(), w.end.end(), [](double t) { return t <= 0; })) {
    std::fprintf(stderr, "ciosim_skeleton: some ranks did not finish\n");
    return 1;
  }
  const auto phases = phase_maxima(w);
  double executor = 0;
  for (const auto& [name, t] : phases)
    if (name != "open" && name != "inspector" && name != "close") executor += t;
  std::printf(
      "{\"ranks\": %d, \"nx\": %lld, \"element_size\": %lld, \"bx\": %lld, \"sim_time_s\": %.17g, "
      "\"executor_s\": %.17g, \"messages\": %ld, \"message_bytes\": %.0f, \"phases\": {",
      w.pt.np, static_cast<long long>(w.pt.nx), static_cast<long long>(w.pt.es),
      static_cast<long long>(w.pt.bx), *std::max_element(w.end.begin(), w.end.end()), executor, w.messages,
      w.message_bytes);
  for (std::size_t i = 0; i < phases.size(); ++i)
    std::printf("%s\"%s\": %.17g", i ? ", " : "", phases[i].first.c_str(), phases[i].second);
  std::printf("}}\n");
  if (self_test) {
    // Exchange 0 of a lone pair (every NIC carries one flow each way): the pack's CPU time, then one
    // message as the profile's closed form gives it (overheads, latency per traversal, size / bandwidth).
    const double bytes = static_cast<double>(w.pt.nx / (2 * w.pt.np) * w.pt.es);
    const double expect =
        bytes / w.pt.ps.memcpy_Bps + w.pt.ps.tuple_cost_s + w.pt.net->lone_message_time(bytes);
    const double got = phases[2].second;
    const bool ok = phases[2].first == "exchange0" && std::abs(got - expect) <= 1e-9 * expect;
    std::fprintf(stderr, "self-test: exchange0 %.12g s, closed form %.12g s: %s\n", got, expect,
                 ok ? "ok" : "MISMATCH");
    if (!ok) return 1;
  }
  return 0;
}
