// The PVFS-style file system as S4U actors behind the file-system seam (parameters: pvfs_config.hpp;
// splitting: striping.hpp). Modelled after PVFS 1.6 / PVFS2 as described by Carns, Ligon, Ross, Thakur,
// "PVFS: A Parallel File System for Linux Clusters" (ALS 2000) and the PVFS2 flow protocol:
//  - a metadata server answers each rank's open and close with one request/reply, charging
//    metadata_overhead_s of its single CPU (so P ranks' opens queue there);
//  - a client splits each (list) request by strip and sends one request per I/O server touched, all
//    servers in parallel (the flows driven together by the rank's actor, run_flows);
//  - data then streams in flow_buffer-sized chunks with two chunks in flight (double buffering), so the
//    network and the disk are pipelined, not store-and-forward;
//  - a server decodes each request on its single CPU (requests queue there), charging a per-request and
//    a per-region cost, and keeps at most max_outstanding disk I/Os in flight;
//  - a disk with a geometry (disk_rpm, seek times) serves those one at a time in elevator order, each
//    contiguous range of the server's local file after a seek and rotation unless the head is already
//    there (models/filesystem/disk_sim.hpp); a disk without one shares its bandwidth among them;
//  - the servers run on hosts of their own, or (pvfs.server_placement = compute-nodes) beside compute
//    nodes: a server's messages then cross its node's NIC (shared with the node's ranks' file traffic, and
//    their MPI traffic when one network carries both), its node's own ranks reach it through the node's
//    loopback, and its CPU work (decoding, its page cache's copies) runs on the node's cores beside the
//    ranks' CPU work;
//  - without a page cache (pvfs.page_cache_bytes = 0) writes are acknowledged after the last chunk is
//    on disk; with one, each server's page cache (models/filesystem/page_cache_sim.hpp) takes each chunk's
//    ranges at the server's memory copy speed (beside the request decoding) and writes them back as Linux
//    does (PVFS 1 iods and PVFS2's default TroveSyncData = no write through the page cache without syncing);
//    a sync sends every server a flush, answered once that server's dirty data is on disk; close does not
//    flush.
#include "models/pvfs/pvfs_sim.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <tuple>

#include "models/filesystem/disk_ops_sim.hpp"
#include "models/filesystem/server_cpu_sim.hpp"
#include "models/filesystem/worker_pool_sim.hpp"
#include "models/pvfs/striping.hpp"

namespace ciosim::pvfs {

struct PvfsSim::IoRequest {
  bool write = true;
  int rank = -1;                ///< the client
  sg4::Host* client = nullptr;  ///< its host
  ServerPart part;
  const std::byte* wdata = nullptr;  ///< client buffer (write), regions back to back
  std::byte* rdata = nullptr;        ///< client buffer (read)
  sg4::Mailbox* data = nullptr;      ///< chunks of this request
  sg4::Mailbox* ack = nullptr;       ///< write acknowledgement
  bool flush = false;                ///< a flush (sync): no data, answered once the cache is on disk
};

namespace {

using IoRequest = PvfsSim::IoRequest;

struct MetaRequest {
  sg4::Mailbox* reply = nullptr;
  int rank = -1;
  const char* what = "open";
};

constexpr int kChunksInFlight = 2;  // double buffering of the flow protocol

/// The chunks a flow has in flight, oldest first: at most kChunksInFlight, kept in place (a std::deque
/// allocated its blocks for every flow of every request).
class InFlight {
 public:
  using Chunk = std::pair<sg4::CommPtr, std::int64_t>;  ///< the chunk's communication, its bytes
  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] bool empty() const { return n_ == 0; }
  Chunk& front() { return slots_[head_]; }
  void pop_front() {
    slots_[head_] = Chunk{};
    head_ = (head_ + 1) % kChunksInFlight;
    --n_;
  }
  void emplace_back(sg4::CommPtr c, std::int64_t bytes) {
    slots_[(head_ + n_) % kChunksInFlight] = Chunk{std::move(c), bytes};
    ++n_;
  }
  /// Calls fn(comm, bytes) for each, oldest first.
  template <class Fn>
  void for_each(Fn fn) {
    for (std::size_t i = 0; i < n_; ++i) {
      Chunk& c = slots_[(head_ + i) % kChunksInFlight];
      fn(c.first, c.second);
    }
  }

 private:
  std::array<Chunk, kChunksInFlight> slots_{};
  std::size_t head_ = 0;
  std::size_t n_ = 0;
};

std::int64_t chunks_of(std::int64_t bytes, std::int64_t fb) {
  return (bytes + fb - 1) / fb;
}

/// Walks a part's stream in consecutive ranges: for_range(to, fn) calls fn(piece, offset_in_piece, length)
/// for the stream bytes from where the previous call stopped up to `to`, resuming at the piece it reached
/// (a long request's chunks would otherwise rescan its pieces from the first, quadratic in its stripes).
class StreamCursor {
 public:
  explicit StreamCursor(const ServerPart& part) : part_(part) {}
  template <class Fn>
  void for_range(std::int64_t to, Fn fn) {
    while (from_ < to && next_ < part_.pieces.size()) {
      const Piece& p = part_.pieces[next_];
      const std::int64_t b = std::min(to, start_ + p.length);
      if (b > from_) fn(p, from_ - start_, b - from_);
      from_ = b;
      if (b == start_ + p.length) {
        start_ += p.length;
        ++next_;
      }
    }
  }

 private:
  const ServerPart& part_;
  std::size_t next_ = 0;    ///< the piece holding stream byte from_
  std::int64_t start_ = 0;  ///< its first stream byte
  std::int64_t from_ = 0;   ///< where the next range starts
};

sg4::Mailbox* server_mailbox(const sg4::Host* h) {
  return sg4::Mailbox::by_name("pvfs:" + h->get_name());
}

double now() {
  return sg4::Engine::get_clock();
}

}  // namespace

void PvfsSim::charge_cpu(std::size_t k, const sg4::MutexPtr& cpu, double seconds) {
  std::unique_lock lock(*cpu);
  const double t0 = now();
  filesystem::spend_cpu(iod_node_[k], seconds);
  log().busy(iod_cpu_[k], t0, now());
}

int PvfsSim::serve_io(IoRequest* req, const sg4::MutexPtr& cpu, const sg4::SemaphorePtr& disk_slots) {
  const PvfsConfig& cfg = cfg_;
  const double arrived = now();
  // The client frees req once the last chunk or the acknowledgement reached it: what the records need
  // after that is copied now.
  const sg4::Host* rank_host = req->client;
  const bool writing = req->write;
  const bool flushing = req->flush;
  const int client_rank = req->rank;
  const auto k = static_cast<std::size_t>(req->part.server);
  filesystem::DiskSim& disk = *disks_[k];
  filesystem::DiskOps disk_ops(sg4::this_actor::get_host());  // a long request's chunks: disk_ops_sim.hpp
  std::vector<Extent> local;  // the chunk's ranges of the server's local file, joined where adjacent
  // One chunk: a disk without position moves its bytes as one operation; a disk with one serves each
  // range of the local file (where the head must go) as an operation of its own.
  filesystem::PageCacheSim* cache = caches_.empty() ? nullptr : caches_[k].get();
  auto disk_op = [&](std::int64_t bytes) {
    disk_slots->acquire();
    if (cache) {
      for (const Extent& e : local) {
        if (writing)
          cache->write(e.offset, e.length);
        else
          cache->read(disk_ops, e.offset, e.length);
      }
    } else if (!disk.positioned()) {
      disk_io(disk, disk_ops, writing, 0, bytes, disk_actor_[k], disk_res_[k]);
    } else {
      for (const Extent& e : local)
        disk_io(disk, disk_ops, writing, e.offset, e.length, disk_actor_[k], disk_res_[k]);
    }
    disk_slots->release();
  };
  charge_cpu(k, cpu,
             cfg.request_overhead_s + static_cast<double>(req->part.local_regions) * cfg.region_overhead_s);
  const std::int64_t total = req->part.bytes;
  const std::int64_t fb = cfg.flow_buffer;
  const std::int64_t n = chunks_of(total, fb);
  StreamCursor stream(req->part);
  std::vector<filesystem::Placement> chunk;  // the file ranges of one chunk
  auto chunk_ranges = [&](std::int64_t to) -> std::span<const filesystem::Placement> {
    chunk.clear();
    local.clear();
    // Only a head or a cache needs to know where the chunk's bytes lie on the server.
    const bool wants_local = disk.positioned() || cache;
    stream.for_range(to, [&](const Piece& p, std::int64_t off, std::int64_t len) {
      chunk.push_back(filesystem::Placement{p.file_offset + off, p.data_offset + off, len});
      if (!wants_local) return;
      const Offset at = p.local_offset + off;
      if (!local.empty() && local.back().offset + local.back().length == at)
        local.back().length += len;
      else
        local.push_back(Extent{at, len});
    });
    return chunk;
  };
  if (req->write) {
    IoRequest* token = nullptr;
    sg4::CommPtr next = n > 0 ? req->data->get_async<IoRequest>(&token) : nullptr;
    for (std::int64_t i = 0; i < n; ++i) {
      next->wait();
      if (i + 1 < n) next = req->data->get_async<IoRequest>(&token);  // receive the next chunk meanwhile
      const std::int64_t a = i * fb;
      const std::int64_t b = std::min(total, a + fb);
      file().write_ranges(chunk_ranges(b), req->wdata);
      disk_op(b - a);
    }
    if (flushing && cache) cache->flush();
    req->ack->put(req, static_cast<std::uint64_t>(cfg.request_header));
  } else {
    InFlight inflight;  // chunks sent
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int64_t a = i * fb;
      const std::int64_t b = std::min(total, a + fb);
      const std::span<const filesystem::Placement> ranges = chunk_ranges(b);
      disk_op(b - a);
      file().read_ranges(ranges, req->rdata);
      if (inflight.size() == kChunksInFlight) {
        inflight.front().first->wait();
        record_transfer(iod_nic(k), rank_host, inflight.front().first, inflight.front().second);
        inflight.pop_front();
      }
      inflight.emplace_back(req->data->put_async(req, static_cast<std::uint64_t>(b - a)), b - a);
    }
    inflight.for_each([&](const sg4::CommPtr& c, std::int64_t bytes) {
      c->wait();
      record_transfer(iod_nic(k), rank_host, c, bytes);
    });
  }
  log().span(iod_actor_[k],
             flushing  ? "flush"
             : writing ? "write"
                       : "read",
             arrived, now(), total, client_rank);
  return disk_ops.direct_issued();
}

/// A request's flows to its servers, driven together by the calling rank's actor (no actor per flow):
/// each flow sends its request, then its data chunks with kChunksInFlight in flight and waits for the
/// acknowledgement (write), or receives its chunks one after the other (read). Every step starts the
/// moment the one before it ends, as when each flow had an actor of its own.
void PvfsSim::run_flows(std::span<const std::unique_ptr<IoRequest>> reqs) {
  const PvfsConfig& cfg = cfg_;
  enum class Stage { Request, Data, Ack, Done };
  struct Flow {
    IoRequest* req = nullptr;
    const sg4::Host* server = nullptr;  ///< where its traffic is recorded: the server's NIC's host
    Stage stage = Stage::Request;
    std::int64_t chunks = 0;  ///< chunks of the request
    std::int64_t next = 0;    ///< next chunk to send (write) or receive (read)
    InFlight inflight;        ///< write: chunks sent
    sg4::CommPtr current;     ///< what the flow waits for now (the oldest chunk in flight when writing)
    IoRequest* token = nullptr;
  };
  std::vector<Flow> flows(reqs.size());
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    Flow& f = flows[i];
    f.req = reqs[i].get();
    f.server = iod_nic(static_cast<std::size_t>(f.req->part.server));
    f.chunks = chunks_of(f.req->part.bytes, cfg.flow_buffer);
    const auto header = static_cast<std::uint64_t>(
        cfg.request_header + cfg.region_descriptor * static_cast<std::int64_t>(f.req->part.pieces.size()));
    f.current = iod_mailbox_[static_cast<std::size_t>(f.req->part.server)]->put_async(f.req, header);
  }
  auto send_chunk = [&](Flow& f) {
    const std::int64_t len = std::min(cfg.flow_buffer, f.req->part.bytes - f.next * cfg.flow_buffer);
    f.inflight.emplace_back(f.req->data->put_async(f.req, static_cast<std::uint64_t>(len)), len);
    ++f.next;
  };
  // After its request or a chunk: the flow's next step.
  auto advance = [&](Flow& f) {
    if (f.req->write) {
      while (f.next < f.chunks && f.inflight.size() < kChunksInFlight) send_chunk(f);
      if (!f.inflight.empty()) {
        f.stage = Stage::Data;
        f.current = f.inflight.front().first;
      } else {
        f.stage = Stage::Ack;
        f.current = f.req->ack->get_async<IoRequest>(&f.token);
      }
    } else if (f.next < f.chunks) {
      f.stage = Stage::Data;
      f.current = f.req->data->get_async<IoRequest>(&f.token);
      ++f.next;
    } else {
      f.stage = Stage::Done;
    }
  };
  std::vector<sg4::CommPtr> waiting;
  std::vector<std::size_t> owner;
  for (;;) {
    waiting.clear();
    owner.clear();
    for (std::size_t i = 0; i < flows.size(); ++i) {
      if (flows[i].stage == Stage::Done) continue;
      waiting.push_back(flows[i].current);
      owner.push_back(i);
    }
    if (waiting.empty()) return;
    const auto ready = sg4::Comm::wait_any(waiting);
    Flow& f = flows[owner[static_cast<std::size_t>(ready)]];
    switch (f.stage) {
      case Stage::Request:
        advance(f);
        break;
      case Stage::Data:
        if (f.req->write) {
          record_transfer(f.req->client, f.server, f.inflight.front().first, f.inflight.front().second);
          f.inflight.pop_front();
        }
        advance(f);
        break;
      case Stage::Ack:
        f.stage = Stage::Done;
        break;
      case Stage::Done:
        break;
    }
  }
}

void PvfsSim::io(int rank, std::span<const Extent> regions, const std::byte* wdata, std::byte* rdata,
                 bool flush) {
  const PvfsConfig& cfg = cfg_;
  auto parts = split_by_stripe(regions, cfg.stripe_size, static_cast<int>(iods_.size()));
  if (flush) {
    parts.assign(iods_.size(), ServerPart{});
    for (std::size_t k = 0; k < parts.size(); ++k) parts[k].server = static_cast<int>(k);
  }
  std::int64_t pieces = 0;
  for (const auto& p : parts) pieces += static_cast<std::int64_t>(p.pieces.size());
  const double client_cpu = static_cast<double>(pieces) * cfg.client_region_overhead_s;
  if (client_cpu > 0) sg4::this_actor::sleep_for(client_cpu);

  // A rank has at most one request in flight per server (this call returns when all are complete), so
  // the data and ack mailboxes of a (rank, server) pair are reused from request to request.
  std::vector<std::unique_ptr<IoRequest>> reqs;
  const auto servers = static_cast<std::size_t>(iods_.size());
  for (auto& part : parts) {
    const std::size_t pair = static_cast<std::size_t>(rank) * servers + static_cast<std::size_t>(part.server);
    if (pair >= pair_mailboxes_.size() || !pair_mailboxes_[pair].first) {
      // Looked up by name once per pair, not per request. Mailbox::by_name is a simcall, during which
      // other ranks run and may grow the table: no reference into it is held across the lookups.
      const std::string id = std::to_string(rank) + ">" + std::to_string(part.server);
      sg4::Mailbox* data = sg4::Mailbox::by_name("pvfs-data:" + id);
      sg4::Mailbox* ack = sg4::Mailbox::by_name("pvfs-ack:" + id);
      if (pair >= pair_mailboxes_.size()) pair_mailboxes_.resize(pair + 1);
      pair_mailboxes_[pair] = {data, ack};
    }
    const auto [data, ack] = pair_mailboxes_[pair];
    auto req = std::make_unique<IoRequest>();
    req->write = wdata != nullptr;
    req->rank = rank;
    req->client = sg4::this_actor::get_host();
    req->wdata = wdata;
    req->rdata = rdata;
    req->data = data;
    req->ack = ack;
    req->flush = flush;
    req->part = std::move(part);
    reqs.push_back(std::move(req));
  }
  run_flows(reqs);
}

void PvfsSim::metadata_round_trip(int rank, const char* what) {
  auto* reply = sg4::Mailbox::by_name("pvfs-meta:" + std::to_string(rank));
  MetaRequest req{reply, rank, what};
  const auto header = static_cast<std::uint64_t>(cfg_.request_header);
  server_mailbox(mds_)->put(&req, header);
  reply->get<MetaRequest>();
}

bool PvfsSim::servers_beside_nodes() const {
  return cfg_.server_placement == "compute-nodes";
}

void PvfsSim::build(const filesystem::PlatformHooks& platform) {
  using activity::ActorKind;
  using activity::ResourceKind;
  const bool beside = servers_beside_nodes();
  const auto nodes = static_cast<int>(platform.nodes.size());
  // Beside compute nodes: the server's own host (for routing) and the node whose cores it uses.
  auto add = [&](const std::string& name, int node) -> std::pair<sg4::Host*, sg4::Host*> {
    if (!beside) return {platform.add_server(name), nullptr};
    return {platform.add_server_beside(name, node), platform.nodes[static_cast<std::size_t>(node)]};
  };
  std::tie(mds_, mds_node_) = add("mds", 0);
  mds_actor_ = log().actor(ActorKind::Server, "mds", "mds");
  mds_cpu_ = log().resource(ResourceKind::ServerCpu, "mds cpu", "mds");
  for (int k = 0; k < cfg_.io_servers; ++k) {
    const std::string name = "iod" + std::to_string(k);
    const auto [h, node] = add(name, k % nodes);
    iod_node_.push_back(node);
    sg4::Disk* disk = h->create_disk("disk", cfg_.disk_read_Bps, cfg_.disk_write_Bps)->seal();
    disks_.push_back(
        std::make_unique<filesystem::DiskSim>(disk, cfg_.disk, cfg_.disk_read_Bps, cfg_.disk_write_Bps));
    if (cfg_.cache.enabled())
      caches_.push_back(std::make_unique<filesystem::PageCacheSim>(
          cfg_.cache, h,
          [this, k](filesystem::DiskOps& ops, bool write, Offset position, std::int64_t bytes) {
            const auto i = static_cast<std::size_t>(k);
            disk_io(*disks_[i], ops, write, position, bytes, disk_actor_[i], disk_res_[i]);
          },
          node));
    iods_.push_back(h);
    iod_mailbox_.push_back(server_mailbox(h));
    iod_actor_.push_back(log().actor(ActorKind::Server, name, name));
    iod_cpu_.push_back(log().resource(ResourceKind::ServerCpu, name + " cpu", name));
    disk_actor_.push_back(log().actor(ActorKind::Disk, name + " disk", name));
    disk_res_.push_back(log().resource(ResourceKind::Disk, name + " disk", name));
  }
}

void PvfsSim::start() {
  // The metadata server: one actor receives the requests, one at a time as they arrive, and queues them;
  // one worker serves the queue in arrival order, as the server's single CPU does (a request's span
  // runs from its arrival, queueing included), and sends each reply detached, so that it is already
  // serving the next request while the reply travels. Two actors in all, whatever the number of ranks.
  auto queue = std::make_shared<std::deque<std::pair<MetaRequest*, double>>>();  // request, arrival
  auto queued = sg4::Semaphore::create(0);
  sg4::Actor::create("mds", mds_, [this, queue, queued] {
    sg4::Actor::self()->daemonize();
    auto* mb = server_mailbox(mds_);
    for (;;) {
      auto* req = mb->get<MetaRequest>();
      queue->emplace_back(req, now());
      queued->release();
    }
  });
  sg4::Actor::create("mds-cpu", mds_, [this, queue, queued] {
    sg4::Actor::self()->daemonize();
    for (;;) {
      queued->acquire();
      const auto [req, arrived] = queue->front();
      queue->pop_front();
      const double t0 = now();
      filesystem::spend_cpu(mds_node_, cfg_.metadata_overhead_s);
      log().busy(mds_cpu_, t0, now());
      log().span(mds_actor_, req->what, arrived, now(), 0, req->rank);
      req->reply->put_init(req, static_cast<std::uint64_t>(cfg_.request_header))->detach();
    }
  });
  for (auto& cache : caches_) cache->start();
  for (sg4::Host* h : iods_) {
    sg4::Actor::create(h->get_name(), h, [this, h, slots = cfg_.max_outstanding] {
      sg4::Actor::self()->daemonize();
      auto cpu = sg4::Mutex::create();
      auto disk_slots = sg4::Semaphore::create(static_cast<unsigned>(slots));
      auto* mb = server_mailbox(h);
      filesystem::WorkerPool handlers(h, "iod-handler");  // a request per worker at a time
      for (;;) {
        auto* req = mb->get<IoRequest>();
        handlers.submit([this, req, cpu, disk_slots] { return serve_io(req, cpu, disk_slots); });
      }
    });
  }
}

void PvfsSim::open(int rank) {
  metadata_round_trip(rank, "open");
}
void PvfsSim::close(int rank) {
  metadata_round_trip(rank, "close");
}

void PvfsSim::write(int rank, std::span<const Extent> regions, std::span<const std::byte> data) {
  io(rank, regions, data.data() ? data.data() : reinterpret_cast<const std::byte*>(""), nullptr);
}

void PvfsSim::read(int rank, std::span<const Extent> regions, std::span<std::byte> data) {
  io(rank, regions, nullptr, data.data());
}

void PvfsSim::sync(int rank) {
  if (caches_.empty()) return;
  io(rank, {}, reinterpret_cast<const std::byte*>(""), nullptr, true);
}

}  // namespace ciosim::pvfs
