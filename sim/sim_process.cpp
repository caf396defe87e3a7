#include "sim/sim_process.hpp"

#include <cstring>
#include <stdexcept>

namespace ciosim::sim {

SimProcess::SimProcess(World& world, int rank) : world_(world), rank_(rank) {}

std::string SimProcess::host() const {
  return world_.rank_hosts[static_cast<std::size_t>(rank_)]->get_name();
}

SimProcess::Activity::Activity(SimProcess& p, config::Use use, const char* name, std::int64_t bytes)
    : use_(use), name_(name), bytes_(bytes) {
  if (p.depth_++ > 0) {
    p_ = nullptr;
    --p.depth_;  // nested: only the outermost call is charged
    return;
  }
  p_ = &p;
  p.current_ = name;
  start_ = sg4::Engine::get_clock();
}

SimProcess::Activity::~Activity() {
  if (!p_) return;
  SimProcess& p = *p_;
  --p.depth_;
  p.current_ = "";
  const double end = sg4::Engine::get_clock();
  const auto r = static_cast<std::size_t>(p.rank_);
  RankRecord& rec = p.world_.records[r];
  if (!rec.use.empty()) rec.use.back()[static_cast<std::size_t>(use_)] += end - start_;
  activity::Log& log = p.world_.log;
  if (use_ == config::Use::Cpu) log.busy(p.world_.rank_cpu[r], start_, end);
  log.span(p.world_.rank_actor[r], name_, start_, end, bytes_);
}

void SimProcess::note_message(const Pending& p, std::size_t bytes) {
  const double s = p.comm->get_start_time();
  const double e = p.comm->get_finish_time();
  const auto src = static_cast<std::size_t>(p.peer);
  const auto dst = static_cast<std::size_t>(rank_);
  activity::Log& log = world_.log;
  if (world_.rank_hosts[src] != world_.rank_hosts[dst]) {
    log.busy(world_.link_out[src], s, e, static_cast<std::int64_t>(bytes));
    log.busy(world_.link_in[dst], s, e, static_cast<std::int64_t>(bytes));
  }
  log.message(activity::Message{p.peer, rank_, p.tag, static_cast<std::int64_t>(bytes), s, e, current_});
}

void SimProcess::release_eager_sends() {
  // Drop the eager sends whose transfer has ended (the engine has set their finish time), oldest first, so
  // that this rank's list stays short: SimGrid scans it on each of the rank's completions. Only a wait
  // takes a comm off its actor's list (a test does not), and on an ended comm it returns at once.
  while (!eager_sent_.empty() && eager_sent_.front()->get_finish_time() >= 0) {
    eager_sent_.front()->wait();
    eager_sent_.pop_front();
    if (CommStats* st = world_.comm_stats.get()) st->hold(rank_, -1);
  }
}

void SimProcess::finish() {
  // Release the eager sends: each is done or ends on its own (its receiver is permanent), so waiting here,
  // after the rank's last call and outside any record, changes no simulated time; an actor that ended
  // with a comm in flight would cancel it.
  for (const sg4::CommPtr& c : eager_sent_) c->wait();
  eager_sent_.clear();
  RankRecord& rec = world_.records[static_cast<std::size_t>(rank_)];
  rec.counters = counters();
  rec.trace = trace();
}

bool SimProcess::eager(std::size_t bytes) const {
  return static_cast<std::int64_t>(bytes) <= world_.mpi->eager_threshold;
}

sg4::Mailbox* SimProcess::mailbox(int src, int dst, int tag, bool eager_protocol) const {
  // One mailbox per (protocol, source, destination, tag): FIFO per channel gives MPI's non-overtaking
  // order. Both sides know the size, hence the protocol.
  std::string name = eager_protocol ? "e" : "r";
  name += std::to_string(src) + ">" + std::to_string(dst) + "#" + std::to_string(tag);
  sg4::Mailbox* mb = sg4::Mailbox::by_name(name);
  if (eager_protocol) mb->set_receiver(world_.rank_actors[static_cast<std::size_t>(dst)]);
  return mb;
}

Request SimProcess::do_isend(int dst, int tag, std::span<const std::byte> buf) {
  const Activity a(*this, config::Use::Network, "isend", static_cast<std::int64_t>(buf.size()));
  auto* env = new Envelope;
  env->size = buf.size();
  if (payload::is_elided(buf)) {  // no bytes to copy or point at: the pieces travel
    env->elided = true;
    env->pieces = payload::pieces(buf);
  } else if (eager(buf.size())) {
    env->copy.assign(buf.begin(), buf.end());
    env->data = env->copy.data();
  } else {
    env->data = buf.data();
  }
  return post_send(dst, tag, env);
}

Request SimProcess::do_isend_shared(int dst, int tag, SharedMessagePtr m) {
  const auto bytes = static_cast<std::size_t>(m->wire_size());
  const Activity a(*this, config::Use::Network, "isend", static_cast<std::int64_t>(bytes));
  auto* env = new Envelope;
  env->size = bytes;
  env->shared = std::move(m);  // immutable: nothing to copy, whichever the protocol
  return post_send(dst, tag, env);
}

Request SimProcess::post_send(int dst, int tag, Envelope* env) {
  if (dst < 0 || dst >= size()) {
    delete env;
    throw std::out_of_range("send to invalid rank " + std::to_string(dst));
  }
  sg4::this_actor::sleep_for(world_.mpi->send_overhead_s);
  const bool e = eager(env->size);
  sg4::Mailbox* mb = mailbox(rank_, dst, tag, e);
  const auto bytes = static_cast<std::uint64_t>(env->size);
  const Request r{next_id_++};
  CommStats* st = world_.comm_stats.get();
  if (e) {
    if (st) env->stat = st->add_eager(sg4::Engine::get_clock(), dst, current_);
    // Eager: complete locally; the receiver owns the envelope. Not detached: SimGrid 3.32 keeps every
    // detached comm of the simulation in one list (the maestro's) and scans it whole on each completion,
    // which made the cost of a message grow with all the eager messages in flight. A comm this rank holds
    // sits in its own list instead, until the rank waits on it: release_eager_sends does once its transfer
    // has ended, finish() at the end. The transfer is the same one (started at once towards the permanent
    // receiver), so simulated times do not change.
    eager_sent_.push_back(mb->put_async(env, bytes));
    if (st) st->hold(rank_, 1);
    pending_[r.id] = Pending{};
  } else {
    if (st) st->hold(rank_, 1);
    env->refs = 2;
    Pending& p = pending_[r.id];
    p.comm = mb->put_async(env, bytes);
    p.out = env;
  }
  return r;
}

Request SimProcess::do_irecv(int src, int tag, std::span<std::byte> buf) {
  const Activity a(*this, config::Use::Network, "irecv");
  Pending* p = nullptr;
  const Request r = post_recv(src, tag, buf.size(), p);
  p->dest = buf;
  return r;
}

Request SimProcess::do_irecv_shared(int src, int tag, std::int64_t bytes, SharedMessagePtr* into,
                                    SharedDecoder decode) {
  const Activity a(*this, config::Use::Network, "irecv");
  Pending* p = nullptr;
  const Request r = post_recv(src, tag, static_cast<std::size_t>(bytes), p);
  p->into = into;
  p->decode = std::move(decode);
  p->shared_bytes = static_cast<std::size_t>(bytes);
  return r;
}

Request SimProcess::post_recv(int src, int tag, std::size_t bytes, Pending*& out) {
  if (src < 0 || src >= size()) throw std::out_of_range("receive from invalid rank " + std::to_string(src));
  const Request r{next_id_++};
  Pending& p = pending_[r.id];
  p.is_recv = true;
  p.peer = src;
  p.tag = tag;
  p.comm = mailbox(src, rank_, tag, eager(bytes))->get_async<Envelope>(&p.in);
  if (CommStats* st = world_.comm_stats.get()) {
    st->hold(rank_, 1);
    if (eager(bytes)) st->matched(rank_);
  }
  out = &p;
  return r;
}

void SimProcess::do_wait(Request& r) {
  const Activity a(*this, config::Use::Network, "wait");
  auto it = pending_.find(r.id);
  if (it == pending_.end()) throw std::logic_error("wait on an unknown request");
  Pending& p = it->second;
  CommStats* st = world_.comm_stats.get();
  const double called = sg4::Engine::get_clock();
  // Only when this rank is about to block: releasing costs answered simcalls, and spending them while
  // the rank would run on could reorder it against the other ranks at the same instant.
  if (p.comm && p.comm->get_finish_time() < 0) release_eager_sends();
  if (p.comm) {
    if (st) st->wait(rank_);
    p.comm->wait();
    if (st) st->hold(rank_, -1);
  }
  if (p.out) {  // rendezvous send complete: the buffer may be reused from here on
    Envelope* env = p.out;
    if (!env->consumed && env->size > 0 && env->copy.empty() && !env->shared && !env->elided) {
      env->copy.assign(env->data, env->data + env->size);
      env->data = env->copy.data();
    }
    if (--env->refs == 0) delete env;
  }
  if (p.is_recv) {
    Envelope* env = p.in;
    const std::size_t size = env->size;
    note_message(p, size);
    if (st && env->stat >= 0) {
      CommStats::Eager& m = st->eager[static_cast<std::size_t>(env->stat)];
      m.finished = p.comm->get_finish_time();
      m.waited = called;
    }
    const std::size_t want = p.into ? p.shared_bytes : p.dest.size();
    SharedMessagePtr shared = std::move(env->shared);
    const bool into_elided = !p.into && payload::is_elided(std::span<const std::byte>(p.dest));
    const bool kinds_differ = size == want && size > 0 && !p.into && env->elided != into_elided;
    if (size == want && !kinds_differ) {
      if (env->elided)
        payload::assign(p.dest, env->pieces);
      else if (p.into)  // a shared receive: the object itself, or decoded from a plain send's bytes
        *p.into = shared ? std::move(shared) : p.decode(std::span<const std::byte>(env->data, size));
      else if (shared && size)  // a shared message into a plain buffer: its serialized form
        shared->serialize(p.dest);
      else if (size)
        std::memcpy(p.dest.data(), env->data, size);
    }
    env->consumed = true;
    if (--env->refs == 0) delete env;
    if (size != want)
      throw std::runtime_error("message of " + std::to_string(size) + " bytes received into a buffer of " +
                               std::to_string(want));
    if (kinds_differ)
      throw std::logic_error(into_elided ? "a message of real bytes received into an elided buffer"
                                         : "an elided message received into a buffer of real bytes");
    sg4::this_actor::sleep_for(world_.mpi->recv_overhead_s);
  }
  pending_.erase(it);
  r.id = -1;
}

void SimProcess::do_waitall(std::vector<Request>& rs) {
  const Activity a(*this, config::Use::Network, "waitall");
  for (Request& r : rs)
    if (r.id >= 0) do_wait(r);
}

int SimProcess::do_waitany(std::vector<Request>& rs) {
  const Activity a(*this, config::Use::Network, "waitany");
  // A request already complete (an eager send, a transfer that has ended) is taken first, lowest index
  // first; else SimGrid's wait_any blocks until the first of the pending transfers ends.
  std::vector<sg4::CommPtr> comms;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].id < 0) continue;
    const auto it = pending_.find(rs[i].id);
    if (it == pending_.end()) throw std::logic_error("waitany on an unknown request");
    const sg4::CommPtr& c = it->second.comm;
    if (!c || c->get_finish_time() >= 0) {
      do_wait(rs[i]);
      return static_cast<int>(i);
    }
    comms.push_back(c);
    where.push_back(i);
  }
  if (comms.empty()) return -1;
  release_eager_sends();
  const ssize_t k = sg4::Comm::wait_any(comms);
  if (k < 0) throw std::logic_error("waitany: no transfer completed");
  const std::size_t i = where[static_cast<std::size_t>(k)];
  do_wait(rs[i]);  // completes the bookkeeping of the transfer that ended
  return static_cast<int>(i);
}

void SimProcess::do_send(int dst, int tag, std::span<const std::byte> buf) {
  const Activity a(*this, config::Use::Network, "send", static_cast<std::int64_t>(buf.size()));
  Request r = do_isend(dst, tag, buf);
  do_wait(r);
}

void SimProcess::do_recv(int src, int tag, std::span<std::byte> buf) {
  const Activity a(*this, config::Use::Network, "recv");
  Request r = do_irecv(src, tag, buf);
  do_wait(r);
}

void SimProcess::do_compute(const Work& w) {
  const Activity a(*this, config::Use::Cpu, "compute", w.bytes_copied);
  const PlatformSpec& ps = world_.spec->platform;
  const double t = ps.cpu_seconds(w);
  sg4::Host* host = sg4::this_actor::get_host();
  // Run on the rank's host: ranks placed on one node share its cpu_cores cores (t is the time on a core
  // of its own). With the node's memory bandwidth given, the copied bytes also pass through the node's
  // memory, which its concurrent copies share: the work ends when both are done.
  sg4::IoPtr through;
  if (sg4::Disk* memory = world_.rank_memory[static_cast<std::size_t>(rank_)]; memory && w.bytes_copied > 0)
    through = memory->write_async(static_cast<sg_size_t>(w.bytes_copied));
  if (t > 0) sg4::this_actor::execute(t * host->get_speed());
  if (through) through->wait();
}

void SimProcess::do_operation(const std::string& name) {
  world_.records[static_cast<std::size_t>(rank_)].ops.emplace_back(name, sg4::Engine::get_clock());
}

void SimProcess::do_phase(const std::string& name) {
  RankRecord& rec = world_.records[static_cast<std::size_t>(rank_)];
  rec.marks.emplace_back(name, sg4::Engine::get_clock());
  rec.use.emplace_back();
}

}  // namespace ciosim::sim
