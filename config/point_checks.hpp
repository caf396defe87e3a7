// Checks of one sweep point that need no simulation and no per-entry work, made in the validation pass before
// the techniques' own checks: its memory estimate against the limit, its ranks' stacks against the kernel's
// limit on memory maps, and whether its hints select any aggregator on the platform's hosts.
#pragma once

#include <string>

#include "algorithms/technique.hpp"
#include "config/resources.hpp"
#include "config/run_spec.hpp"

namespace ciosim::config {

/// "" when the point may run, else a one-line reason: its estimated work exceeds `max_work` (0: no bound;
/// config/work_estimate.hpp), its memory estimate (the workload's closed-form size,
/// a lower bound for the kinds whose tuples come with their distribution) exceeds `limit`, its ranks need
/// more memory maps than limit.maps allows (check_memory_maps), or hints.cb_config_list selects no aggregator
/// among the hosts its ranks are placed on (two-phase, the technique that opens the file with it).
std::string check_point(const RunSpec& r, const MemoryLimit& limit, double max_work = 0);

/// "" when `ranks` rank actors fit in `max_maps` memory maps (0: unknown, not checked), else the one-line
/// reason. SimGrid gives every actor a stack with a protected guard page below it, two maps an actor
/// (measured: pairs of an 8 MiB stack and a 4 KiB page without access), and the kernel stops a process at
/// vm.max_map_count maps, which SimGrid reports as a crash mid-run. The ranks' actors alone are the lower
/// bound checked here (the I/O servers' request actors come on top: 55,035 maps at the peak of
/// iec-parametric on 16,384 ranks; the run counts them against actor_budget as they start). `simgrid_cfg` is
/// CIOSIM_SIMGRID_CFG ("key:value;..."): with contexts/guard-size:0 there is no guard page, and the check is
/// left to the machine.
std::string check_memory_maps(int ranks, std::int64_t max_maps, const std::string& simgrid_cfg);
/// The most actors a simulation may hold at once within `max_maps` memory maps, two an actor beside the
/// process's own; 0 (no limit) when max_maps is unknown or `simgrid_cfg` turns guard pages off.
std::int64_t actor_budget(std::int64_t max_maps, const std::string& simgrid_cfg);
/// The one-line reason a run stopped at its actor budget (models/filesystem/actor_budget_sim.hpp): the
/// limit and the ways out.
std::string actors_refusal(std::int64_t budget, std::int64_t max_maps);

/// "" when ciosim's code can run the point on real MPI, else the one-line reason: run.cpu_charge =
/// "library" predicts the MPI library's own MPI_File_write_all, which no code of ciosim's runs (validate
/// runs the library itself as its reference and compares it with that prediction).
std::string check_runs_on_mpi(const RunSpec& r);

/// For the kinds whose size needs their distribution (irregular, lists, mesh): "" when `d`'s estimate fits
/// `limit`, else the reason. "" for the other kinds (check_point has checked them exactly).
std::string check_point_memory(const RunSpec& r, const Distribution& d, const MemoryLimit& limit);

/// The reason given for a std::bad_alloc while building or checking a point's distribution.
std::string out_of_memory_reason(const RunSpec& r);

}  // namespace ciosim::config
