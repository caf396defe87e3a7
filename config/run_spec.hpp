// One simulation run after sweep expansion, and what it produces (results schema v1, docs/results.md).
// No SimGrid here: app/ and config/ build RunSpecs; sim/ runs them.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/technique.hpp"
#include "algorithms/two_phase/hints.hpp"
#include "models/local/local_config.hpp"
#include "models/network/profiles.hpp"
#include "models/nfs/nfs_config.hpp"
#include "models/pvfs/pvfs_config.hpp"

namespace ciosim {

/// A cluster: compute nodes, their CPU cost model, its file system, and the default networks.
struct PlatformSpec {
  std::string name;
  std::string description;
  int nodes = 16;             ///< compute nodes
  int cores_per_node = 1;     ///< ranks placed per node (rank r on node r / cores_per_node)
  int cpu_cores = 1;          ///< cores a node's ranks share for their CPU work (compute)
  double memcpy_Bps = 300e6;  ///< CPU cost of copying, bytes/s
  /// The node's memory bandwidth for copies, shared by its ranks' concurrent copies (each also at most
  /// memcpy_Bps, what one copy alone gets), bytes/s; NaN (not given): every copy at memcpy_Bps whatever
  /// the node's other ranks do (the model before the key).
  double memory_Bps = std::numeric_limits<double>::quiet_NaN();
  double tuple_cost_s = 50e-9;  ///< CPU cost per offset-length tuple processed, s
  /// The cost per tuple of each kind of loop (Step) with a key of its own (nodes.tuple_cost_<step>_s), s;
  /// NaN (not given, the model before the keys): tuple_cost_s. [Pack] is unused: tuple_cost_s is pack's.
  std::array<double, kStepKinds> step_tuple_cost_s = unset_steps();
  /// What a tuple of `s` costs, s.
  double tuple_cost(Step s) const {
    const double v = step_tuple_cost_s[static_cast<std::size_t>(s)];
    return s == Step::Pack || std::isnan(v) ? tuple_cost_s : v;
  }
  /// The seconds `w` takes on a core of its own: its bytes at memcpy_Bps, its tuples at their step's cost,
  /// the library's pieces at romio_piece_s, and its own computation.
  double cpu_seconds(const Work& w) const {
    return static_cast<double>(w.bytes_copied) / memcpy_Bps +
           static_cast<double>(w.tuples) * tuple_cost(w.step) +
           static_cast<double>(w.library_pieces) * romio_piece_s + w.seconds;
  }
  static std::array<double, kStepKinds> unset_steps() {
    std::array<double, kStepKinds> a{};
    a.fill(std::numeric_limits<double>::quiet_NaN());
    return a;
  }
  /// The MPI library's own collective write per piece an aggregator receives (ROMIO's datatype work), s;
  /// 0 = not measured (run.cpu_charge = library refuses the platform). Measured by ciosim calibrate.
  double romio_piece_s = 0;
  double loopback_Bps = 1e9;             ///< intra-node message bandwidth, bytes/s
  std::string network_mpi = "myrinet";   ///< default profile of the MPI network
  std::string network_io = "myrinet";    ///< default profile of the network PVFS uses
  std::vector<NetworkProfile> networks;  ///< the platform file's own profiles ([network.profiles.NAME])
  std::string filesystem = "pvfs";       ///< the file system model ([filesystem] kind; kinds.hpp)
  /// The file systems whose table the platform file gives, each a kind `filesystem` may be set to.
  std::vector<std::string> filesystems = {"pvfs"};
  /// What MPI_File_close does before the file system's close ([filesystem] close): "local", each rank
  /// closes on its own; "barrier", every rank waits for all of them first, as ROMIO does for drivers with
  /// shared file pointers (UFS, NFS) and OMPIO's file-system components do.
  std::string close = "local";
  PvfsConfig pvfs;
  NfsConfig nfs;
  LocalDiskConfig local;
};

struct WorkloadSpec {
  std::string kind = "block-cyclic";  ///< a workloads() name (config/workload.hpp)
  std::int64_t nx = 0;  ///< entries of the global vector (block3d: slowest dimension; stem2: Nx; mesh: nodes)
  std::int64_t ny = 1;  ///< block3d: the middle dimension; stem2: Ny (block-distributed)
  std::int64_t nz = 1;  ///< block3d: the fastest dimension; stem2: Nz
  std::int64_t nl = 1;  ///< stem2: Nl, chemical species
  std::int64_t nchem = 1;         ///< stem2: Nph, chemical phases (not run.phases)
  std::int64_t bx = 1;            ///< block size in entries (block-cyclic)
  std::int64_t element_size = 4;  ///< bytes per entry
  std::uint64_t seed = 1;         ///< irregular: random seed
  std::string file;               ///< lists: TOML file with each rank's (offset, length) tuples
  std::string replay = "calls";   ///< trace: "calls" (one by one) or "union" (one collective write)
  std::string partition;          ///< mesh: the partition file (one owner rank per mesh node and line)
  std::string graph;              ///< mesh: a METIS graph file, partitioned with METIS instead
  std::int64_t load = 1;          ///< mesh: entries per mesh node (the kernel's load L)
  std::string btio_class = "B";   ///< btio: the NPB class (S, W, A, B, C)
  std::int64_t mflops = 640;      ///< btio: sustained Mflop/s of one rank in BT's solver (compute time)
  std::int64_t tiles_x = 0;       ///< tile: tiles per row (0: from MPI_Dims_create(ranks, 2))
  std::int64_t tiles_y = 0;       ///< tile: tile rows (0: run.ranks / tiles_x)
  std::int64_t tile_x = 0;        ///< tile: elements per tile row (required for tile)
  std::int64_t tile_y = 0;        ///< tile: rows per tile (required for tile)
  std::int64_t overlap_x = 0;     ///< tile: elements shared by horizontal neighbours (must be 0)
  std::int64_t overlap_y = 0;     ///< tile: rows shared by vertical neighbours (must be 0)
  std::int64_t header_bytes = 0;  ///< tile: bytes before the array (a multiple of element_size)
};

/// What a run measures: the technique's write, or its read of a file written beforehand (untimed).
enum class Access { Write, Read };

/// run.payload: whether buffers carry bytes or only their sources (algorithms/common/payload.hpp). Auto
/// chooses by size (config::auto_chooses_elided).
enum class PayloadChoice { Auto, Bytes, Elided };

struct RunSpec {
  std::string algorithm;
  Access access = Access::Write;
  int ranks = 4;
  WorkloadSpec workload;
  PlatformSpec platform;
  std::string network_mpi;  ///< profile name (already defaulted from the platform)
  std::string network_io;
  int iterations = 1;
  PayloadChoice payload = PayloadChoice::Auto;
  /// run.sequence: the operations on the open file (algorithms/sequence.hpp); "" = open, the technique's
  /// write (run.iterations times) or read (run.access), close.
  std::string sequence;
  /// compute:workload's seconds (config::workload_compute_s); < 0 when the workload defines none.
  double workload_compute_s = -1;
  int phases = 0;  ///< run.phases: communication phases of multiple-phase (0 = all)
  /// run.cpu_charge: the implementation's work or the paper's algorithm's (algorithms/technique.hpp)
  CpuCharge cpu_charge = CpuCharge::implementation;
  IoHints hints;            ///< MPI-IO hints passed to the technique (hints.* parameters)
  std::string export_file;  ///< if not empty, the simulated file is written here
  std::string
      trace_file;  ///< if not empty, every rank's call trace is written here (algorithms/common/trace.hpp)
  /// Timeline formats to write ("chrome", "paje"; config/timeline.hpp), each to timeline_path + its
  /// extension. Empty: no timeline is recorded.
  std::vector<std::string> timeline_formats;
  std::string timeline_path;
  /// The node of each rank. Empty: rank r on node r / platform.cores_per_node. `ciosim validate` sets it
  /// to the real run's placement so that both runs group the ranks into hosts alike.
  std::vector<int> rank_nodes;
  /// Every swept or set key with its value, as written in results' "params".
  std::vector<std::pair<std::string, std::string>> params;
};

/// How one kind of resource was used during a phase's window (config/time_use.hpp).
struct ResourceUse {
  std::string kind;        ///< activity::resource_kind_name: rank-cpu, server-cpu, disk, link-out, link-in
  int count = 0;           ///< resources of this kind busy at some point of the window
  double busy_mean = 0;    ///< their mean busy fraction of the window, 0..1
  double busy_max = 0;     ///< the busiest one's fraction
  std::string busiest;     ///< its name ("iod3 disk")
  double bytes_per_s = 0;  ///< bytes they moved in the window per second of it, mean per resource
};

struct PhaseTime {
  std::string name;
  double time_s = 0;  ///< max over ranks of the time spent in the phase
  // Filled by the simulator (empty or 0 otherwise):
  double start_s = 0;  ///< the phase's window: earliest start on any rank ...
  double end_s = 0;    ///< ... to latest end on any rank (simulated clock, the run starts at 0)
  std::vector<double> rank_time_s{};        ///< per rank, the time spent in the phase
  std::vector<double> rank_cpu_s{};         ///< per rank, of which in CPU work (config::Use)
  std::vector<double> rank_network_s{};     ///< ... in MPI calls
  std::vector<double> rank_filesystem_s{};  ///< ... in file-system calls
  std::vector<ResourceUse> resources{};     ///< per resource kind used in the window
  /// The calls made in the phase, summed over ranks, by kind (call_name; kinds with none left out).
  std::map<std::string, std::int64_t> calls{};
  /// The payload bytes handed to sends and collectives in the phase, summed over ranks, by the kind of call
  /// (call_name; kinds that sent none left out; a collective counts each rank's contribution once).
  std::map<std::string, std::int64_t> bytes_sent{};
  /// Per rank, the calls it made in the phase (kinds with none left out); empty when not recorded.
  std::vector<std::map<std::string, std::int64_t>> rank_calls{};
};

/// One operation of an operation sequence (run.sequence; algorithms/sequence.hpp).
struct OperationTime {
  std::string name;    ///< "open", "write", "compute", "view:0", ...
  double time_s = 0;   ///< max over ranks of the time from its start to the next operation's
  double start_s = 0;  ///< earliest start on any rank
  double end_s = 0;    ///< latest end on any rank
};

struct RunResult {
  std::string algorithm;
  std::vector<std::pair<std::string, std::string>> params;
  int ranks = 0;
  std::string network_mpi;
  std::string network_io;
  double sim_time_s = 0;  ///< simulated time from the common start to the last rank's end
  std::vector<PhaseTime> phases;
  std::vector<OperationTime> operations;      ///< with run.sequence: each operation in order; else empty
  std::map<std::string, std::int64_t> calls;  ///< summed over ranks
  std::int64_t bytes_network = 0;
  std::int64_t bytes_file = 0;
  bool file_verified = false;
  bool elided = false;     ///< buffers carried sources, not bytes (run.payload; results.json "payload")
  std::string bottleneck;  ///< one line: where the longest phase's time goes (config/time_use.hpp)
};

}  // namespace ciosim
