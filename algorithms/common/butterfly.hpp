// The binary-tree (butterfly) pairing and exchange step shared by IEC I/O and Multiple-Phase Collective
// I/O. Both papers pair the ranks the same way, in the same order:
//   - D. E. Singh, F. Isaila, A. Calderón, F. García, J. Carretero, "Multiple-Phase Collective I/O Technique
//     for Improving Data Access Locality", PDP 2007, Fig. 5;
//   - D. E. Singh, F. Isaila, J. C. Pichel, J. Carretero, "A collective I/O implementation based on
//     inspector-executor paradigm", J. Supercomputing 47(1):53-75, 2009, Fig. 2 L5.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "algorithms/common/datatype.hpp"
#include "algorithms/common/process.hpp"
#include "algorithms/common/strided_datatype.hpp"

namespace ciosim::butterfly {

/// Fig. 5 (PDP 2007): p' = p + 2^ph if p mod 2^(ph+1) < 2^ph, else p - 2^ph. Throws std::invalid_argument
/// unless rank >= 0 and 0 <= ph <= 30.
int partner(int r, int ph);
/// True when r is the lower rank of its phase-ph pair (r mod 2^(ph+1) < 2^ph, i.e. bit ph of r is 0).
bool is_lower(int r, int ph);
/// "" when np is a power of two (a butterfly over np ranks exists), else "<who> needs a power-of-two
/// number of ranks (Np=6; valid: 1, 2, 4, 8, 16, ...)".
std::string check_ranks(int np, const std::string& who);
/// log2(np) for a power-of-two np (the number of butterfly phases; 0 for one rank). Throws
/// std::invalid_argument otherwise.
int phases(int np);

/// One exchange step of a phase: packs the entries `send` selects from `memory` (element_size bytes each)
/// into a staging buffer, charges the copy and the tuples walked as CPU work, posts an isend of the staging
/// buffer and an irecv of `recv` with the partner (both with `tag`) and waits for both. Both directions are
/// posted at once, so they overlap on full-duplex links.
void exchange(Process& p, int partner, int tag, std::span<const std::byte> memory, const Datatype& send,
              std::int64_t element_size, std::span<std::byte> recv);
/// The same step with a send datatype held as strided segments (the same bytes and charges as its
/// datatype()).
void exchange(Process& p, int partner, int tag, std::span<const std::byte> memory,
              const StridedDatatype& send, std::int64_t element_size, std::span<std::byte> recv);

}  // namespace ciosim::butterfly
