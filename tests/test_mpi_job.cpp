// The MPI backend's job as a whole: one rank's error ends every rank (MPI_Abort), with that rank's one-line
// message, instead of leaving its peers waiting for it in a collective call forever.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/mpi_job.hpp"

#if defined(CIOSIM_MPI_BINARY) && defined(CIOSIM_MPIEXEC_PATH)

namespace fs = std::filesystem;

TEST_CASE("ciosim-mpi: an error on one rank ends the whole job with that rank's one-line error", "[mpi]") {
  std::string t = (fs::temp_directory_path() / "ciosim-mpi-job-XXXXXX").string();
  REQUIRE(::mkdtemp(t.data()) != nullptr);
  const fs::path root = t;
  // --work-dir naming a regular file: rank 0 alone fails to make the directory, rank 1 waits for it at a
  // barrier. Before, rank 1 waited there forever; `timeout` (exit 124) would end it here.
  std::ofstream(root / "afile") << "not a directory\n";
  int code = -1;
  const std::string cmd = "timeout 120 " + ciosim::testing::launch(2) + CIOSIM_MPI_BINARY + " run '" +
                          CIOSIM_SOURCE_DIR + "/scenarios/quickstart.toml' -q --work-dir '" +
                          (root / "afile").string() + "' --out '" + (root / "o").string() + "'";
  const std::string out = ciosim::testing::run_output(cmd, &code);
  INFO(cmd << "\n" << out);
  CHECK(code != 0);
  CHECK(code != 124);  // ended by the abort, not by the time limit
  CHECK(out.find("ciosim-mpi: error: cannot create directory") != std::string::npos);
  CHECK_FALSE(fs::exists(root / "o" / "results.json"));
  std::error_code ec;
  fs::remove_all(root, ec);
}

#endif
