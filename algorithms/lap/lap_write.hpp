// Two-phase collective write with LAP aggregator assignment (ACN/AVN): R. Filgueira, D. E. Singh,
// J. C. Pichel, F. Isaila, J. Carretero, "Data Locality Aware Strategy for Two-Phase Collective I/O",
// VECPAR 2008, LNCS 5336 (2009).
//
// What the BIPS3D I/O kernel (benchmark-IO.c; docs/two-phase.md, "Workload mesh") does in each
// iteration: aggregation_interval (the LAP), then MPI_File_open with the resulting cb_config_list and
// MPI_File_write_all. The open's aggregator selection is ROMIO's: the processor names are gathered at the
// first open only (ROMIO caches them on the communicator), rank 0 parses the list and broadcasts the rank
// list every time. Phases are the VECPAR slides' stages: st3_lap, aggregators (the open), st1_offsets,
// st2_offsets_exchange, st4_file_domains, st5_requests, st6_metadata_exchange, st7_exchange, st8_write,
// sync.
#pragma once

#include "algorithms/common/process.hpp"
#include "algorithms/technique.hpp"

namespace ciosim::lap {

/// `in.iterations` times: the LAP assignment with in.hints.lap (acn or avn) over the distribution's items
/// (in.dist->unit entries each), then two-phase's write_all with the chosen cb_config_list (the other
/// hints as given). Throws std::invalid_argument when in.hints.lap is none.
void run_write(Process& p, const TechniqueInput& in, LocalData local);

}  // namespace ciosim::lap
