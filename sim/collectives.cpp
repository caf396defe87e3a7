// Collectives of the simulated Process, built from the same point-to-point path as user messages (so
// they pay the eager/rendezvous protocol, overheads and contention) with the algorithms MPICH selects
// by default (MPICH 3.x/4.0 src/mpi/coll, reimplemented from their published descriptions: Thakur,
// Rabenseifner, Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005).
// Internal messages are not counted as point-to-point calls: the collective is counted once.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "sim/sim_process.hpp"

namespace ciosim::sim {

namespace {
// Tags below zero are reserved for collectives (user tags are >= 0).
constexpr int kTagBarrier = -1;
constexpr int kTagBcast = -2;
constexpr int kTagGather = -3;
constexpr int kTagGatherv = -7;
constexpr int kTagAllgather = -4;
constexpr int kTagAlltoall = -5;
constexpr int kTagAllreduce = -6;

// MPICH cut-overs (MPIR_CVAR defaults; for alltoall see do_alltoall).
constexpr std::size_t kAllgatherLong = 512 * 1024;  // ALLGATHER_LONG_MSG_SIZE: total bytes
constexpr std::size_t kAlltoallShort = 256;         // ALLTOALL_SHORT_MSG_SIZE: bytes per block
constexpr int kAlltoallBruckMinRanks = 8;           // Bruck from 8 ranks (generic.json: "comm_size<8")
constexpr std::size_t kAlltoallMedium = 32768;      // ALLTOALL_MEDIUM_MSG_SIZE: bytes per block
constexpr int kAlltoallThrottle = 32;               // ALLTOALL_THROTTLE: requests posted per round

bool is_pof2(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}
}  // namespace

// Dissemination barrier (MPICH MPIR_Barrier_intra_dissemination): ceil(log2 P) rounds of zero-byte
// messages to rank+2^k, from rank-2^k.
void SimProcess::do_barrier() {
  const Activity a(*this, config::Use::Network, "barrier");
  const int P = size();
  for (int k = 1; k < P; k <<= 1) {
    Request s = do_isend((rank_ + k) % P, kTagBarrier, {});
    Request r = do_irecv((rank_ - k + P) % P, kTagBarrier, {});
    do_wait(r);
    do_wait(s);
  }
}

// Binomial-tree broadcast (MPICH MPIR_Bcast_intra_binomial, MPICH's choice for short messages or few
// ranks; the scatter-allgather variant for long messages is not modelled).
void SimProcess::do_bcast(std::span<std::byte> buf, int root) {
  const Activity a(*this, config::Use::Network, "bcast",
                   rank_ == root ? static_cast<std::int64_t>(buf.size()) : 0);
  const int P = size();
  const int rel = (rank_ - root + P) % P;
  int mask = 1;
  while (mask < P) {
    if (rel & mask) {
      do_recv((rank_ - mask + P) % P, kTagBcast, buf);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (rel + mask < P) do_send((rank_ + mask) % P, kTagBcast, buf);
    mask >>= 1;
  }
}

// Binomial-tree gather (MPICH MPIR_Gather_intra_binomial): each rank forwards its subtree's blocks,
// ordered by relative rank, to its parent.
void SimProcess::do_gather(std::span<const std::byte> send, std::span<std::byte> recv, int root) {
  const Activity a(*this, config::Use::Network, "gather", static_cast<std::int64_t>(send.size()));
  const int P = size();
  const std::size_t n = send.size();
  const int rel = (rank_ - root + P) % P;
  std::vector<std::byte> tmp(n * static_cast<std::size_t>(P));
  std::copy(send.begin(), send.end(), tmp.begin());
  int held = 1;
  for (int mask = 1; mask < P; mask <<= 1) {
    if ((rel & mask) == 0) {
      const int child = rel | mask;
      if (child < P) {
        const int cnt = std::min(mask, P - child);
        do_recv((child + root) % P, kTagGather,
                std::span(tmp).subspan(n * static_cast<std::size_t>(mask), n * cnt));
        held += cnt;
      }
    } else {
      do_send(((rel - mask) + root) % P, kTagGather,
              std::span(tmp).first(n * static_cast<std::size_t>(held)));
      break;
    }
  }
  if (rank_ == root)
    for (int i = 0; i < P; ++i)
      std::memcpy(recv.data() + n * static_cast<std::size_t>((i + root) % P),
                  tmp.data() + n * static_cast<std::size_t>(i), n);
}

// Linear gatherv (MPICH MPIR_Gatherv_allcomm_linear, its only intra-communicator algorithm): the root
// posts a receive from every other rank with a nonzero count and waits for all; the others send. (MPICH
// switches the senders to synchronous sends from 32 ranks on, GATHERV_INTER_SSEND_MIN_PROCS; not modelled.)
void SimProcess::do_gatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                            std::span<const std::int64_t> counts, int root) {
  const Activity a(*this, config::Use::Network, "gatherv", static_cast<std::int64_t>(send.size()));
  const int P = size();
  if (rank_ != root) {
    if (!send.empty()) do_send(root, kTagGatherv, send);
    return;
  }
  if (static_cast<int>(counts.size()) != P)
    throw std::invalid_argument("gatherv: the root needs one count per rank");
  std::vector<Request> reqs;
  std::size_t pos = 0;
  for (int i = 0; i < P; ++i) {
    const auto n = static_cast<std::size_t>(counts[static_cast<std::size_t>(i)]);
    if (i == root) {
      if (n != send.size()) throw std::invalid_argument("gatherv: the root's count differs from its data");
      payload::copy(recv.subspan(pos, n), send);  // elided payloads too (sequential's gather)
    } else if (n > 0) {
      reqs.push_back(do_irecv(i, kTagGatherv, recv.subspan(pos, n)));
    }
    pos += n;
  }
  for (Request& r : reqs) do_wait(r);
}

// Allgather: recursive doubling for a power-of-two rank count and a total under 512 KiB, otherwise the
// ring (MPICH MPIR_Allgather_intra_recursive_doubling / _ring; Bruck for short non-power-of-two counts
// is not modelled: those use the ring).
void SimProcess::do_allgather(std::span<const std::byte> send, std::span<std::byte> recv) {
  const Activity a(*this, config::Use::Network, "allgather", static_cast<std::int64_t>(send.size()));
  const int P = size();
  const std::size_t n = send.size();
  auto block = [&](int i, int count) {
    return recv.subspan(n * static_cast<std::size_t>(i), n * static_cast<std::size_t>(count));
  };
  std::copy(send.begin(), send.end(), block(rank_, 1).begin());
  if (is_pof2(P) && n * static_cast<std::size_t>(P) < kAllgatherLong) {
    for (int mask = 1; mask < P; mask <<= 1) {
      const int partner = rank_ ^ mask;
      const int mine = (rank_ / mask) * mask;
      const int theirs = (partner / mask) * mask;
      Request r = do_irecv(partner, kTagAllgather, block(theirs, mask));
      Request s = do_isend(partner, kTagAllgather, block(mine, mask));
      do_wait(r);
      do_wait(s);
    }
    return;
  }
  const int left = (rank_ - 1 + P) % P;
  const int right = (rank_ + 1) % P;
  int j = rank_;
  int jnext = left;
  for (int i = 0; i < P - 1; ++i) {
    Request r = do_irecv(left, kTagAllgather, block(jnext, 1));
    Request s = do_isend(right, kTagAllgather, block(j, 1));
    do_wait(r);
    do_wait(s);
    j = jnext;
    jnext = (jnext - 1 + P) % P;
  }
}

// Alltoall as MPICH 4.0.2 (Debian 12's mpich) chooses it for an intra-communicator whose send buffer is
// not MPI_IN_PLACE. Its default selection tree (maint/tuning/coll/mpir/generic.json, compiled in) has
// MPICH 3.x's MPIR_Alltoall_intra_auto cut-overs as literals; 4.0.2 still declares them as the CVARs
// MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE = 256 and MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE = 32768 (bytes of one
// block, sendcount x type size; src/mpi/coll/cvars.txt), which there only the nonblocking schedule's
// selection reads (mpir_coll_sched_auto.c). By the block size n and the rank count P:
//  - n <= 256 B and P >= 8: Bruck's algorithm (MPIR_Alltoall_intra_brucks, alltoall_bruck below);
//  - n <= 32 KiB: "scattered" (MPIR_Alltoall_intra_scattered): an irecv from and an isend to every peer,
//    posted MPIR_CVAR_ALLTOALL_THROTTLE = 32 of each at a time, a waitall per round (MPICH's first round
//    includes the rank's message to itself; here the own block is copied and every round has 32 peers);
//  - above: pairwise exchange (MPIR_Alltoall_intra_pairwise; XOR partners for a power-of-two P).
// A zero block returns at once (MPI_Alltoall's early return for recvcount == 0, src/binding/c/coll_api.txt).
// Local copies (the own block here, Bruck's rotations, packing and unpacking) are not charged as CPU
// work, as no collective in this file charges its copies.
void SimProcess::do_alltoall(std::span<const std::byte> send, std::span<std::byte> recv) {
  const Activity a(*this, config::Use::Network, "alltoall", static_cast<std::int64_t>(send.size()));
  const int P = size();
  const std::size_t n = send.size() / static_cast<std::size_t>(P);
  if (n == 0) return;
  if (n <= kAlltoallShort && P >= kAlltoallBruckMinRanks) {
    alltoall_bruck(send, recv);
    return;
  }
  auto sblock = [&](int i) { return send.subspan(n * static_cast<std::size_t>(i), n); };
  auto rblock = [&](int i) { return recv.subspan(n * static_cast<std::size_t>(i), n); };
  std::copy(sblock(rank_).begin(), sblock(rank_).end(), rblock(rank_).begin());
  if (n <= kAlltoallMedium) {
    for (int ii = 1; ii < P; ii += kAlltoallThrottle) {
      const int ss = std::min(P - ii, kAlltoallThrottle);
      std::vector<Request> reqs;
      for (int i = 0; i < ss; ++i) {
        const int src = (rank_ + ii + i) % P;
        reqs.push_back(do_irecv(src, kTagAlltoall, rblock(src)));
      }
      for (int i = 0; i < ss; ++i) {
        const int dst = (rank_ - ii - i + 2 * P) % P;
        reqs.push_back(do_isend(dst, kTagAlltoall, sblock(dst)));
      }
      do_waitall(reqs);
    }
    return;
  }
  for (int i = 1; i < P; ++i) {
    const int src = is_pof2(P) ? (rank_ ^ i) : (rank_ - i + P) % P;
    const int dst = is_pof2(P) ? (rank_ ^ i) : (rank_ + i) % P;
    Request r = do_irecv(src, kTagAlltoall, rblock(src));
    Request s = do_isend(dst, kTagAlltoall, sblock(dst));
    do_wait(r);
    do_wait(s);
  }
}

// Bruck's all-to-all (Bruck, Ho, Kipnis, Upfal, Weathersby, "Efficient algorithms for all-to-all
// communications in multiport message-passing systems", IEEE TPDS 8(11), 1997; MPICH
// MPIR_Alltoall_intra_brucks): ceil(log2 P) messages per rank instead of P - 1, each block travelling
// once per set bit of its distance. Local rotation: slot i holds the block for rank (rank + i) mod P.
// Round k (2^k < P): send to rank + 2^k, in one message, the slots whose index has bit k set, and receive
// from rank - 2^k the same slots. After the last round slot i holds the block from rank (rank - i) mod P,
// which the inverse rotation puts in its place. MPICH packs each round's slots with an indexed datatype
// and receives them the same way; here a pack and an unpack buffer. The exchange is MPIC_Sendrecv's:
// irecv, isend, wait for both.
void SimProcess::alltoall_bruck(std::span<const std::byte> send, std::span<std::byte> recv) {
  const int P = size();
  const std::size_t n = send.size() / static_cast<std::size_t>(P);
  auto at = [n](int i) { return n * static_cast<std::size_t>(i); };
  std::vector<std::byte> slots(send.size());
  for (int i = 0; i < P; ++i) std::memcpy(slots.data() + at(i), send.data() + at((rank_ + i) % P), n);
  std::vector<std::byte> out, in;
  for (int pof2 = 1; pof2 < P; pof2 <<= 1) {
    out.clear();
    for (int i = pof2; i < P; ++i)
      if (i & pof2)
        out.insert(out.end(), slots.begin() + static_cast<std::ptrdiff_t>(at(i)),
                   slots.begin() + static_cast<std::ptrdiff_t>(at(i + 1)));
    in.resize(out.size());
    Request r = do_irecv((rank_ - pof2 + P) % P, kTagAlltoall, in);
    Request s = do_isend((rank_ + pof2) % P, kTagAlltoall, out);
    do_wait(r);
    do_wait(s);
    std::size_t pos = 0;
    for (int i = pof2; i < P; ++i)
      if (i & pof2) {
        std::memcpy(slots.data() + at(i), in.data() + pos, n);
        pos += n;
      }
  }
  for (int i = 0; i < P; ++i) std::memcpy(recv.data() + at((rank_ - i + P) % P), slots.data() + at(i), n);
}

// Allreduce (MAX on int64): recursive doubling with the non-power-of-two pre/post step (MPICH
// MPIR_Allreduce_intra_recursive_doubling, its choice for short vectors).
void SimProcess::do_allreduce_max(std::span<std::int64_t> values) {
  const Activity a(*this, config::Use::Network, "allreduce", static_cast<std::int64_t>(values.size_bytes()));
  const int P = size();
  std::vector<std::int64_t> other(values.size());
  auto obytes = std::as_writable_bytes(std::span(other));
  auto vbytes = std::as_writable_bytes(values);
  auto reduce = [&] {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::max(values[i], other[i]);
  };
  int pof2 = 1;
  while (pof2 * 2 <= P) pof2 *= 2;
  const int rem = P - pof2;
  int newrank;
  if (rank_ < 2 * rem) {
    if (rank_ % 2 == 0) {
      do_send(rank_ + 1, kTagAllreduce, vbytes);
      newrank = -1;
    } else {
      do_recv(rank_ - 1, kTagAllreduce, obytes);
      reduce();
      newrank = rank_ / 2;
    }
  } else {
    newrank = rank_ - rem;
  }
  if (newrank != -1) {
    for (int mask = 1; mask < pof2; mask <<= 1) {
      const int newdst = newrank ^ mask;
      const int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
      Request r = do_irecv(dst, kTagAllreduce, obytes);
      Request s = do_isend(dst, kTagAllreduce, vbytes);
      do_wait(r);
      do_wait(s);
      reduce();
    }
  }
  if (rank_ < 2 * rem) {
    if (rank_ % 2)
      do_send(rank_ - 1, kTagAllreduce, vbytes);
    else
      do_recv(rank_ + 1, kTagAllreduce, vbytes);
  }
}

}  // namespace ciosim::sim
