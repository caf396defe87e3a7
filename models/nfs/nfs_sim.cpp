// NFSv3 as S4U actors: the "Sec NFS" baseline of Singh et al., "Multiple-Phase Collective I/O" (a file
// on one NFS server, reached over the I/O network). Modelled after the protocol (Callaghan, Pawlowski,
// Staubach, RFC 1813 "NFS Version 3 Protocol Specification") and the Linux client and server:
//  - a client cuts each region of a read or write at rsize/wsize boundaries of the file (the Linux
//    client sends page-cache pages in rsize/wsize-aligned groups) and keeps at most max_outstanding
//    RPCs in flight (the RPC transport's slot table), paying client_rpc_overhead_s of CPU per RPC;
//  - every call and reply carries rpc_header bytes besides its data, over the I/O network;
//  - the server serves at most server_threads RPCs at once (nfsd threads) and decodes them one at a
//    time on its single CPU (rpc_overhead_s each);
//  - commit = "sync": a WRITE is answered once its data is on the server's disk; commit = "async": a
//    WRITE is answered once its data is in the server's memory, the disk writes the data in arrival
//    order meanwhile (a disk with position: what is queued, in the elevator's order, up to the block
//    layer's queue depth), and a COMMIT RPC (at close and at sync) is answered once all the data received
//    before it is on disk.
//    The server's memory is not bounded (Linux would throttle writers above its dirty-page limit);
//  - with a page cache (nfs.page_cache_bytes > 0) the server's memory is that cache
//    (models/filesystem/page_cache_sim.hpp): an UNSTABLE WRITE copies its data in (nfsd's own time),
//    waiting while the dirty limit is reached, and Linux's writeback writes it to disk; a COMMIT, or every
//    WRITE when commit = "sync", waits until the cache's dirty data is on disk (fsync); a READ is served
//    from the cache where it holds the data;
//  - without one, a READ reads its data from the disk and returns it in the reply;
//  - open is one round trip (LOOKUP + GETATTR as one RPC); close sends a COMMIT when commit = "async"
//    and nothing otherwise;
//  - without a client page cache (nfs.client_page_cache_bytes = 0) a client's write returns once its
//    WRITEs are answered. With one, the node's page cache (models/filesystem/page_cache_sim.hpp) takes the
//    write at the node's memory copy speed and its flusher sends the dirty pages as WRITEs (cut at wsize,
//    max_outstanding in flight, whole pages but never past the end of the file) when Linux's writeback
//    would; close and sync first write back everything dirty and wait for the replies (close-to-open
//    consistency: the Linux client flushes a file at close), then COMMIT; a read is served from the
//    node's cache where it holds the data, READs fetching the rest. The ranks of a node share its cache.
#include "models/nfs/nfs_sim.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "models/filesystem/worker_pool_sim.hpp"

namespace ciosim::nfs {

struct NfsSim::Rpc {
  enum class Op { Null, Write, Read, Commit } op = Op::Null;
  Offset file_offset = 0;
  std::int64_t length = 0;
  const std::byte* wdata = nullptr;
  std::byte* rdata = nullptr;
  sg4::Mailbox* reply = nullptr;
  int rank = -1;                ///< the client
  sg4::Host* client = nullptr;  ///< its host
};

namespace {

sg4::Mailbox* server_mailbox() {
  return sg4::Mailbox::by_name("nfs");
}

sg4::Mailbox* reply_mailbox(int rank) {
  return sg4::Mailbox::by_name("nfs-reply:" + std::to_string(rank));
}

double now() {
  return sg4::Engine::get_clock();
}

/// Dirty writes the flusher takes at once on a disk with position: Linux's default block-layer queue
/// depth (nr_requests = 128, Documentation/block/queue-sysfs.rst), the most requests its elevator orders.
constexpr std::size_t kElevatorBatch = 128;

const char* op_name(NfsSim::Rpc::Op op) {
  switch (op) {
    case NfsSim::Rpc::Op::Write:
      return "write";
    case NfsSim::Rpc::Op::Read:
      return "read";
    case NfsSim::Rpc::Op::Commit:
      return "commit";
    case NfsSim::Rpc::Op::Null:
      break;
  }
  return "lookup";
}

}  // namespace

void NfsSim::build(const filesystem::PlatformHooks& platform) {
  server_ = platform.add_server("nfs");
  sg4::Disk* disk = server_->create_disk("disk", cfg_.disk_read_Bps, cfg_.disk_write_Bps)->seal();
  disk_ = std::make_unique<filesystem::DiskSim>(disk, cfg_.disk, cfg_.disk_read_Bps, cfg_.disk_write_Bps);
  if (cfg_.cache.enabled())
    cache_ = std::make_unique<filesystem::PageCacheSim>(
        cfg_.cache, server_,
        [this](filesystem::DiskOps& ops, bool write, Offset position, std::int64_t bytes) {
          disk_io(ops, write, position, bytes);
        });
  actor_ = log().actor(activity::ActorKind::Server, "nfs", "nfs");
  disk_actor_ = log().actor(activity::ActorKind::Disk, "nfs disk", "nfs");
  cpu_res_ = log().resource(activity::ResourceKind::ServerCpu, "nfs cpu", "nfs");
  disk_res_ = log().resource(activity::ResourceKind::Disk, "nfs disk", "nfs");
}

void NfsSim::disk_io(filesystem::DiskOps& ops, bool write, Offset offset, std::int64_t bytes) {
  FileSystemSim::disk_io(*disk_, ops, write, offset, bytes, disk_actor_, disk_res_);
}

void NfsSim::flush_dirty(filesystem::DiskOps& ops) {
  const Dirty d = dirty_.front();
  dirty_.pop_front();
  if (!disk_->positioned() || d.length == 0) {
    if (d.length > 0) disk_io(ops, true, d.offset, d.length);
    if (d.flushed) d.flushed->release();
    return;
  }
  std::vector<Extent> batch{Extent{d.offset, d.length}};
  while (batch.size() < kElevatorBatch && !dirty_.empty() && dirty_.front().length > 0) {
    dirty_items_->acquire();  // counted already: returns at once
    batch.push_back(Extent{dirty_.front().offset, dirty_.front().length});
    dirty_.pop_front();
  }
  // C-LOOK from the head: the ranges at or after it in ascending order, then the rest from the lowest.
  const Offset head = disk_->head();
  std::stable_sort(batch.begin(), batch.end(), [head](const Extent& a, const Extent& b) {
    const bool a_ahead = a.offset >= head, b_ahead = b.offset >= head;
    return a_ahead != b_ahead ? a_ahead : a.offset < b.offset;
  });
  std::vector<Extent> joined;
  for (const Extent& e : batch) {
    if (!joined.empty() && joined.back().offset + joined.back().length == e.offset)
      joined.back().length += e.length;
    else
      joined.push_back(e);
  }
  for (const Extent& e : joined) disk_io(ops, true, e.offset, e.length);
}

void NfsSim::start() {
  cpu_ = sg4::Mutex::create();
  threads_ = sg4::Semaphore::create(static_cast<unsigned>(cfg_.server_threads));
  dirty_items_ = sg4::Semaphore::create(0);
  sg4::Actor::create("nfsd", server_, [this] {
    sg4::Actor::self()->daemonize();
    filesystem::WorkerPool rpcs(server_, "nfsd-rpc");  // an RPC per worker at a time
    for (;;) {
      Rpc* rpc = server_mailbox()->get<Rpc>();
      rpcs.submit([this, rpc] { return serve(rpc); });
    }
  });
  if (cache_) {
    cache_->start();
  } else if (!cfg_.sync_commit()) {
    sg4::Actor::create("nfs-flush", server_, [this] {
      sg4::Actor::self()->daemonize();
      // It lives for the whole run: its own disk operations would stay in its activity list to the end
      // (one per WRITE), so helpers issue them from the first.
      filesystem::DiskOps ops(server_, 0);
      for (;;) {
        dirty_items_->acquire();
        flush_dirty(ops);
      }
    });
  }
}

int NfsSim::serve(Rpc* rpc) {
  const double arrived = now();
  threads_->acquire();
  {
    std::unique_lock lock(*cpu_);
    const double t0 = now();
    sg4::this_actor::sleep_for(cfg_.rpc_overhead_s);
    log().busy(cpu_res_, t0, now());
  }
  std::uint64_t reply_bytes = static_cast<std::uint64_t>(cfg_.rpc_header);
  filesystem::DiskOps ops(server_);  // at most one operation: issued by this actor itself
  switch (rpc->op) {
    case Rpc::Op::Write:
      if (rpc->wdata)
        file().write(rpc->file_offset, std::span(rpc->wdata, static_cast<std::size_t>(rpc->length)));
      if (cache_) {
        cache_->write(rpc->file_offset, rpc->length);
        if (cfg_.sync_commit()) cache_->flush();
      } else if (cfg_.sync_commit()) {
        disk_io(ops, true, rpc->file_offset, rpc->length);
      } else {
        dirty_.push_back({rpc->file_offset, rpc->length, nullptr});
        dirty_items_->release();
      }
      break;
    case Rpc::Op::Read:
      if (cache_)
        cache_->read(ops, rpc->file_offset, rpc->length);
      else
        disk_io(ops, false, rpc->file_offset, rpc->length);
      if (rpc->rdata)
        file().read(rpc->file_offset, std::span(rpc->rdata, static_cast<std::size_t>(rpc->length)));
      reply_bytes += static_cast<std::uint64_t>(rpc->length);
      break;
    case Rpc::Op::Commit: {
      if (cache_) {
        cache_->flush();
      } else if (!cfg_.sync_commit()) {
        auto flushed = sg4::Semaphore::create(0);
        dirty_.push_back({0, 0, flushed});
        dirty_items_->release();
        flushed->acquire();  // everything received before this COMMIT is on disk
      }
      break;
    }
    case Rpc::Op::Null:
      break;
  }
  threads_->release();
  log().span(actor_, op_name(rpc->op), arrived, now(), rpc->length, rpc->rank);
  const sg4::Host* client = rpc->client;  // the client may free rpc once it has the reply
  sg4::CommPtr reply = rpc->reply->put_async(rpc, reply_bytes);
  reply->wait();
  record_transfer(server_, client, reply, static_cast<std::int64_t>(reply_bytes));
  return ops.direct_issued();
}

void NfsSim::round_trip(int rank, bool commit) {
  sg4::this_actor::sleep_for(cfg_.client_rpc_overhead_s);
  Rpc rpc;
  rpc.op = commit ? Rpc::Op::Commit : Rpc::Op::Null;
  rpc.reply = reply_mailbox(rank);
  rpc.rank = rank;
  rpc.client = sg4::this_actor::get_host();
  sg4::CommPtr call = server_mailbox()->put_async(&rpc, static_cast<std::uint64_t>(cfg_.rpc_header));
  call->wait();
  record_transfer(rpc.client, server_, call, cfg_.rpc_header);
  rpc.reply->get<Rpc>();
}

void NfsSim::transfer(int rank, sg4::Mailbox* reply, std::span<const Extent> regions, bool writing,
                      const std::byte* wdata, std::byte* rdata) {
  const std::int64_t unit = writing ? cfg_.wsize : cfg_.rsize;
  // The RPCs: each region cut at multiples of rsize/wsize in the file.
  std::vector<Rpc> rpcs;
  std::int64_t data_offset = 0;
  for (const Extent& e : regions) {
    for (Offset off = e.offset; off < e.offset + e.length;) {
      const Offset end = std::min(e.offset + e.length, (off / unit + 1) * unit);
      Rpc r;
      r.op = writing ? Rpc::Op::Write : Rpc::Op::Read;
      r.file_offset = off;
      r.length = end - off;
      r.wdata = writing && wdata ? wdata + data_offset : nullptr;
      r.rdata = !writing && rdata ? rdata + data_offset : nullptr;
      r.reply = reply;
      r.rank = rank;
      r.client = sg4::this_actor::get_host();
      rpcs.push_back(r);
      data_offset += end - off;
      off = end;
    }
  }
  // At most max_outstanding in flight; replies are counted, whichever RPC they answer.
  std::deque<sg4::CommPtr> inflight;
  Rpc* answered = nullptr;
  for (Rpc& r : rpcs) {
    if (inflight.size() == static_cast<std::size_t>(cfg_.max_outstanding)) {
      inflight.front()->wait();
      inflight.pop_front();
    }
    sg4::this_actor::sleep_for(cfg_.client_rpc_overhead_s);
    const auto call = static_cast<std::uint64_t>(cfg_.rpc_header + (writing ? r.length : 0));
    sg4::CommPtr sent = server_mailbox()->put_async(&r, call);
    sent->wait();
    record_transfer(r.client, server_, sent, static_cast<std::int64_t>(call));
    inflight.push_back(r.reply->get_async<Rpc>(&answered));
  }
  for (auto& c : inflight) c->wait();
}

void NfsSim::open(int rank) {
  round_trip(rank, false);
}

filesystem::PageCacheSim& NfsSim::client_cache() {
  sg4::Host* host = sg4::this_actor::get_host();
  auto& cache = client_caches_[host->get_name()];
  if (!cache) {
    cache = std::make_unique<filesystem::PageCacheSim>(
        cfg_.client_cache, host,
        [this, host](filesystem::DiskOps&, bool write, Offset position, std::int64_t bytes) {
          // Whole pages, but not past the end of the file (the Linux client sends a page's written bytes).
          const std::int64_t length = std::min(bytes, file().size() - position);
          if (length <= 0) return;
          const Extent e{position, length};
          sg4::Mailbox* reply = sg4::Mailbox::by_name("nfs-reply:" + host->get_name() + ":" +
                                                      std::to_string(sg4::this_actor::get_pid()));
          transfer(-1, reply, std::span(&e, 1), write, nullptr, nullptr);
        });
    cache->start();
  }
  return *cache;
}

void NfsSim::close(int rank) {
  if (cfg_.client_cache.enabled()) client_cache().flush();
  if (!cfg_.sync_commit()) round_trip(rank, true);
}

void NfsSim::sync(int rank) {
  if (cfg_.client_cache.enabled()) client_cache().flush();
  if (!cfg_.sync_commit()) round_trip(rank, true);
}

void NfsSim::write(int rank, std::span<const Extent> regions, std::span<const std::byte> data) {
  if (cfg_.client_cache.enabled()) {
    filesystem::PageCacheSim& cache = client_cache();
    std::int64_t pos = 0;
    for (const Extent& e : regions) {
      if (!data.empty())
        file().write(e.offset,
                     data.subspan(static_cast<std::size_t>(pos), static_cast<std::size_t>(e.length)));
      cache.write(e.offset, e.length);
      pos += e.length;
    }
    return;
  }
  transfer(rank, reply_mailbox(rank), regions, true,
           data.data() ? data.data() : reinterpret_cast<const std::byte*>(""), nullptr);
}

void NfsSim::read(int rank, std::span<const Extent> regions, std::span<std::byte> data) {
  if (cfg_.client_cache.enabled()) {
    filesystem::PageCacheSim& cache = client_cache();
    filesystem::DiskOps ops(sg4::this_actor::get_host(), 0);  // unused: READs are messages, not disk work
    std::int64_t pos = 0;
    for (const Extent& e : regions) {
      cache.read(ops, e.offset, e.length);
      if (!data.empty())
        file().read(e.offset,
                    data.subspan(static_cast<std::size_t>(pos), static_cast<std::size_t>(e.length)));
      pos += e.length;
    }
    return;
  }
  transfer(rank, reply_mailbox(rank), regions, false, nullptr, data.data());
}

}  // namespace ciosim::nfs
