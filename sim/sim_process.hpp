// The S4U implementation of Process: one actor per rank. Point-to-point messages follow MPI's two
// protocols: eager (size <= the MPI profile's threshold: the data leaves at once through a mailbox with
// a permanent receiver, the send completes locally) and rendezvous (the transfer starts when both sides
// have posted; the handshake's extra latency is applied by the latency-factor callback, platform.cpp).
// Collectives are built from point-to-point with MPICH's default algorithms (collectives.cpp).
// File access goes to the platform's file system through the file-system seam (sim_file.cpp).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/common/payload.hpp"
#include "algorithms/common/process.hpp"
#include "sim/world.hpp"

namespace ciosim::sim {

/// What travels in a message: a copy of the data (eager, the sender may reuse its buffer at once) or a
/// pointer to the sender's buffer (rendezvous, valid until the send completes).
struct Envelope {
  std::vector<std::byte> copy;
  SharedMessagePtr shared;  ///< a shared message (isend_shared): handed over as is, `data` unused
  /// An elided payload (algorithms/common/payload.hpp): what the sender's buffer held when it was sent
  /// (MPI forbids changing it before the send completes, so this is what a rendezvous would deliver).
  std::vector<payload::Piece> pieces;
  bool elided = false;
  const std::byte* data = nullptr;
  std::size_t size = 0;
  /// Rendezvous: the sender and the receiver both hold the envelope (2 references) and the last one to
  /// finish with it deletes it. A sender whose send completes before the receiver has copied the data out
  /// (the receiver may still be waiting on an earlier request) copies its buffer into `copy` first, because
  /// MPI lets it reuse the buffer once the send is complete. Eager: the receiver's reference only.
  int refs = 1;
  bool consumed = false;   ///< the receiver has copied the data out
  std::int64_t stat = -1;  ///< eager, with CIOSIM_COMM_STATS: the message's CommStats entry
};

class SimProcess final : public Process {
 public:
  SimProcess(World& world, int rank);
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(world_.rank_hosts.size()); }
  std::string host() const override;
  /// Releases the rank's eager sends and copies its counters and call trace into the world's record (phase
  /// marks go there directly).
  void finish();

 protected:
  void do_send(int dst, int tag, std::span<const std::byte> buf) override;
  void do_recv(int src, int tag, std::span<std::byte> buf) override;
  Request do_isend(int dst, int tag, std::span<const std::byte> buf) override;
  Request do_irecv(int src, int tag, std::span<std::byte> buf) override;
  Request do_isend_shared(int dst, int tag, SharedMessagePtr m) override;
  Request do_irecv_shared(int src, int tag, std::int64_t bytes, SharedMessagePtr* into,
                          SharedDecoder decode) override;
  void do_wait(Request& r) override;
  void do_waitall(std::vector<Request>& rs) override;
  int do_waitany(std::vector<Request>& rs) override;
  void do_barrier() override;
  void do_bcast(std::span<std::byte> buf, int root) override;
  void do_gather(std::span<const std::byte> send, std::span<std::byte> recv, int root) override;
  void do_gatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                  std::span<const std::int64_t> counts, int root) override;
  void do_allgather(std::span<const std::byte> send, std::span<std::byte> recv) override;
  void do_alltoall(std::span<const std::byte> send, std::span<std::byte> recv) override;
  void do_allreduce_max(std::span<std::int64_t> values) override;
  void do_compute(const Work& w) override;
  void do_file_open(const std::string& name) override;
  void do_file_close() override;
  void do_write_at(Offset offset, std::span<const std::byte> data) override;
  void do_read_at(Offset offset, std::span<std::byte> data) override;
  void do_write_list(std::span<const Extent> regions, std::span<const std::byte> data) override;
  void do_read_list(std::span<const Extent> regions, std::span<std::byte> data) override;
  void do_file_sync() override;
  void do_phase(const std::string& name) override;
  void do_operation(const std::string& name) override;

 private:
  struct Pending {
    sg4::CommPtr comm;          ///< null for a completed eager send
    Envelope* in = nullptr;     ///< receive slot
    Envelope* out = nullptr;    ///< rendezvous send: the envelope this rank still references
    std::span<std::byte> dest;  ///< receive buffer
    bool is_recv = false;
    int peer = -1;  ///< receive: the source
    int tag = 0;
    SharedMessagePtr* into = nullptr;  ///< a shared receive's destination (dest is then unused)
    SharedDecoder decode;              ///< a shared receive's decoder, for a message sent as bytes
    std::size_t shared_bytes = 0;      ///< a shared receive's expected size
  };
  /// The outermost Process call in progress (calls nest: a collective waits on its messages): its time
  /// goes to the rank's current phase under `use` (config::Use) and, with a timeline, becomes a span.
  class Activity {
   public:
    Activity(SimProcess& p, config::Use use, const char* name, std::int64_t bytes = 0);
    ~Activity();
    Activity(const Activity&) = delete;
    Activity& operator=(const Activity&) = delete;

   private:
    SimProcess* p_ = nullptr;  ///< null for a nested call
    config::Use use_;
    const char* name_;
    std::int64_t bytes_;
    double start_ = 0;
  };
  /// Records a received message (activity log) once its transfer is complete.
  void note_message(const Pending& p, std::size_t bytes);
  sg4::Mailbox* mailbox(int src, int dst, int tag, bool eager) const;
  /// Posts the send of `env` (its size and contents set) to dst.
  Request post_send(int dst, int tag, Envelope* env);
  /// Posts a receive of `bytes` bytes from src and returns its pending record.
  Request post_recv(int src, int tag, std::size_t bytes, Pending*& out);
  bool eager(std::size_t bytes) const;
  void release_eager_sends();
  /// Alltoall by Bruck's algorithm (collectives.cpp; do_alltoall chooses it).
  void alltoall_bruck(std::span<const std::byte> send, std::span<std::byte> recv);
  World& world_;
  int rank_;
  std::map<std::int64_t, Pending> pending_;
  std::deque<sg4::CommPtr> eager_sent_;  ///< eager sends not yet released (see do_isend)
  std::int64_t next_id_ = 0;
  int depth_ = 0;             ///< Process calls in progress (Activity)
  const char* current_ = "";  ///< the outermost one's name
};

}  // namespace ciosim::sim
