// What every collective I/O technique receives and the registry that names them (registered explicitly,
// no static-constructor magic; docs/architecture.md, "Where to add").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/payload.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/common/session.hpp"
#include "algorithms/two_phase/hints.hpp"

namespace ciosim {

/// How the entries of the global vector x (Nx entries) are distributed over the ranks. For rank r,
/// `per_rank[r]` lists, in the order the rank stores them, the logical positions (indices into x) of its
/// entries: the paper's Distr_Datatype (Fig. 11). Shared, read-only, by all ranks of a run.
struct Distribution {
  std::int64_t nx = 0;             ///< entries of the global vector
  std::vector<Datatype> per_rank;  ///< per rank: logical positions of its entries, in storage order
  /// Entries per item of the application's domain (the mesh workload: one mesh node of `load` entries);
  /// the LAP aggregator assignment counts in items. Every tuple of per_rank is a whole number of items.
  std::int64_t unit = 1;
  int nprocs() const { return static_cast<int>(per_rank.size()); }
  /// Entries of ranks 0 .. rank-1 together (rank in [0, Np]). The prefix sums are built on the first call
  /// and kept, so that Np ranks asking cost O(Np) in all, not O(Np^2); per_rank must not change after.
  /// Safe to call from ranks on threads at once (the tests' in-memory Process runs a thread per rank).
  std::int64_t entries_before(int rank) const;

 private:
  /// The prefix sums, built under a lock; a copy or an assignment starts without them.
  struct PrefixSums {
    PrefixSums() = default;
    PrefixSums(const PrefixSums&) {}
    PrefixSums& operator=(const PrefixSums&) {
      const std::lock_guard lock(mu);
      sums.clear();
      return *this;
    }
    std::mutex mu;
    std::vector<std::int64_t> sums;
  };
  mutable PrefixSums entries_before_;
};

/// What a technique's CPU work is charged as, where its paper's algorithm and this implementation differ
/// (run.cpu_charge): `implementation`, the work of the code that runs — IEC's inspector loops, counted as
/// they run, and the copy that places a rank's entries in IEC's or multiple-phase's buffer — or `paper`,
/// the paper's algorithm: one tuple per list entry at each inspector step, and the application's entries
/// already in place (IEC Fig. 2 L1-L2, multiple-phase Fig. 3), for reproducing a paper's figures — or
/// `library` (two-phase only), the MPI library's own MPI_File_write_all/read_all: two-phase's calls, and
/// the per-piece work of ROMIO's aggregators (a datatype built, committed and freed over the pieces of
/// each round, the heap merge of the hole test) charged at the calibrated nodes.romio_piece_s in place of
/// ciosim's staging, for predicting what the library a user calls costs.
enum class CpuCharge { implementation, paper, library };

/// What a technique is run on, on one rank.
struct TechniqueInput {
  const Distribution* dist = nullptr;
  std::int64_t element_size = 4;  ///< bytes per entry of x (the papers use 4-byte floats)
  std::string file_name = "x.dat";
  int iterations = 1;  ///< how many times the write is repeated (the inspector runs once)
  IoHints hints;       ///< MPI-IO hints (two-phase, list I/O, gathered)
  int phases = 0;      ///< communication phases of multiple-phase (run.phases); 0 = all (log2 Np)
  CpuCharge cpu_charge = CpuCharge::implementation;  ///< run.cpu_charge
};

/// The rank's entries: element k holds the bytes of x[phy2log(dist.per_rank[rank], k)].
using LocalData = std::span<const std::byte>;

/// Where a technique puts entry i of x in the file.
enum class FileLayout {
  Logical,   ///< x in its original order: entry i at byte i*element_size (what collective I/O promises)
  RankMajor  ///< rank 0's entries in storage order, then rank 1's, ... (Block I/O, the reference)
};

struct TechniqueInfo {
  std::string name;
  std::string description;  ///< one paragraph
  std::string citation;
  FileLayout layout = FileLayout::Logical;
  /// Checks whether the technique can run this distribution; returns "" if so, else a one-line reason
  /// naming the constraint.
  std::function<std::string(const Distribution&)> check;
  std::function<void(Process&, const TechniqueInput&, LocalData)> run;
  /// Reads the rank's entries back into its buffer (storage order) from a file laid out as `layout`
  /// says; empty when the technique has no read path.
  std::function<void(Process&, const TechniqueInput&, std::span<std::byte>)> read;
  /// For a technique that runs a chosen number of phases (run.phases): "" when `phases` (0 = all) can run
  /// on `ranks` ranks, else a one-line reason naming the valid range. Empty: the technique ignores
  /// run.phases.
  std::function<std::string(int phases, int ranks)> check_phases;
  /// For a technique that keeps state while the file is open (view-based I/O's cached buffers): a session
  /// on p's rank (algorithms/common/session.hpp). Empty: the driver runs `run` / `read` once per write /
  /// read of the sequence, at the current view's displacement.
  std::function<std::unique_ptr<Session>(Process&, const TechniqueInput&)> session;
  /// The technique moves its payload only through payload::copy, pack/unpack and the seam's point-to-point
  /// and file calls, so it runs on elided buffers (run.payload = elided; algorithms/common/payload.hpp).
  bool elided = false;
  /// Every rank keeps the whole array (multiple-phase): with bytes a point holds Np copies of the file,
  /// elided about a piece per entry (run.payload = auto weighs that: auto_elided).
  bool array_per_rank = false;
  /// Its copies move each rank's data as whole streams (IEC's butterfly exchanges and packing): elided,
  /// a distribution of one piece a rank (block-cyclic, any Bx) stays a few grouped pieces a rank in every
  /// buffer, however fine its blocks (run.payload = auto weighs that: auto_elided).
  bool whole_streams = false;
  /// Its session can write and read part of a rank's view in one call (Session::write_part; run.sequence's
  /// write/N and read/N).
  bool partial_calls = false;
};

/// All registered techniques, in a fixed order.
const std::vector<TechniqueInfo>& techniques();
/// The technique called `name`; throws std::invalid_argument naming the valid choices.
const TechniqueInfo& technique(const std::string& name);

/// Throws std::invalid_argument (one line, naming `technique`) unless `in` is usable on p's rank: a
/// distribution with p.size() ranks, element_size > 0, iterations >= 1, and a buffer of exactly the rank's
/// entries (buffer_bytes).
void check_input(const Process& p, const TechniqueInput& in, std::size_t buffer_bytes,
                 const std::string& technique);

/// The value stored in entry i of x: its index, as little-endian bytes, repeated/truncated to
/// element_size bytes. Distinct for every i < 2^32 when element_size >= 4.
void fill_entry(std::int64_t i, std::span<std::byte> out);
/// The rank's local data for a distribution (element k = x[phy2log(per_rank[rank], k)]). With `base`, entry i
/// carries the value of entry base + i (an operation sequence's later steps: algorithms/sequence.hpp).
std::vector<std::byte> make_local_data(const Distribution& d, int rank, std::int64_t element_size,
                                       std::int64_t base = 0);
/// Whether a and b hold the same bytes (memcmp: std::equal and vector's == compare std::byte one at a time).
bool same_bytes(std::span<const std::byte> a, std::span<const std::byte> b);
/// The file a technique with `layout` must produce.
std::vector<std::byte> expected_file(const Distribution& d, FileLayout layout, std::int64_t element_size,
                                     std::int64_t base = 0);

/// "" when `t` can run with elided payloads (run.payload = elided), alone or in an operation sequence
/// (`sequence`), else a one-line reason naming the techniques that can.
std::string why_not_elided(const TechniqueInfo& t, bool sequence);

/// run.payload = auto's rule for a technique that can run elided, given the point's data, its regions (the
/// distribution's tuples, every replica counted), the copies of the whole array its ranks keep with bytes
/// (1, or Np for a technique with array_per_rank), and whether its buffers stay a few pieces a rank
/// (`few_pieces`: a technique with whole_streams on a distribution of at most a piece a rank). Elided:
///  - from 1 GiB of data when the regions average at least 4 KiB. The techniques' copies visit every region
///    in either mode, and an elided region is a step in a piece map where bytes make a short memmove: at
///    Bx = 1 two-phase runs 1.3x slower elided on 500 MiB (docs/history/benchmarks-log.md, 2026-11-27);
///  - from 1 GiB of data with few_pieces, whatever the regions: IEC on 16 ranks, 1 GiB, elided against
///    bytes (2026-11-27, third session): 16.5 s and 271 MiB against 21.5 s and 7.0 GiB at Bx = 1, 0.33 s
///    and 35 MiB against 18.3 s and 7.0 GiB at Bx = 64;
///  - when at least 128 ranks keep a copy of the array and those copies come to 1 GiB. Multiple-phase at
///    Bx = 1, elided against bytes (2026-11-27, second session): 1.9x slower on 64 ranks (16 MiB), even on
///    128, 1.6x and 3.5x faster on 256 and 1024 (4 MiB), with 3x to 23x less memory; on 16 ranks 3.8x slower
///    (64 MiB).
bool auto_elided(double data_bytes, double regions, double array_copies = 1, bool few_pieces = false);
/// Resident bytes per piece of an elided buffer, for memory estimates: a node of payload::PieceMap's
/// std::map is 32 B of tree links and colour plus 8 B of key and 48 B of piece, 88 B, which glibc's malloc
/// hands out as a 96 B chunk (derived from the structure, not measured alone).
constexpr double kBytesPerPiece = 96;

/// make_local_data as an elided buffer (algorithms/common/payload.hpp): the same bytes, as their sources.
payload::Buffer make_local_payload(const Distribution& d, int rank, std::int64_t element_size,
                                   std::int64_t base = 0);
/// expected_file as pieces: the sources of the bytes the file must hold.
std::vector<payload::Piece> expected_pieces(const Distribution& d, FileLayout layout,
                                            std::int64_t element_size, std::int64_t base = 0);

}  // namespace ciosim
