// Two-phase collective write with LAP aggregator assignment (ACN/AVN): Filgueira, Singh, Pichel, Isaila,
// Carretero, "Data Locality Aware Strategy for Two-Phase Collective I/O", VECPAR 2008. The BIPS3D kernel's
// iteration (benchmark-IO.c; docs/two-phase.md, "LAP aggregator assignment"): LAP, open, write_all.
#include "algorithms/lap/lap_write.hpp"

#include <stdexcept>

#include "algorithms/lap/aggregation_interval.hpp"
#include "algorithms/two_phase/cb_config_list.hpp"
#include "algorithms/two_phase/two_phase_internal.hpp"

namespace ciosim::lap {

void run_write(Process& p, const TechniqueInput& in, LocalData local) {
  if (in.hints.lap == LapCriterion::None) throw std::invalid_argument("lap::run_write: hints.lap is none");
  const Datatype& dt = in.dist->per_rank[static_cast<std::size_t>(p.rank())];
  const std::int64_t unit = in.dist->unit;
  if (unit < 1 || in.dist->nx % unit != 0)
    throw std::invalid_argument("hints.lap: the distribution's " + std::to_string(in.dist->nx) +
                                " entries are not a whole number of items of " + std::to_string(unit));
  for (int it = 0; it < in.iterations; ++it) {
    p.phase("st3_lap");
    const Choice choice = aggregation_interval(p, dt, unit, in.dist->nx / unit, in.hints.lap);
    IoHints hints = in.hints;
    hints.cb_config_list = choice.cb_config_list;
    p.phase("aggregators");  // MPI_File_open with the cb_config_list hint
    two_phase::detail::CallContext ctx{&hints, bcast_rank_map(p, hints, processor_names(p)), true};
    two_phase::detail::write_all(p, dt, in.element_size, ctx, local);
  }
}

}  // namespace ciosim::lap
