// The registry of collective I/O techniques and the data every technique is checked against (registered
// explicitly, no static-constructor magic; docs/architecture.md, "Where to add").
#include "algorithms/technique.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "algorithms/baselines/block_io.hpp"
#include "algorithms/baselines/gathered.hpp"
#include "algorithms/baselines/independent.hpp"
#include "algorithms/baselines/list_io.hpp"
#include "algorithms/baselines/sequential.hpp"
#include "algorithms/iec/iec.hpp"
#include "algorithms/multiple_phase/multiple_phase.hpp"
#include "algorithms/two_phase/two_phase.hpp"
#include "algorithms/view_based/view_based.hpp"

namespace ciosim {

std::int64_t Distribution::entries_before(int rank) const {
  if (rank < 0 || rank > nprocs())
    throw std::invalid_argument("entries_before: rank must be in [0, Np] (rank=" + std::to_string(rank) +
                                ", Np=" + std::to_string(nprocs()) + ")");
  const std::lock_guard lock(entries_before_.mu);
  std::vector<std::int64_t>& sums = entries_before_.sums;
  if (sums.size() != per_rank.size() + 1) {
    sums.assign(1, 0);
    for (const Datatype& dt : per_rank) sums.push_back(sums.back() + dt.size());
  }
  return sums[static_cast<std::size_t>(rank)];
}

namespace {

const char* const kIecCitation =
    "D. E. Singh, F. Isaila, J. C. Pichel, J. Carretero, \"A collective I/O implementation based on "
    "inspector-executor paradigm\", The Journal of Supercomputing 47(1):53-75, 2009";

const char* const kMultiplePhaseCitation =
    "D. E. Singh, F. Isaila, A. Calderon, F. Garcia, J. Carretero, \"Multiple-Phase Collective I/O Technique "
    "for Improving Data Access Locality\", 15th Euromicro PDP, 2007, doi:10.1109/PDP.2007.54";

std::vector<TechniqueInfo> make_registry() {
  std::vector<TechniqueInfo> list;
  list.push_back(TechniqueInfo{
      "iec",
      "Inspector-Executor Collective I/O (IEC I/O): an inspector, run once, generates offset-length "
      "datatypes "
      "for log2(Np) butterfly exchange phases by tracking the logical and physical address of every entry a "
      "rank "
      "owns and exchanging datatypes recursively with its partners; each execution then swaps Nx/(2Np) "
      "entries "
      "with the phase partner in every phase, packs the now contiguous chunk of Nx/Np entries and writes it "
      "with "
      "one contiguous request at the bit-reversed rank's offset. Needs a power-of-two Np and a distribution "
      "that "
      "halves evenly at every phase (e.g. block-cyclic with Nx divisible by Np^2*Bx).",
      std::string(kIecCitation) + ", §3",
      FileLayout::Logical,
      iec::check,
      iec::run,
      {},
      {},
      {},
      true,   // runs elided (run.payload)
      false,  // one copy of the array
      true,   // moves whole streams: few elided pieces a rank
  });
  list.push_back(TechniqueInfo{
      "iec-parametric",
      "IEC I/O with parametrised datatypes, for block-cyclic distributions: each rank computes its IEC plan "
      "(the same send, receive and packing datatypes as the inspector's) from Nx, Np and Bx alone, as the "
      "paper's datatype parametrisation proposes for regular distributions, so the inspector exchanges no "
      "datatypes and costs only the steps of that computation; the executor is IEC's. Needs what IEC needs, "
      "and a block-cyclic distribution.",
      std::string(kIecCitation) + ", §3.3.2",
      FileLayout::Logical,
      iec::check_parametric,
      iec::run_parametric,
      {},
      {},
      {},
      true,   // runs elided (run.payload)
      false,  // one copy of the array
      true,   // moves whole streams: few elided pieces a rank
  });
  list.push_back(TechniqueInfo{
      "block",
      "Block I/O, the reference of the IEC comparison: every rank writes its local entries, in storage "
      "order, as "
      "one contiguous request right after those of the lower ranks. No communication and maximal locality, "
      "but "
      "the file is not in x's order (rank-major), so it is not a valid collective write; it bounds what any "
      "technique can achieve.",
      std::string(kIecCitation) + ", §4.2",
      FileLayout::RankMajor,
      block_io::check,
      block_io::run,
      block_io::run_read,
      {},
      {},
      true,  // runs elided (run.payload)
  });
  list.push_back(TechniqueInfo{
      "two-phase",
      "ROMIO's extended two-phase collective I/O (generic ADIO path, MPI_File_write_all/read_all): each "
      "rank flattens its view into offset-length pieces; two Allgathers of start/end offsets and the "
      "interleave test decide between collective and independent I/O (romio_cb_write/read); the accessed "
      "range is split into one file domain per aggregator (cb_nodes, cb_config_list, striping_unit); the "
      "pieces are sent to their domains' aggregators (Alltoall of counts, then the offset-length lists), "
      "and in rounds of cb_buffer_size bytes the aggregators receive the data (Alltoall of sizes, "
      "Isend/Irecv, Waitall), read-modify-write windows with holes and write each window contiguously; "
      "reads mirror it. Call for call as ROMIO (hints.romio_version: modern MPICH or 2007).",
      "R. Thakur, A. Choudhary, \"An Extended Two-Phase Method for Accessing Sections of Out-of-Core "
      "Arrays\", Scientific Programming 5(4):301-317, 1996; R. Thakur, W. Gropp, E. Lusk, \"Data Sieving "
      "and Collective I/O in ROMIO\", Frontiers 1999, pp. 182-189; compared in " +
          std::string(kIecCitation) + ", §4.2",
      FileLayout::Logical,
      two_phase::check,
      two_phase::run_write,
      two_phase::run_read,
      {},
      two_phase::make_session,  // the aggregators once per open in an operation sequence
      true,                     // runs elided (run.payload)
  });
  list.push_back(TechniqueInfo{
      "list-io",
      "List I/O: every rank issues independent file-system requests, each carrying up to "
      "hints.listio_batch offset-length regions of its data (64 in ROMIO's PVFS2 driver), one batch after "
      "the other; no communication between ranks. The PVFS client splits a request by stripe and each "
      "server handles its regions one by one, so small regions cost per-region overhead.",
      "A. Ching, A. Choudhary, W.-K. Liao, R. Ross, W. Gropp, \"Noncontiguous I/O through PVFS\", IEEE "
      "Cluster 2002; compared in " +
          std::string(kIecCitation) + ", §4.2",
      FileLayout::Logical,
      list_io::check,
      list_io::run_write,
      list_io::run_read,
      {},
      {},
      true,  // runs elided (run.payload)
  });
  list.push_back(TechniqueInfo{
      "independent",
      "Independent I/O without optimisation: every rank writes (reads) each contiguous piece of its data "
      "with its own contiguous request, in the order it stores them; no communication, one file-system "
      "request per piece.",
      "R. Thakur, W. Gropp, E. Lusk, \"Data Sieving and Collective I/O in ROMIO\", Frontiers 1999, §2",
      FileLayout::Logical,
      independent::check,
      independent::run_write,
      independent::run_read,
      {},
      {},
      true,  // runs elided (run.payload)
  });
  list.push_back(TechniqueInfo{
      "gathered",
      "Gathered (sequential) I/O: rank 0 collects every rank's offset-length list, then the file is "
      "handled in cb_buffer_size chunks in file order: each rank sends rank 0 its bytes of the chunk with "
      "point-to-point messages and rank 0 writes the chunk with one contiguous request (reads: rank 0 "
      "reads each chunk and sends every rank its part). Only one process touches the file.",
      "R. Thakur, W. Gropp, E. Lusk, \"Data Sieving and Collective I/O in ROMIO\", Frontiers 1999, §1; "
      "the sequential baseline of " +
          std::string(kIecCitation),
      FileLayout::Logical,
      gathered::check,
      gathered::run_write,
      gathered::run_read,
      {},
      {},
      true,  // runs elided (run.payload)
  });
  list.push_back(TechniqueInfo{
      "multiple-phase",
      "Multiple-Phase Collective I/O: the array is a regular distribution (STEM-II: planes of Nx*Ny entries, "
      "a block of y rows per rank) and every rank keeps the whole array in memory. In each of run.phases "
      "communication phases (1..log2 Np, default all) every rank pairs with its butterfly partner (Fig. 5, "
      "IEC's pairs in IEC's order), keeps half of its current range of planes and swaps the other half of "
      "its data for the partner's, storing what it receives in its unassigned entries; the offset-length "
      "datatypes are closed forms of the distribution (no inspector). Then every rank writes what it holds "
      "with one access through a file view: a list of pieces, or one contiguous block after log2 Np "
      "phases (reads: that access, then the phases undone in reverse). Needs a power-of-two Np.",
      std::string(kMultiplePhaseCitation) + ", §4",
      FileLayout::Logical,
      multiple_phase::check,
      multiple_phase::run,
      multiple_phase::run_read,
      multiple_phase::check_phases,
      {},
      true,  // runs elided (run.payload)
      true,  // keeps the whole array on every rank
  });
  list.push_back(TechniqueInfo{
      "sequential",
      "Sequential output (the paper's Sec NFS / Sec /tmp baselines): every rank's entries are gathered at "
      "rank 0 with one Gatherv (the \"1st level\" communication), rank 0 puts them in the array's order "
      "and writes the whole file with one contiguous request. Only one process touches the file; on which "
      "file system is the platform's.",
      std::string(kMultiplePhaseCitation) + ", §5",
      FileLayout::Logical,
      sequential::check,
      sequential::run_write,
      {},
      {},
      {},
      true,  // runs elided (run.payload)
  });
  list.push_back(TechniqueInfo{
      "view-based",
      "View-based collective I/O: at set_view every rank ships its view (displacement, element size, "
      "flattened filetype) once to every aggregator, which keeps all views. The file is cut into blocks of "
      "one collective buffer (hints.vb_buffer_size, default cb_buffer_size) owned round-robin by the "
      "aggregators (hints.vb_aggregators, default every rank): no per-call file domains or offset lists. "
      "A call (on the whole view or part of it) sends each aggregator the extremities of its view interval, "
      "then the rank's pieces of that aggregator's blocks coalesced into network buffers "
      "(hints.vb_network_buffer); the aggregator scatters them as they arrive, through the stored view, into "
      "collective buffers cached in a pool (hints.vb_pool_size, LRU; a write miss on a block the call writes "
      "in part reads it first); dirty buffers are written on eviction, at sync and at close "
      "(write-on-close). A read sends the same interval as its request; the aggregator answers from the "
      "cache, reading a block on a miss.",
      "J. Garcia Blas, F. Isaila, D. E. Singh, J. Carretero, \"View-based collective I/O for MPI-IO\", "
      "8th IEEE International Symposium on Cluster Computing and the Grid (CCGrid), 2008, §IV-V",
      FileLayout::Logical,
      view_based::check,
      view_based::run_write,
      view_based::run_read,
      {},
      view_based::make_session,
      true,   // runs elided (run.payload)
      false,  // one view per rank
      false,  // no whole streams
      true,   // calls on part of the view (run.sequence's write/N, read/N)
  });
  return list;
}

}  // namespace

const std::vector<TechniqueInfo>& techniques() {
  static const std::vector<TechniqueInfo> registry = make_registry();  // immutable once built
  return registry;
}

const TechniqueInfo& technique(const std::string& name) {
  const auto& all = techniques();
  for (const TechniqueInfo& t : all)
    if (t.name == name) return t;
  std::string valid;
  for (const TechniqueInfo& t : all) valid += (valid.empty() ? "" : ", ") + t.name;
  throw std::invalid_argument("unknown algorithm '" + name + "' (valid: " + valid + ")");
}

void check_input(const Process& p, const TechniqueInput& in, std::size_t buffer_bytes,
                 const std::string& technique) {
  if (in.dist == nullptr)
    throw std::invalid_argument(technique + ": TechniqueInput.dist is null (a distribution is required)");
  if (in.element_size <= 0)
    throw std::invalid_argument(technique + ": element size must be positive (got " +
                                std::to_string(in.element_size) + ")");
  if (in.iterations < 1)
    throw std::invalid_argument(technique + ": iterations must be >= 1 (got " +
                                std::to_string(in.iterations) + ")");
  if (in.dist->nprocs() != p.size())
    throw std::invalid_argument(technique + ": the distribution has " + std::to_string(in.dist->nprocs()) +
                                " ranks, the run has " + std::to_string(p.size()));
  const std::int64_t need = in.dist->per_rank[static_cast<std::size_t>(p.rank())].size() * in.element_size;
  if (static_cast<std::int64_t>(buffer_bytes) != need)
    throw std::invalid_argument(technique + ": rank " + std::to_string(p.rank()) + " has a buffer of " +
                                std::to_string(buffer_bytes) + " bytes, its entries need " +
                                std::to_string(need));
}

void fill_entry(std::int64_t i, std::span<std::byte> out) {
  const auto v = static_cast<std::uint64_t>(i);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = static_cast<std::byte>((v >> (8 * (k % 8))) & 0xFF);
}

namespace {

/// fill_entry of entries first, first + 1, ..., first + n - 1, back to back from `out` (es bytes each). On a
/// little-endian host an entry's bytes are its value's first es bytes in memory, repeated every 8, so
/// whole values are stored at once (the study's bytes points spent over a third of their time here,
/// byte by byte).
void fill_entries(std::int64_t first, std::int64_t n, std::size_t es, std::byte* out) {
  if constexpr (std::endian::native == std::endian::little) {
    auto store = [&]<std::size_t W>(std::integral_constant<std::size_t, W>) {
      for (std::int64_t i = 0; i < n; ++i, out += W) {
        const auto v = static_cast<std::uint64_t>(first + i);
        std::memcpy(out, &v, W);
      }
    };
    switch (es) {
      case 1:
        return store(std::integral_constant<std::size_t, 1>{});
      case 2:
        return store(std::integral_constant<std::size_t, 2>{});
      case 4:
        return store(std::integral_constant<std::size_t, 4>{});
      case 8:
        return store(std::integral_constant<std::size_t, 8>{});
      default:
        break;
    }
  }
  for (std::int64_t i = 0; i < n; ++i, out += es) fill_entry(first + i, std::span<std::byte>(out, es));
}

/// The local data of a rank with datatype `dt`, written from `out` (dt.size() * es bytes).
void fill_local(const Datatype& dt, std::size_t es, std::int64_t base, std::byte* out) {
  for (std::int64_t j = 0; j < dt.count; ++j)
    for (const Tuple& t : dt.tuples) {
      fill_entries(base + t.offset + j * dt.stride, t.length, es, out);
      out += static_cast<std::size_t>(t.length) * es;
    }
}

}  // namespace

std::vector<std::byte> make_local_data(const Distribution& d, int rank, std::int64_t element_size,
                                       std::int64_t base) {
  if (rank < 0 || rank >= d.nprocs())
    throw std::invalid_argument("make_local_data: rank must be in [0, Np) (rank=" + std::to_string(rank) +
                                ", Np=" + std::to_string(d.nprocs()) + ")");
  if (element_size <= 0)
    throw std::invalid_argument("make_local_data: element size must be positive (got " +
                                std::to_string(element_size) + ")");
  const Datatype& dt = d.per_rank[static_cast<std::size_t>(rank)];
  const auto es = static_cast<std::size_t>(element_size);
  std::vector<std::byte> out(static_cast<std::size_t>(dt.size()) * es);
  fill_local(dt, es, base, out.data());
  return out;
}

bool same_bytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

std::vector<std::byte> expected_file(const Distribution& d, FileLayout layout, std::int64_t element_size,
                                     std::int64_t base) {
  if (element_size <= 0)
    throw std::invalid_argument("expected_file: element size must be positive (got " +
                                std::to_string(element_size) + ")");
  const auto es = static_cast<std::size_t>(element_size);
  if (layout == FileLayout::RankMajor) {  // every rank's local data, rank after rank
    std::size_t bytes = 0;
    for (const Datatype& dt : d.per_rank) bytes += static_cast<std::size_t>(dt.size()) * es;
    std::vector<std::byte> out(bytes);
    std::byte* at = out.data();
    for (const Datatype& dt : d.per_rank) {
      fill_local(dt, es, base, at);
      at += static_cast<std::size_t>(dt.size()) * es;
    }
    return out;
  }
  std::vector<std::byte> out(static_cast<std::size_t>(d.nx) * es);
  fill_entries(base, d.nx, es, out.data());
  return out;
}

}  // namespace ciosim
