// The MPI-IO hints the ROMIO-style techniques read (two-phase, list I/O, gathered), with ROMIO's defaults
// as its code sets them (ROMIO adio/common/ad_hints.c; docs/two-phase.md):
// cb_buffer_size 16 MiB, cb_nodes = nprocs then cut to what cb_config_list yields, cb_config_list "*:1",
// romio_cb_write/read automatic, striping_unit unset, and the PVFS2 driver's list-I/O batch of 64 regions
// (ad_pvfs2 MAX_ARRAY_SIZE).
#pragma once

#include <cstdint>
#include <string>

namespace ciosim {

/// romio_cb_write / romio_cb_read: whether two-phase aggregation is used.
enum class CbMode {
  Automatic,  ///< only when the interleave test fires (ROMIO's default)
  Enable,     ///< always
  Disable     ///< never: independent I/O, and the call makes no MPI calls at all
};

/// Which ROMIO generation's call structure two-phase follows (collective-io-notes §1.7).
enum class RomioVersion {
  Modern,  ///< MPICH >= 3.3: one offset/length message per peer, data tag 0
  Y2007    ///< MPICH2 1.0.x (2007): offsets and lengths as two messages, data tag myrank+i+100*iter
};

/// hints.lap: whether the aggregators are chosen by the LAP assignment of file intervals to hosts before
/// each collective write (Filgueira, Singh, Pichel, Isaila, Carretero, "Data Locality Aware Strategy for
/// Two-Phase Collective I/O", VECPAR 2008), and by which benefit.
enum class LapCriterion {
  None,  ///< ROMIO's own choice (cb_config_list as given)
  Acn,   ///< aggregation by communication number: contiguous pieces a host holds in the interval
  Avn    ///< aggregation by volume number: data a host holds in the interval
};

struct IoHints {
  std::int64_t cb_buffer_size = 16 * 1024 * 1024;  ///< bytes of an aggregator's collective buffer
  int cb_nodes = 0;                                ///< aggregators wanted; 0 = unset (ROMIO: nprocs)
  std::string cb_config_list = "*:1";              ///< which ranks aggregate (ROMIO's grammar)
  CbMode cb_write = CbMode::Automatic;
  CbMode cb_read = CbMode::Automatic;
  std::int64_t striping_unit = 0;  ///< bytes; > 0 aligns file domains to it (0 = unset)
  RomioVersion version = RomioVersion::Modern;
  int listio_batch = 64;  ///< regions per list-I/O request (ad_pvfs2 MAX_ARRAY_SIZE)
  LapCriterion lap =
      LapCriterion::None;  ///< two-phase write: LAP aggregator assignment (replaces cb_config_list)
  // View-based collective I/O (García Blas, Isaila, Singh, Carretero, CCGrid 2008; algorithms/view_based/)
  std::int64_t vb_buffer_size = 0;  ///< bytes of a file block = one collective buffer; 0 = cb_buffer_size
  std::int64_t vb_pool_size =
      64 * 1024 * 1024;    ///< bytes of an aggregator's buffer pool (the paper's 64 MiB)
  int vb_aggregators = 0;  ///< aggregators; 0 = every rank (the paper's runs)
  std::int64_t vb_network_buffer =
      4 * 1024 * 1024;  ///< bytes of a rank's network buffer: its pieces for one aggregator coalesce up to it
};

const char* cb_mode_name(CbMode m);
/// "automatic", "enable", "disable"; throws std::invalid_argument naming the valid choices.
CbMode cb_mode_from_name(const std::string& name);
const char* romio_version_name(RomioVersion v);
/// "modern", "2007"; throws std::invalid_argument naming the valid choices.
RomioVersion romio_version_from_name(const std::string& name);

const char* lap_criterion_name(LapCriterion c);
/// "none", "acn", "avn"; throws std::invalid_argument naming the valid choices.
LapCriterion lap_criterion_from_name(const std::string& name);

/// Throws std::invalid_argument (one line) when a hint is out of range: cb_buffer_size < 1,
/// cb_nodes < 0, striping_unit < 0, listio_batch < 1, a cb_config_list that does not parse, vb_buffer_size <
/// 0, vb_pool_size < 1, vb_aggregators < 0, vb_network_buffer < 1.
void check_hints(const IoHints& h);

}  // namespace ciosim
