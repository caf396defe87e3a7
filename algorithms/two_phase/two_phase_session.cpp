// ROMIO two-phase on a file that stays open for several calls (an operation sequence): what
// MPI_File_open does once — the aggregators from cb_config_list, the processor names gathered only at the
// communicator's first open — and what every MPI_File_write_all / read_all does after it. Reimplemented
// from ROMIO's open path (ADIO_Open: ADIOI_cb_gather_name_array, whose result is cached as an attribute of
// the communicator, then ADIOI_cb_bcast_rank_map), no code copied; see two_phase.hpp for the method's
// citation.
#include <memory>
#include <stdexcept>

#include "algorithms/lap/lap_write.hpp"
#include "algorithms/two_phase/cb_config_list.hpp"
#include "algorithms/two_phase/two_phase_internal.hpp"

namespace ciosim::two_phase {

namespace {

using namespace detail;

class TwoPhaseSession final : public DisplacementSession {
 public:
  TwoPhaseSession(Process& p, const TechniqueInput& in) : DisplacementSession(p), in_(in) {
    check_hints(in_.hints);
    if (in_.hints.lap != LapCriterion::None) return;  // the LAP kernel chooses its aggregators per call
    p_.phase("aggregators");                          // what MPI_File_open does for cb_config_list
    ctx_ = CallContext{&in_.hints, select_aggregators(p_, in_.hints), false,
                       in_.cpu_charge == CpuCharge::library};
  }
  void set_distribution(const Distribution& d) override { in_.dist = &d; }
  void write(std::span<const std::byte> local) override {
    check_input(p_, in_, local.size(), "two-phase");
    if (in_.hints.lap != LapCriterion::None) {
      lap::run_write(p_, in_, local);
      return;
    }
    write_all(p_, datatype(), in_.element_size, ctx_, local);
  }
  void read(std::span<std::byte> out) override {
    check_input(p_, in_, out.size(), "two-phase");
    check_read(in_.hints);
    read_all(p_, datatype(), in_.element_size, ctx_, out);
  }

 private:
  const Datatype& datatype() const { return in_.dist->per_rank[static_cast<std::size_t>(p_.rank())]; }

  TechniqueInput in_;
  CallContext ctx_;
};

}  // namespace

std::unique_ptr<Session> make_session(Process& p, const TechniqueInput& in) {
  return std::make_unique<TwoPhaseSession>(p, in);
}

}  // namespace ciosim::two_phase
