#include "models/local/local_time.hpp"

namespace ciosim::local {

double write_time(std::int64_t bytes, std::int64_t regions, int sharing, const LocalDiskConfig& cfg) {
  return cfg.request_overhead_s + static_cast<double>(regions - 1) * cfg.region_overhead_s +
         static_cast<double>(sharing) * static_cast<double>(bytes) / cfg.disk_write_Bps;
}

}  // namespace ciosim::local
