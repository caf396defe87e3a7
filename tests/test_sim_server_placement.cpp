// PVFS servers beside compute nodes (pvfs.server_placement = compute-nodes): a server shares its node's
// loopback, NIC and cores. Against the closed form of a lone write (models/pvfs/write_time.hpp) and the
// fair sharing of a link and of a core. Each TEST_CASE runs at most one SimGrid engine.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/network/profiles.hpp"
#include "models/pvfs/write_time.hpp"
#include "sim/simulate.hpp"
#include "tests/result_phase.hpp"
#include "tests/sim_specs.hpp"

using namespace ciosim;

namespace {

constexpr std::int64_t kBytes = 4 << 20;  // 64 strips of 64 KiB: the closed form's shape for one server

/// `ranks` ranks on as many nodes, one PVFS I/O server beside node 0 (`beside`) or on a host of its own,
/// its disk fast enough that the network decides.
RunSpec one_server(int ranks, bool beside, const std::string& mpi = "myrinet",
                   const std::string& io = "myrinet") {
  RunSpec s = test::filesystem_spec("pvfs", ranks, ranks);
  s.network_mpi = mpi;
  s.network_io = io;
  s.platform.pvfs.io_servers = 1;
  s.platform.pvfs.disk_write_Bps = 1e11;
  s.platform.pvfs.server_placement = beside ? "compute-nodes" : "dedicated";
  // A core for the rank and one for the servers beside its node (the metadata server's work for another
  // rank's open or close would otherwise share a core with the I/O server's decoding: the last tests).
  s.platform.cpu_cores = 2;
  return s;
}

std::vector<std::byte> pattern(std::int64_t bytes) {
  std::vector<std::byte> d(static_cast<std::size_t>(bytes));
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::byte>(i * 29 + 5);
  return d;
}

/// A route of one link of `Bps` and no latency (the node's loopback) as a profile of the closed form.
NetworkProfile loopback(double Bps) {
  NetworkProfile p;
  p.name = "loopback";
  p.link_bandwidth_Bps = Bps;
  return p;
}

/// Rank `writer` writes kBytes at offset 0 (phase "write") while rank `sender` (if any, on another node)
/// sends rank 0 a message of kBytes (phase "send": rank 0, whose open ends first, has posted its receive by
/// then); returns the run after checking the file's bytes.
RunResult write_beside_message(const RunSpec& s, int writer, int sender) {
  const std::vector<std::byte> data = pattern(kBytes);
  std::vector<std::byte> file;
  RunResult r = sim::run_with(
      s,
      [&](Process& p) {
        if (p.rank() == writer) {
          p.phase("write");
          p.write_at(0, data);
        } else if (p.rank() == sender) {
          p.phase("send");
          p.send(0, 1, data);
        } else if (p.rank() == 0 && sender >= 0) {
          std::vector<std::byte> in(data.size());
          p.recv(sender, 1, in);
          CHECK(in == data);
        }
      },
      [&](const filesystem::FileStore& f) { file = f.bytes(); });
  CHECK(file == data);
  return r;
}

}  // namespace

TEST_CASE("PVFS server beside the writer's node: the data crosses the node's loopback",
          "[model][placement]") {
  const RunSpec s = one_server(1, true);
  const RunResult r = write_beside_message(s, 0, -1);
  const double expected =
      pvfs::lone_contiguous_write_time(kBytes, s.platform.pvfs, loopback(s.platform.loopback_Bps));
  CHECK(test::phase_time(r, "write") == Approx(expected).epsilon(1e-3));
  // Through the NIC it would take at least the bytes at Myrinet's wire rate, 4x the loopback's time.
  CHECK(test::phase_time(r, "write") < 0.5 * kBytes / network_profile("myrinet").link_bandwidth_Bps);
}

TEST_CASE("PVFS server beside another node: the write crosses both NICs as from a server of its own",
          "[model][placement]") {
  const RunSpec s = one_server(2, true);
  const RunResult r = write_beside_message(s, 1, -1);
  const double expected =
      pvfs::lone_contiguous_write_time(kBytes, s.platform.pvfs, network_profile("myrinet"));
  CHECK(test::phase_time(r, "write") == Approx(expected).epsilon(1e-3));
}

TEST_CASE("PVFS server beside a node, one network: its NIC carries the node's MPI messages too",
          "[model][placement]") {
  // Rank 1 writes to the server beside node 0 while rank 2 sends rank 0 as many bytes: both streams
  // enter node 0 through its one NIC, which each then has part of.
  const RunSpec s = one_server(3, true);
  const RunResult r = write_beside_message(s, 1, 2);
  const NetworkProfile& myri = network_profile("myrinet");
  const double alone = pvfs::lone_contiguous_write_time(kBytes, s.platform.pvfs, myri);
  CHECK(test::phase_time(r, "write") > 1.25 * alone);
  CHECK(test::phase_time(r, "send") > 1.25 * myri.lone_message_time(kBytes));
  // Together at most the sum of both alone (the link is never idle while either has bytes to move).
  CHECK(test::phase_time(r, "write") < alone + myri.lone_message_time(kBytes));
}

TEST_CASE("PVFS server beside a node, two networks: MPI messages keep to the MPI NICs",
          "[model][placement]") {
  const RunSpec s = one_server(3, true, "myrinet", "fast-ethernet");
  const RunResult r = write_beside_message(s, 1, 2);
  const double alone =
      pvfs::lone_contiguous_write_time(kBytes, s.platform.pvfs, network_profile("fast-ethernet"));
  CHECK(test::phase_time(r, "write") == Approx(alone).epsilon(1e-3));
  // The sender's part of a lone message: all of it but the receiver's overhead.
  const NetworkProfile& myri = network_profile("myrinet");
  CHECK(test::phase_time(r, "send") ==
        Approx(myri.lone_message_time(kBytes) - myri.recv_overhead_s).epsilon(1e-6));
}

namespace {

constexpr double kCompute = 1.0;  // seconds of rank 0's own CPU work
constexpr double kDecode = 0.05;  // seconds of the server's CPU per request
constexpr int kRequests = 4;

/// Rank 0 computes kCompute seconds while rank 1 (node 1) sends kRequests small writes, one at a time,
/// to the server beside node 0, whose nodes have `cores` cores.
RunResult compute_beside_requests(int cores) {
  RunSpec s = one_server(2, true);
  s.platform.cpu_cores = s.platform.cores_per_node = cores;
  s.platform.pvfs.request_overhead_s = kDecode;
  s.platform.pvfs.region_overhead_s = 0;
  const std::vector<std::byte> data = pattern(4096);
  return sim::run_with(s, [&](Process& p) {
    if (p.rank() == 0) {
      p.phase("compute");
      p.compute(Work{.seconds = kCompute});
    } else {
      p.phase("write");
      for (int i = 0; i < kRequests; ++i) p.write_at(i * 4096, data);
    }
  });
}

}  // namespace

TEST_CASE("PVFS server beside a one-core node: its request decoding slows the node's rank by as much",
          "[model][placement]") {
  const RunResult r = compute_beside_requests(1);
  // The server's kRequests x kDecode of CPU all falls inside rank 0's second of work on the one core, which
  // they share fairly: rank 0 ends that much later, and each decode takes twice its time.
  CHECK(test::phase_time(r, "compute") == Approx(kCompute + kRequests * kDecode).epsilon(1e-3));
  CHECK(test::phase_time(r, "write") > 2 * kRequests * kDecode);
}

TEST_CASE("PVFS server beside a two-core node: a core each, nobody slows", "[model][placement]") {
  const RunResult r = compute_beside_requests(2);
  CHECK(test::phase_time(r, "compute") == Approx(kCompute).epsilon(1e-9));
  CHECK(test::phase_time(r, "write") > kRequests * kDecode);
  CHECK(test::phase_time(r, "write") < 1.5 * kRequests * kDecode);
}
