// The butterfly pairing and exchange step of IEC I/O and Multiple-Phase Collective I/O.
// Singh, Isaila, Calderón, García, Carretero, "Multiple-Phase Collective I/O Technique for Improving Data
// Access Locality", PDP 2007, Fig. 5 and §4 step 3; Singh, Isaila, Pichel, Carretero, J.
// Supercomputing 47(1):53-75, 2009, Fig. 2 L5-L6.
#include "algorithms/common/butterfly.hpp"

#include <bit>
#include <stdexcept>
#include <vector>

#include "algorithms/common/payload.hpp"

namespace ciosim::butterfly {

int partner(int r, int ph) {
  if (r < 0 || ph < 0 || ph > 30)
    throw std::invalid_argument("partner: needs rank >= 0 and 0 <= phase <= 30 (rank=" + std::to_string(r) +
                                ", phase=" + std::to_string(ph) + ")");
  const int bit = 1 << ph;
  return r % (2 * bit) < bit ? r + bit : r - bit;  // Fig. 5
}

bool is_lower(int r, int ph) {
  return partner(r, ph) > r;
}

std::string check_ranks(int np, const std::string& who) {
  if (np <= 0 || !std::has_single_bit(static_cast<unsigned>(np)))
    return who + " needs a power-of-two number of ranks (Np=" + std::to_string(np) +
           "; valid: 1, 2, 4, 8, 16, ...)";
  return "";
}

int phases(int np) {
  if (std::string why = check_ranks(np, "a butterfly"); !why.empty()) throw std::invalid_argument(why);
  return std::countr_zero(static_cast<unsigned>(np));
}

namespace {

template <class Dt>
void exchange_by(Process& p, int partner, int tag, std::span<const std::byte> memory, const Dt& send,
                 std::int64_t element_size, std::span<std::byte> recv) {
  payload::Buffer staging(static_cast<std::size_t>(send.size() * element_size));
  pack(memory, send, element_size, staging);
  p.compute(Work{.bytes_copied = static_cast<std::int64_t>(staging.size()), .tuples = send.all_tuples()});
  std::vector<Request> reqs{p.isend(partner, tag, staging), p.irecv(partner, tag, recv)};
  p.waitall(reqs);
}

}  // namespace

void exchange(Process& p, int partner, int tag, std::span<const std::byte> memory, const Datatype& send,
              std::int64_t element_size, std::span<std::byte> recv) {
  exchange_by(p, partner, tag, memory, send, element_size, recv);
}

void exchange(Process& p, int partner, int tag, std::span<const std::byte> memory,
              const StridedDatatype& send, std::int64_t element_size, std::span<std::byte> recv) {
  exchange_by(p, partner, tag, memory, send, element_size, recv);
}

}  // namespace ciosim::butterfly
