// Inspector-Executor Collective I/O (IEC I/O).
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor
// paradigm", The Journal of Supercomputing 47(1):53-75, 2009, and its earlier conference version by the
// same authors.
//
// Inspector and executor are separate so that one plan serves many writes (the paper's amortisation).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/common/strided_datatype.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::iec {

// ---- closed forms of §3.1-3.2 (all in array entries)

/// Nph = ceil(log2 Np) (eq. 1).
int num_phases(int np);
/// Butterfly partner of rank r in phase ph (Fig. 2, L5; Table 2).
int partner(int r, int ph);
/// count_ones(r) * Nx/(2 Np) (Fig. 2, L2; Table 1).
std::int64_t alloc_offset(int r, std::int64_t nx, int np);
/// Entries allocated per rank: Nx/Np + Nph * Nx/(2 Np) (eqs. 2, L1).
std::int64_t buffer_entries(std::int64_t nx, int np);
/// compute_offset (Fig. 4; Table 3): where rank r stores what it receives in phase ph.
std::int64_t recv_offset(int r, int ph, std::int64_t nx, int np);
/// permute(bin_rank) * Nx/Np (Fig. 2, L8; Table 4): bit-reversed rank over Nph bits.
std::int64_t file_offset(int r, std::int64_t nx, int np);

/// True when the inspector holds the list of a block-cyclic distribution (Nx entries, Np ranks, blocks of
/// Bx) in its periodic form through every phase (iec_inspector.cpp, "periodic lists"): Np a power of two,
/// Nx a multiple of Np·Bx, and the replica count Nx/(Np·Bx) even at every phase's halving while above 1.
/// A rank's list then holds at most 2·Np runs at any time (tests/test_iec_lists.cpp), which is what the
/// memory estimate counts (config/resources.cpp).
bool block_cyclic_stays_periodic(std::int64_t nx, int np, std::int64_t bx);

/// "" when IEC can run `d`, else a one-line reason naming the constraint (power-of-two rank count;
/// every rank holding Nx/Np^2 entries of each of the Np file chunks of Nx/Np entries).
/// The test is exact: a partition with Nx/Np entries per rank whose lists split evenly at every butterfly
/// phase, which the per-chunk condition implies but does not require (see docs/iec.md). check() == "" iff
/// the inspector delivers chunk bitrev(r) to every rank r.
std::string check(const Distribution& d);

// ---- the inspector's result for one rank

struct Phase {
  int partner = 0;
  std::int64_t recv_offset = 0;  ///< where the Nx/(2Np) received entries are stored, consecutively
  /// Positions in the rank's memory of the entries sent (Fig. 10, L4), held as strided segments and shared
  /// with the bundle that carried it.
  StridedDatatype send;
};

struct RankPlan {
  int rank = 0;
  std::int64_t alloc_offset = 0;    ///< where the rank's initial entries are placed
  std::int64_t buffer_entries = 0;  ///< size of the memory region
  std::vector<Phase> phases;
  StridedDatatype pack;          ///< Compute_Datatype_Intervaled of the final list (Fig. 10, L10)
  std::int64_t file_offset = 0;  ///< entry offset of the packed chunk in the file
};

/// One node of the inspector's recursive datatype bundle (§3.3.3): what rank `rank` sent in one phase, as
/// positions in its memory (`send`), with what resolves those positions to logical addresses: its
/// distribution datatype when `send` touches its initial region [alloc, alloc + region), and for each
/// earlier receive region that `send` touches, the bundle it received there (recursively). A bundle is
/// immutable once built and shares its children with the bundles they came in, so forwarding one costs
/// nothing but a pointer; on the wire it is its serialized words (Process::isend_shared):
///
///   Node := rank alloc region  send(count stride ntuples {offset length}*)
///           has_distr [distr(count stride ntuples {offset length}*)]  nchildren {recv_offset words Node}*
class Bundle final : public SharedMessage {
 public:
  struct Child {
    std::int64_t recv_offset = 0;  ///< where `rank` stored what the child's rank sent it
    std::shared_ptr<const Bundle> node;
    std::int64_t end = 0;  ///< recv_offset + the entries node sent (set by the Bundle)
  };
  Bundle(std::int64_t rank, std::int64_t alloc, std::int64_t region, StridedDatatype send,
         std::shared_ptr<const IndexedDatatype> distr, std::vector<Child> children);
  std::int64_t rank() const { return rank_; }
  std::int64_t alloc() const { return alloc_; }
  std::int64_t region() const { return region_; }
  /// alloc() + region(), saturated at the int64 limits (a parsed bundle can carry any values).
  std::int64_t initial_end() const { return initial_end_; }
  const StridedDatatype& send() const { return send_; }
  const IndexedDatatype* distr() const { return distr_.get(); }  ///< null when not carried
  const std::vector<Child>& children() const { return children_; }
  /// Serialized size in 64-bit words.
  std::int64_t words() const { return words_; }
  std::vector<std::int64_t> serialize_words() const;
  std::int64_t wire_size() const override { return words_ * 8; }
  void serialize(std::span<std::byte> out) const override;
  /// Parses serialized words; throws std::invalid_argument naming what is malformed.
  static std::shared_ptr<const Bundle> parse(std::span<const std::int64_t> words);
  /// parse() of serialized bytes (the decoder for Process::irecv_shared).
  static SharedMessagePtr decode(std::span<const std::byte> bytes);

 private:
  void put(std::int64_t*& out) const;
  std::int64_t rank_;
  std::int64_t alloc_;
  std::int64_t region_;
  std::int64_t initial_end_ = 0;
  StridedDatatype send_;
  std::shared_ptr<const IndexedDatatype> distr_;
  std::vector<Child> children_;
  std::int64_t words_ = 0;
};
using BundlePtr = std::shared_ptr<const Bundle>;

/// The entries a rank resolves in one phase, as periodic blocks in slot order (iec_inspector.cpp).
struct BlockSink;

/// The inspector of one rank as a step machine, so that it can be driven by a Process (one datatype
/// exchange per phase) or by a single thread stepping all ranks (for `ciosim plan` and tests).
class Inspector {
 public:
  /// How the inspector holds its list. `periodic` (the default) keeps a list that repeats with a fixed
  /// logical period as one period's runs and a replica count, as the paper's datatype parametrisation
  /// (§3.3.2) describes block-cyclic lists (2^ph tuples in phase ph whatever Nx), and unrolls it only when
  /// an operation leaves that form, and resolves the partner's send datatype a segment (a progression of
  /// tuples) at a time; `flat` holds every run, always, and resolves tuple by tuple. Plans and
  /// tuples_processed() are the same in both (tests compare them); only the work the host does differs.
  enum class Lists { periodic, flat };
  Inspector(const Distribution& d, int rank, Lists lists = Lists::periodic);
  int phases() const;
  /// The datatype bundle this rank sends to its partner in phase ph (its send datatype plus every datatype
  /// needed to resolve its memory positions: the recursive exchange of §3.3.3).
  BundlePtr outgoing(int ph);
  /// Consumes the partner's bundle for phase ph.
  void incoming(int ph, const BundlePtr& bundle);
  /// incoming() of a serialized bundle (throws std::invalid_argument when it is malformed).
  void incoming(int ph, const std::vector<std::int64_t>& words);
  /// After all phases: the plan. Throws std::logic_error if the final entries are not the contiguous
  /// chunk [file_offset, file_offset + Nx/Np) (cannot happen when check() passed).
  RankPlan finish();
  /// Offset-length tuples the paper's algorithm processes for the steps taken so far: one per entry of the
  /// list at each step (§3.3.3, Fig. 10), whatever form the list is held in. Charged when the paper's cost
  /// is asked for (CpuCharge::paper).
  std::int64_t tuples_processed() const;
  /// What this implementation processed so far: every element its loops visited (runs and tuples read or
  /// written, bitmap words, sort keys per radix pass, resolution steps), counted as they run. A periodic
  /// list's steps follow its streams, not its entries. Charged by default (CpuCharge::implementation).
  std::int64_t work() const;
  /// How the list is held now: its replica count (1: every run held) and its runs per replica.
  std::int64_t list_replicas() const { return reps_; }
  std::size_t list_runs() const { return list_.size(); }

 private:
  /// `length` consecutive elements of the paper's <logical, physical> list: logical + i at physical + i.
  struct Run {
    std::int64_t logical = 0;
    std::int64_t physical = 0;
    std::int64_t length = 0;
    std::int64_t pstride = 0;  ///< periodic lists: the physical step from one replica of the run to the next
  };
  /// `runs` repeated `reps` times with logical period `period`, as a flat list.
  static std::vector<Run> unrolled(const std::vector<Run>& runs, std::int64_t reps, std::int64_t period);
  /// The periodic list's replicas as a flat list (reps_ becomes 1).
  void unroll();
  /// A periodic list of one run that fills its period and steps by it becomes one flat run.
  void compact();
  /// Splits off the half of the list that Property 4 sends (L3) and returns it, periodic when the list is
  /// and the half is whole replicas; `reps` receives the returned list's replica count.
  std::vector<Run> split_half(bool second, std::int64_t& reps);
  /// Merges the entries received in phase ph (periodic blocks, see iec_inspector.cpp) into a periodic list;
  /// false, with nothing changed, when they do not share its period and replica count.
  bool merge_periodic(const BlockSink& blocks, std::int64_t base);
  /// L9 on a flat list: merges `fresh` (the received runs in slot order) into the sorted list.
  void merge_flat(std::vector<Run> fresh);
  /// L10 in closed form for a periodic list that holds the chunk; false when it does not apply.
  bool pack_periodic(RankPlan& plan) const;
  int rank_;
  int np_;
  int nph_;
  std::int64_t nx_;
  std::int64_t half_;  ///< Nx/(2 Np): entries sent and received per phase
  std::int64_t alloc_offset_;
  std::int64_t buffer_entries_;
  /// The entries the rank owns now, sorted by logical address, as runs (a block of Bx entries stays one run
  /// until it is split; adjacent runs that continue each other are joined). When reps_ > 1 the list is
  /// list_ repeated reps_ times, replica j of a run shifted by j * period_ logically and j * pstride
  /// physically; list_ then lies within one window of period_ entries, so the replicas stay sorted.
  std::vector<Run> list_;
  std::int64_t reps_ = 1;
  std::int64_t period_ = 0;
  std::vector<Phase> phases_;
  std::shared_ptr<const IndexedDatatype> distr_;  ///< the rank's distribution datatype, for its bundles
  std::vector<BundlePtr> received_;               ///< the partner's bundle of each phase
  int next_out_ = 0;                              ///< next phase for outgoing()
  int next_in_ = 0;                               ///< next phase for incoming()
  bool finished_ = false;
  /// Lists::periodic also resolves a segment of the partner's send datatype as one progression; the flat
  /// lists resolve tuple by tuple (the reference the tests compare with).
  bool progressions_ = false;
  std::int64_t tuples_ = 0;
  std::int64_t work_ = 0;
};

/// Runs the inspector of every rank in one thread (no Process needed).
std::vector<RankPlan> inspect_all(const Distribution& d, Inspector::Lists lists = Inspector::Lists::periodic);

/// Runs the inspector on a Process: one bundle exchange with the partner per phase (isend/irecv of the
/// size, then of the bundle), CPU work charged as work() plus the bundles' words serialized and parsed
/// (CpuCharge::implementation) or as tuples_processed() (paper). Marks phase "inspector".
RankPlan inspect(Process& p, const Distribution& d, CpuCharge cost = CpuCharge::implementation);

// ---- parametrised datatypes (§3.3.2, "Datatype parametrization"; iec_parametric.cpp, docs/iec.md)

/// Bx when `d` is block_cyclic(d.nx, Np, Bx): rank r holds the tuple {r*Bx, Bx} replicated Nx/(Np*Bx) times
/// with stride Np*Bx. Else 0.
std::int64_t block_cyclic_bx(const Distribution& d);
/// "" when iec-parametric can run `d` (a block-cyclic distribution that check() accepts), else a one-line
/// reason.
std::string check_parametric(const Distribution& d);
/// The plan of rank `rank` for block_cyclic(nx, np, bx), computed by the rank alone from Nx, Np and Bx in
/// O(log^2 Np) steps (O(Nx) for one rank), without the inspector's datatype exchange: equal in every field
/// to inspect_all's
/// (tests/test_iec_parametric.cpp). Throws std::invalid_argument when the shape has no plan (check first).
/// `work`, when given, receives the elements the computation visited (its loops' steps).
RankPlan parametric_plan(std::int64_t nx, int np, std::int64_t bx, int rank, std::int64_t* work = nullptr);
/// The tuples the parametrised equations produce for `plan`: those of its send datatypes and of one
/// replica of its packing datatype (Property 1: 2^ph send tuples in phase ph).
std::int64_t parametric_tuples(const RankPlan& plan);
/// The parametrised inspector on a Process: the rank's plan (parametric_plan), charged as the steps its
/// computation took (CpuCharge::implementation) or as parametric_tuples (paper); no messages. Marks phase
/// "inspector". Throws std::invalid_argument unless `d` has p.size() ranks and the rank's datatype is
/// block-cyclic's (check_parametric checks every rank's).
RankPlan inspect_parametric(Process& p, const Distribution& d, CpuCharge cost = CpuCharge::implementation);

/// The executor (Fig. 2, L5-L9): places `local` at alloc_offset in a buffer of buffer_entries, runs the
/// exchange phases (phase marks "exchange0", "exchange1", ...), packs ("pack") and writes the packed
/// chunk at file_offset ("write"). The file must be open.
/// With CpuCharge::implementation the buffer is allocated and `local` copied into it in phase "place",
/// charged as those bytes; with paper the entries are already there (Fig. 2 L1-L2: not charged, no phase).
void execute(Process& p, const RankPlan& plan, std::int64_t element_size, LocalData local,
             CpuCharge charge = CpuCharge::implementation);

/// The technique entry point registered as "iec": inspector once, then `iterations` executions.
void run(Process& p, const TechniqueInput& in, LocalData local);

/// The technique registered as "iec-parametric": inspect_parametric once, then `iterations` executions.
void run_parametric(Process& p, const TechniqueInput& in, LocalData local);

// ---- the executor's data movement without a Process (tests, `ciosim plan`)

/// The packed chunk of one rank (Fig. 2, L7): `buffer` (buffer_entries * element_size bytes, after all
/// exchange phases) packed by plan.pack. The same code path as execute().
std::vector<std::byte> pack_chunk(const RankPlan& plan, std::span<const std::byte> buffer,
                                  std::int64_t element_size);

/// Runs the executor's data movement for every rank in one thread: places local[r] at alloc_offset, performs
/// the first `phases` exchange phases (all of them when phases < 0) and returns every rank's buffer.
std::vector<std::vector<std::byte>> exchange_all(const std::vector<RankPlan>& plans,
                                                 std::int64_t element_size,
                                                 const std::vector<std::vector<std::byte>>& local,
                                                 int phases = -1);

/// Each rank's memory after `phases` exchange phases (all when phases < 0), as the logical index of x held in
/// every buffer entry, -1 where nothing was stored yet (the layouts of Figs. 3, 5 and 6 of the conference
/// paper). Moves real data (8-byte indices) with exchange_all.
std::vector<std::vector<std::int64_t>> simulate_memory(const Distribution& d,
                                                       const std::vector<RankPlan>& plans, int phases = -1);

/// The file IEC writes: every rank's packed chunk placed at its file_offset (moves real bytes built with
/// make_local_data). Equals expected_file(d, FileLayout::Logical, element_size) when the plans are right.
std::vector<std::byte> simulate_file(const Distribution& d, const std::vector<RankPlan>& plans,
                                     std::int64_t element_size);

}  // namespace ciosim::iec
