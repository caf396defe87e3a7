// The file systems a platform can have ([filesystem] kind in a platform file): the one list of their
// names, which config/ checks names against and `ciosim list` prints.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ciosim::filesystem {

enum class Kind { Pvfs, Nfs, Local };

struct KindInfo {
  Kind kind;
  std::string_view name;
  std::string_view description;
};

/// Every file system, in a fixed order (the default first).
const std::vector<KindInfo>& kinds();
/// The kind called `name`; throws std::invalid_argument naming the valid choices.
Kind kind_of(std::string_view name);
/// "pvfs, nfs, local"
std::string kind_names();
/// {"pvfs", "nfs", "local"}
std::vector<std::string> kind_list();

}  // namespace ciosim::filesystem
