// Call traces (algorithms/common/trace.hpp) and the run summary shared by both backends
// (config/run_summary.hpp).
#include <catch2/catch.hpp>

#include "algorithms/common/trace.hpp"
#include "config/run_summary.hpp"

using namespace ciosim;

namespace {

Trace sample() {
  return Trace{{{"", Call::FileOpen, -1, 0, 0},
                {"inspector", Call::Isend, 1, 8, 1},
                {"inspector", Call::Waitall, -1, 2, 0},
                {"write", Call::FileListWrite, -1, 4096, 64}},
               {{"", Call::FileOpen, -1, 0, 0}, {"inspector", Call::Irecv, 0, 8, 1}}};
}

}  // namespace

TEST_CASE("trace text round-trips and names every call kind") {
  const Trace t = sample();
  const std::string text = trace_text(t);
  CHECK(text.rfind("# ciosim trace v1", 0) == 0);
  CHECK(text.find("0\tinspector\tisend\t1\t8\t1\n") != std::string::npos);
  CHECK(text.find("0\t-\tfile_open\t-1\t0\t0\n") != std::string::npos);  // no phase yet: "-"
  CHECK(parse_trace(text) == t);
  for (int c = 0; c < kCallKinds; ++c)
    CHECK(call_from_name(call_name(static_cast<Call>(c))) == static_cast<Call>(c));
  CHECK_THROWS_WITH(call_from_name("sendrecv"), Catch::Contains("unknown call kind 'sendrecv'") &&
                                                    Catch::Contains("isend") && Catch::Contains("file_sync"));
}

TEST_CASE("malformed trace lines are rejected with their line number") {
  CHECK_THROWS_WITH(parse_trace("# h\n0\tp\tisend\t1\t8\n"),
                    Catch::Contains("trace line 2") && Catch::Contains("expected 6"));
  CHECK_THROWS_WITH(parse_trace("0\tp\tisend\tx\t8\t1\n"), Catch::Contains("peer is not an integer: 'x'"));
  CHECK_THROWS_WITH(parse_trace("1\tp\tisend\t0\t8\t1\n0\tp\tisend\t1\t8\t1\n"),
                    Catch::Contains("out of order"));
  CHECK_THROWS_WITH(parse_trace("0\tp\tpoke\t0\t8\t1\n"), Catch::Contains("unknown call kind 'poke'"));
}

TEST_CASE("trace_difference names the first differing event, or the extra one") {
  const Trace a = sample();
  CHECK(trace_difference(a, a, "sim", "mpi").empty());
  Trace b = a;
  b[0][1].a = 16;
  CHECK(
      trace_difference(a, b, "sim", "mpi") ==
      "rank 0 event 1: sim has 'inspector isend peer=1 a=8 b=1', mpi has 'inspector isend peer=1 a=16 b=1'");
  Trace c = a;
  c[1].push_back({"write", Call::FileWrite, -1, 0, 4});
  CHECK(trace_difference(a, c, "sim", "mpi") ==
        "rank 1: sim has 2 events, mpi has 3; first extra in mpi: 'write file_write peer=-1 a=0 b=4'");
  Trace d = a;
  d[0][2].phase = "exchange0";
  CHECK(trace_difference(a, d, "sim", "mpi").find("rank 0 event 2") == 0);
  Trace e = a;
  e.pop_back();
  CHECK(trace_difference(a, e, "sim", "mpi").find("rank 1: sim has 2 events, mpi has 0") == 0);
}

TEST_CASE("summarize: phases are the max over ranks, repeated phases add up, calls and bytes are sums") {
  std::vector<config::RankRecord> recs(2);
  recs[0].start = 0;
  recs[0].marks = {{"open", 0.0}, {"write", 1.0}, {"close", 3.0}};
  recs[0].end = 3.5;
  recs[1].start = 0.25;
  recs[1].marks = {{"open", 0.25}, {"write", 0.5}, {"close", 1.0}, {"write", 2.0}};
  recs[1].end = 4.0;
  recs[0].counters.calls[static_cast<int>(Call::Isend)] = 3;
  recs[1].counters.calls[static_cast<int>(Call::Isend)] = 2;
  recs[0].counters.bytes_sent = 10;
  recs[1].counters.bytes_written = 7;
  RunResult r;
  config::summarize(recs, r);
  CHECK(r.sim_time_s == 4.0);
  REQUIRE(r.phases.size() == 3);
  CHECK(r.phases[0].name == "open");
  CHECK(r.phases[0].time_s == 1.0);
  CHECK(r.phases[1].name == "write");
  CHECK(r.phases[1].time_s == 2.5);  // rank 1: 0.5 + 2.0
  CHECK(r.phases[2].name == "close");
  CHECK(r.phases[2].time_s == 1.0);
  CHECK(r.calls.at("isend") == 5);
  CHECK(r.calls.size() == static_cast<std::size_t>(kCallKinds));
  CHECK(r.bytes_network == 10);
  CHECK(r.bytes_file == 7);
  CHECK_THROWS(config::summarize({}, r));
}
