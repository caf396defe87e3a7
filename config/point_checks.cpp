#include "config/point_checks.hpp"

#include <algorithm>
#include <stdexcept>

#include "algorithms/two_phase/cb_config_list.hpp"
#include "config/params.hpp"
#include "config/placement.hpp"
#include "config/platform_file.hpp"
#include "config/work_estimate.hpp"

namespace ciosim::config {
namespace {

/// Two-phase opens the file with cb_config_list (LAP writes replace it with their own list): the host of
/// each rank as sim/ names them (node<k>, config/placement.hpp), and ROMIO's rank list from them.
std::string check_aggregators(const RunSpec& r) {
  if (r.algorithm != "two-phase" || (r.hints.lap != LapCriterion::None && r.access == Access::Write))
    return "";
  std::vector<std::string> hosts;
  hosts.reserve(static_cast<std::size_t>(r.ranks));
  for (int k = 0; k < r.ranks; ++k) hosts.push_back("node" + std::to_string(node_of(r, k)));
  std::vector<int> ranks;
  try {
    ranks = cb_config_ranklist(r.hints.cb_config_list, hosts, r.hints.cb_nodes);
  } catch (const std::invalid_argument& e) {
    return one_line(e.what());
  }
  if (!ranks.empty()) return "";
  return "hints.cb_config_list " + quote(r.hints.cb_config_list) +
         " selects no aggregator: the ranks run on hosts node0.." + hosts.back() +
         " (e.g. \"*:1\", one per host, or \"node0:2\"; a count of 0 takes none)";
}

// The process's own maps before the actors (its libraries, heap, ciosim's data): 179 at the start of a
// run, measured; 512 leaves room.
constexpr std::int64_t kOwnMaps = 512;

/// The two ways out of the kernel's limit on memory maps, for a point that needs `needed` of them.
std::string maps_way_out(std::int64_t max_maps, std::int64_t needed) {
  return "more than vm.max_map_count = " + std::to_string(max_maps) +
         " on this machine; raise it (as root: sysctl -w vm.max_map_count=" + std::to_string(4 * needed) +
         "), or run SimGrid without guard pages, which then cannot catch a stack overflow: "
         "CIOSIM_SIMGRID_CFG='contexts/guard-size:0;contexts/stack-size:64' (KiB)";
}
}  // namespace

std::string check_runs_on_mpi(const RunSpec& r) {
  if (r.cpu_charge != CpuCharge::library) return "";
  return "run.cpu_charge = \"library\" predicts the MPI library's own MPI_File_write_all, which ciosim's "
         "code does not run: validate runs the library itself as its reference and compares it with that "
         "prediction; give run.cpu_charge = \"implementation\" here";
}

std::int64_t actor_budget(std::int64_t max_maps, const std::string& simgrid_cfg) {
  if (max_maps <= 0 || guard_pages_off(simgrid_cfg)) return 0;
  return std::max<std::int64_t>((max_maps - kOwnMaps) / 2, 1);
}

std::string check_memory_maps(int ranks, std::int64_t max_maps, const std::string& simgrid_cfg) {
  const std::int64_t budget = actor_budget(max_maps, simgrid_cfg);
  if (budget == 0 || ranks <= budget) return "";
  const std::int64_t needed = 2 * static_cast<std::int64_t>(ranks) + kOwnMaps;
  return "run.ranks = " + std::to_string(ranks) + " needs at least " + std::to_string(needed) +
         " memory maps (SimGrid gives each rank a stack and a guard page), " +
         maps_way_out(max_maps, needed) + ", or use fewer ranks";
}

std::string actors_refusal(std::int64_t budget, std::int64_t max_maps) {
  const std::int64_t needed = 2 * (budget + 1) + kOwnMaps;
  return "the run needs more than " + std::to_string(budget) +
         " SimGrid actors at once (its ranks and the file system's request and disk actors, a stack and a "
         "guard page each, " +
         std::to_string(needed) + " memory maps), " + maps_way_out(max_maps, needed) + ", or use fewer ranks";
}

std::string check_point(const RunSpec& r, const MemoryLimit& limit, double max_work) {
  if (std::string why = work_refusal(estimate_work(r, workload_size(r.workload, r.ranks)), max_work);
      !why.empty())
    return why;
  if (limit.bytes > 0)
    if (std::string why = memory_refusal(estimate_memory(r, workload_size(r.workload, r.ranks)), limit);
        !why.empty())
      return why;
  if (std::string why = check_memory_maps(r.ranks, limit.maps, simgrid_cfg()); !why.empty()) return why;
  return check_aggregators(r);
}

std::string check_point_memory(const RunSpec& r, const Distribution& d, const MemoryLimit& limit) {
  if (limit.bytes <= 0 || workload_size(r.workload, r.ranks).exact) return "";
  return memory_refusal(estimate_memory(r, d), limit);
}

std::string out_of_memory_reason(const RunSpec& r) {
  return "out of memory while building the " + r.workload.kind +
         " workload's distribution on this machine; make the workload smaller (workload.nx, workload.file, "
         "run.ranks)";
}

}  // namespace ciosim::config
