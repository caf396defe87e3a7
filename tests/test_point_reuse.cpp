// Points that are one simulation (config/point_reuse.hpp): which points are twins, which runs made no MPI
// call, and a twin's results relabelled.
#include <catch2/catch.hpp>

#include "config/point_reuse.hpp"

using namespace ciosim;
using namespace ciosim::config;

namespace {

RunSpec point(const std::string& algorithm, const std::string& mpi, const std::string& bx) {
  RunSpec s;
  s.algorithm = algorithm;
  s.network_mpi = mpi;
  s.network_io = "myrinet";
  s.params = {{"run.algorithm", algorithm}, {"network.mpi", mpi}, {"workload.bx", bx}};
  return s;
}

}  // namespace

TEST_CASE("mpi_twins: the first earlier point that differs only in network.mpi", "[reuse]") {
  std::vector<RunSpec> specs{point("list-io", "myrinet", "1"),       point("list-io", "myrinet", "4"),
                             point("list-io", "fast-ethernet", "1"), point("list-io", "fast-ethernet", "4"),
                             point("block", "fast-ethernet", "1"),   point("list-io", "gigabit", "1")};
  CHECK(mpi_twins(specs) == std::vector<std::size_t>{0, 0, 1, 2, 0, 1});
  // Any other difference, or a file of its own, and a point has no twin.
  specs[2].params.emplace_back("workload.nx", "2048");
  specs[3].export_file = "x.bin";
  specs[5].timeline_formats = {"chrome"};
  CHECK(mpi_twins(specs) == std::vector<std::size_t>{0, 0, 0, 0, 0, 0});
  // A value cannot pose as another key: "1|workload.nx=…" is one value.
  std::vector<RunSpec> tricky{point("list-io", "myrinet", "1"), point("list-io", "fast-ethernet", "1")};
  tricky[0].params.emplace_back("x", "a|y=1:b");
  tricky[1].params.emplace_back("x", "a");
  tricky[1].params.emplace_back("y", "b");
  CHECK(mpi_twins(tricky) == std::vector<std::size_t>{0, 0});
}

TEST_CASE("made_no_mpi_call: only file calls and no network bytes", "[reuse]") {
  RunResult r;
  r.calls = {{"file_open", 4}, {"file_list_write", 100}, {"barrier", 0}, {"alltoall", 0}};
  CHECK(made_no_mpi_call(r));
  r.calls["barrier"] = 1;
  CHECK_FALSE(made_no_mpi_call(r));
  r.calls["barrier"] = 0;
  r.calls["some_new_call"] = 1;  // not known to be a file call: counted as MPI
  CHECK_FALSE(made_no_mpi_call(r));
  r.calls.erase("some_new_call");
  r.bytes_network = 8;
  CHECK_FALSE(made_no_mpi_call(r));
}

TEST_CASE("twin_result: the twin's measurements under the point's labels", "[reuse]") {
  RunResult r;
  r.algorithm = "list-io";
  r.params = point("list-io", "myrinet", "1").params;
  r.ranks = 4;
  r.network_mpi = "myrinet";
  r.network_io = "myrinet";
  r.sim_time_s = 1.25;
  r.phases = {PhaseTime{"write", 1.2}};
  r.calls = {{"file_list_write", 8}};
  r.bytes_file = 4096;
  r.file_verified = true;
  r.bottleneck = "write";
  const RunSpec spec = point("list-io", "fast-ethernet", "1");
  const RunResult t = twin_result(r, spec);
  CHECK(t.network_mpi == "fast-ethernet");
  CHECK(t.params == spec.params);
  CHECK(t.sim_time_s == 1.25);
  CHECK(t.phases.size() == 1);
  CHECK(t.calls == r.calls);
  CHECK(t.bytes_file == 4096);
  CHECK(t.file_verified);
  CHECK(t.bottleneck == "write");
}
