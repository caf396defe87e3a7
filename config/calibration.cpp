#include "config/calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "config/params.hpp"

namespace ciosim::config {

namespace {

using json = nlohmann::json;

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

const json& need(const json& m, const char* key) {
  if (!m.contains(key))
    throw std::invalid_argument(std::string("calibration measurements lack \"") + key + "\"");
  return m.at(key);
}

double median_of(const json& stats) {
  return stats.at("median").get<double>();
}

/// (x, y) of a measurement array, keeping the points with lo <= x <= hi.
void points(const json& arr, const char* xkey, const char* ykey, double lo, double hi, std::vector<double>& x,
            std::vector<double>& y) {
  for (const auto& e : arr) {
    const double xv = e.at(xkey).get<double>();
    if (xv >= lo && xv <= hi) {
      x.push_back(xv);
      y.push_back(median_of(e.at(ykey)));
    }
  }
}

/// The smallest size whose per-call time reaches `fraction` of the bandwidth 1/slope.
std::int64_t knee(const json& arr, double slope, double fraction) {
  for (const auto& e : arr) {
    const double s = e.at("bytes").get<double>();
    const double t = median_of(e.at("seconds_per_call"));
    if (s / t >= fraction / slope) return static_cast<std::int64_t>(s);
  }
  return arr.back().at("bytes").get<std::int64_t>();
}

}  // namespace

LineFit fit_relative(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("fit_relative needs at least two points");
  if (std::set<double>(x.begin(), x.end()).size() < 2)
    throw std::invalid_argument("fit_relative needs two distinct sizes");
  double s_ww = 0, s_wx = 0, s_wxx = 0, s_wy = 0, s_wxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(y[i] > 0)) throw std::invalid_argument("fit_relative needs positive times");
    const double w = 1 / (y[i] * y[i]);
    s_ww += w;
    s_wx += w * x[i];
    s_wxx += w * x[i] * x[i];
    s_wy += w * y[i];
    s_wxy += w * x[i] * y[i];
  }
  const double det = s_ww * s_wxx - s_wx * s_wx;
  LineFit f;
  f.slope = (s_ww * s_wxy - s_wx * s_wy) / det;
  f.intercept = (s_wy - f.slope * s_wx) / s_ww;
  if (f.intercept < 0) {  // through the origin
    f.intercept = 0;
    f.slope = s_wxy / s_wxx;
  }
  return f;
}

namespace {
/// Fewer tuples than this through a step's loops in the measurement: too little to fit its cost (the clock
/// reads around each charge would weigh), and the step keeps nodes.tuple_cost_s.
constexpr std::int64_t kMinStepTuples = 10000;
}  // namespace

PlatformFile platform_from_measurements(const json& m, const CalibrationContext& ctx) {
  try {
    PlatformFile pf;
    PlatformSpec& p = pf.spec;
    auto& src = pf.sources;
    const std::string how = ctx.command + " on " + ctx.date;
    p.name = ctx.name;
    const int ranks = need(m, "ranks").get<int>();
    const auto hosts = need(m, "hosts").get<std::vector<std::string>>();
    const std::set<std::string> distinct(hosts.begin(), hosts.end());
    const bool one_host = hosts.size() >= 2 && hosts[0] == hosts[1];

    // Nodes and CPU.
    p.nodes = static_cast<int>(distinct.size());
    int per_host = 0;
    for (const auto& h : distinct)
      per_host = std::max(per_host, static_cast<int>(std::count(hosts.begin(), hosts.end(), h)));
    p.cores_per_node = std::max(per_host, ctx.cores);
    p.cpu_cores = ctx.cores;
    src.emplace_back("nodes.cpu_cores_source",
                     "hardware threads of the host that ran calibrate (std::thread::hardware_concurrency); "
                     "ranks beyond them share");
    src.emplace_back("nodes.count_source",
                     "hosts of the " + std::to_string(ranks) + " measuring ranks (" + how + ")");
    src.emplace_back("nodes.cores_per_node_source", "max(ranks per host = " + std::to_string(per_host) +
                                                        ", hardware threads = " + std::to_string(ctx.cores) +
                                                        "); more ranks per host are oversubscribed");
    const json& mc = need(m, "memcpy");
    p.memcpy_Bps = mc.at("bytes").get<double>() / median_of(mc.at("seconds"));
    src.emplace_back("nodes.memcpy_Bps_source", "std::memcpy of " +
                                                    fmt("%.0f", mc.at("bytes").get<double>() / 1048576) +
                                                    " MiB, median of repetitions (" + how + ")");
    // Every rank of the one host copying at once: what the host's memory gives concurrent copies. Reported,
    // not set as nodes.memory_Bps: measured with 64 MiB copies (beyond the cache), it over-charged the
    // techniques' copies of a few MiB that the cache serves (docs/models.md, "A node's memory").
    std::string concurrent;
    if (m.contains("memcpy_all_ranks") && distinct.size() == 1 && ranks >= 2) {
      const json& ma = m.at("memcpy_all_ranks");
      const double all =
          ma.at("ranks").get<double>() * ma.at("bytes_per_rank").get<double>() / median_of(ma.at("seconds"));
      concurrent = "; concurrent copies: the host's " + std::to_string(ranks) + " ranks copying " +
                   fmt("%.0f", ma.at("bytes_per_rank").get<double>() / 1048576) + " MiB at once got " +
                   fmt("%.0f", all / 1e6) + " MB/s in all, one alone " + fmt("%.0f", p.memcpy_Bps / 1e6) +
                   " MB/s (nodes.memory_Bps = " + fmt("%.4g", std::max(all, p.memcpy_Bps)) +
                   " would share it; not set, see docs/models.md)";
    }
    const json& pk = need(m, "pack");
    const double per_tuple = median_of(pk.at("seconds")) / pk.at("tuples").get<double>();
    const double copy = pk.at("element_size").get<double>() / p.memcpy_Bps;
    p.tuple_cost_s = std::max(0.0, per_tuple - copy);
    src.emplace_back("nodes.tuple_cost_s_source",
                     "ciosim::pack of " + std::to_string(pk.at("tuples").get<std::int64_t>()) +
                         " one-entry tuples: " + fmt("%.3g", per_tuple) + " s per tuple minus its " +
                         fmt("%.3g", copy) + " s copy (" + how + ")");

    if (m.contains("steps")) {
      // Each step's own cost per tuple: its sites' time beyond their bytes at memcpy speed, over their
      // tuples, from every technique run of the measurement (the step clock, Process::record_steps).
      std::array<double, kStepKinds> beyond{};
      std::array<std::int64_t, kStepKinds> tuples{};
      std::array<std::set<std::string>, kStepKinds> seen_in;
      std::set<std::int64_t> bxs;  // the runs' block sizes, for the sources
      for (const json& run : m.at("steps")) {
        bxs.insert(run.at("bx").get<std::int64_t>());
        for (const json& site : run.at("sites")) {
          const std::string name = site.at("step").get<std::string>();
          const Step st = step_named(name);
          if (name.empty() || st == Step::Pack) continue;  // uncharged code; pack is measured above
          const auto k = static_cast<std::size_t>(st);
          beyond[k] += median_of(site.at("seconds")) - site.at("bytes_copied").get<double>() / p.memcpy_Bps;
          tuples[k] += site.at("tuples").get<std::int64_t>();
          seen_in[k].insert(run.at("algorithm").get<std::string>());
        }
      }
      std::string bx_list;
      for (const std::int64_t bx : bxs) bx_list += (bx_list.empty() ? "" : " and ") + std::to_string(bx);
      for (int i = 0; i < kStepKinds; ++i) {
        const auto k = static_cast<std::size_t>(i);
        const Step st = static_cast<Step>(i);
        if (st == Step::Pack || tuples[k] < kMinStepTuples) continue;
        p.step_tuple_cost_s[k] = std::max(0.0, beyond[k] / static_cast<double>(tuples[k]));
        const std::string name = step_name(st);
        std::string techniques;
        for (const auto& t : seen_in[k]) techniques += (techniques.empty() ? "" : ", ") + t;
        src.emplace_back("nodes.tuple_cost_" + name + "_s_source",
                         "the step clock over the code's own " + name + " loops in " + techniques +
                             " (block-cyclic 4-byte entries at Bx = " + bx_list +
                             ", every rank): " + std::to_string(tuples[k]) + " tuples, " +
                             fmt("%.3g", beyond[k]) + " s beyond their bytes at memcpy_Bps (" + how + ")");
      }
    }

    if (m.contains("library_write_all")) {
      // The library's MPI_File_write_all of the same bytes in small and in large pieces, one aggregator:
      // what it spends per piece that aggregator receives.
      const json& lw = m.at("library_write_all");
      const json& small = lw.at("cases").at(0);
      const json& large = lw.at("cases").at(1);
      const double dn = small.at("pieces").get<double>() - large.at("pieces").get<double>();
      p.romio_piece_s = romio_piece_from_measurements(m);
      src.emplace_back(
          "nodes.romio_piece_s_source",
          "the MPI library's MPI_File_write_all under ROMIO (" + m.value("mpi_library", std::string("MPI")) +
              ") of " + fmt("%.0f", lw.at("bytes").get<double>() / 1048576) +
              " MiB through one aggregator: " + fmt("%.4g", median_of(small.at("seconds"))) + " s in " +
              std::to_string(small.at("piece_bytes").get<std::int64_t>()) + "-byte pieces minus " +
              fmt("%.4g", median_of(large.at("seconds"))) + " s in " +
              std::to_string(large.at("piece_bytes").get<std::int64_t>()) + "-byte pieces, over the " +
              fmt("%.0f", dn) + " more pieces its aggregator receives" +
              (p.romio_piece_s > 0 ? std::string()
                                   : "; the small pieces were not slower, so 0: not a measured cost") +
              " (" + how + ")");
    }

    // MPI: the ping-pong.
    std::vector<double> x, y;
    const json& pp = need(m, "pingpong");
    points(pp, "bytes", "one_way_s", 0, 4096, x, y);
    const double latency = fit_relative(x, y).intercept;
    x.clear();
    y.clear();
    points(pp, "bytes", "one_way_s", 65536, 1e18, x, y);
    const double hot_bandwidth = 1 / fit_relative(x, y).slope;
    // A run's large messages come from and go into buffers that are not in the cache (each rank's share of
    // the data, packed or received once): their bandwidth is the ping-pong's through fresh buffers, when
    // measured; the one-buffer ping-pong's stays in the description.
    const bool fresh = m.contains("pingpong_fresh");
    double bandwidth = hot_bandwidth;
    if (fresh) {
      x.clear();
      y.clear();
      points(m.at("pingpong_fresh"), "bytes", "one_way_s", 65536, 1e18, x, y);
      bandwidth = 1 / fit_relative(x, y).slope;
    }
    if (!(bandwidth > 0) || !std::isfinite(bandwidth) || !(hot_bandwidth > 0) ||
        !std::isfinite(hot_bandwidth))
      throw std::invalid_argument("the ping-pong times do not grow with the size; rerun calibrate");
    NetworkProfile mpi;
    mpi.name = ctx.name + "-mpi";
    mpi.description = std::string("MPI between ranks ") +
                      (one_host ? "on one host (shared memory)" : "on two hosts") + ", measured: one-way " +
                      fmt("%.2f", latency * 1e6) + " us + S / " + fmt("%.0f", bandwidth / 1e6) + " MB/s" +
                      (fresh ? " (buffers not in the cache; " + fmt("%.0f", hot_bandwidth / 1e6) +
                                   " MB/s reusing one buffer)"
                             : "");
    mpi.source = "MPI_Send/MPI_Recv ping-pong between ranks 0 and 1 (" + how + ")";
    mpi.link_bandwidth_Bps = bandwidth;
    const std::string lat_fit = "intercept of the one-way time fitted over 1..4096 B";
    const std::string bw_fit =
        fresh ? "1 / slope of the one-way time fitted over >= 64 KiB, each message from and into buffers "
                "rotating through " +
                    fmt("%.0f", m.value("pingpong_fresh_region_bytes", 0.0) / 1048576) +
                    " MiB per rank (not in the cache, as a run's large messages are; reusing one buffer: " +
                    fmt("%.0f", hot_bandwidth / 1e6) + " MB/s)"
              : "1 / slope of the one-way time fitted over >= 64 KiB";
    if (one_host) {
      mpi.link_latency_s = 0;
      mpi.send_overhead_s = mpi.recv_overhead_s = latency / 2;
      src.emplace_back("network.profiles." + mpi.name + ".link_latency_s_source",
                       "0: on one host the whole measured latency is host overhead");
      src.emplace_back("network.profiles." + mpi.name + ".send_overhead_s_source", "half the " + lat_fit);
      src.emplace_back("network.profiles." + mpi.name + ".recv_overhead_s_source", "half the " + lat_fit);
    } else {
      mpi.link_latency_s = latency / 2;
      mpi.send_overhead_s = mpi.recv_overhead_s = 0;
      src.emplace_back("network.profiles." + mpi.name + ".link_latency_s_source",
                       "half the " + lat_fit + " (a route crosses two NIC links)");
      src.emplace_back("network.profiles." + mpi.name + ".send_overhead_s_source",
                       "0: not separable from the latency by a ping-pong");
      src.emplace_back("network.profiles." + mpi.name + ".recv_overhead_s_source",
                       "0: not separable from the latency by a ping-pong");
    }
    src.emplace_back("network.profiles." + mpi.name + ".link_bandwidth_Bps_source", bw_fit);
    mpi.eager_threshold = ctx.eager_threshold >= 0 ? ctx.eager_threshold : 16384;
    src.emplace_back("network.profiles." + mpi.name + ".eager_threshold_source",
                     ctx.eager_threshold >= 0 ? ctx.eager_source : "not known for this MPI: assumed 16 KiB");
    mpi.size_factors = {{0, 1.0}};
    src.emplace_back("network.profiles." + mpi.name + ".size_factors_source",
                     "1: the fitted bandwidth is already the effective one");
    p.loopback_Bps = one_host ? bandwidth : p.memcpy_Bps;
    src.emplace_back(
        "nodes.loopback_Bps_source",
        one_host ? "the ping-pong bandwidth (ranks 0 and 1 on one host): " + bw_fit
                 : std::string("memcpy_Bps (intra-node messages not measured: ranks 0 and 1 on two hosts)"));

    NetworkProfile io;
    io.name = ctx.name + "-io";
    io.description = "the path from a rank to the local file system: a copy into the kernel";
    io.source = "no network: the local file system";
    io.link_bandwidth_Bps = p.memcpy_Bps;
    io.eager_threshold = 0;
    io.size_factors = {{0, 1.0}};
    src.emplace_back("network.profiles." + io.name + ".link_bandwidth_Bps_source", "memcpy_Bps");
    src.emplace_back("network.profiles." + io.name + ".link_latency_s_source",
                     "0: the per-call cost is in pvfs.request_overhead_s");
    src.emplace_back("network.profiles." + io.name + ".send_overhead_s_source",
                     "0: the per-call cost is in pvfs.request_overhead_s");
    src.emplace_back("network.profiles." + io.name + ".recv_overhead_s_source",
                     "0: the per-call cost is in pvfs.request_overhead_s");
    src.emplace_back("network.profiles." + io.name + ".eager_threshold_source",
                     "unused: PVFS traffic has no eager/rendezvous switch");
    src.emplace_back("network.profiles." + io.name + ".size_factors_source", "1: a memory copy");
    p.networks = {mpi, io};
    p.network_mpi = mpi.name;
    p.network_io = io.name;

    // The file system.
    const json& fw = need(m, "file_write");
    x.clear();
    y.clear();
    points(fw, "bytes", "seconds_per_call", 0, 1e18, x, y);
    const LineFit wfit = fit_relative(x, y);
    const json& fr = need(m, "file_read");
    std::vector<double> rx, ry;
    points(fr, "bytes", "seconds_per_call", 0, 1e18, rx, ry);
    const LineFit rfit = fit_relative(rx, ry);
    PvfsConfig& fs = p.pvfs;
    fs.io_servers = 1;
    src.emplace_back("pvfs.io_servers_source", "one local file system");
    const json& all = need(m, "file_write_all_ranks");
    const double agg =
        all.at("ranks").get<double>() * all.at("bytes_per_rank").get<double>() / median_of(all.at("seconds"));
    fs.disk_write_Bps = agg;
    src.emplace_back("pvfs.disk_write_Bps_source",
                     "all " + std::to_string(all.at("ranks").get<int>()) + " ranks writing " +
                         fmt("%.0f", all.at("bytes_per_rank").get<double>() / 1048576) +
                         " MiB each at once with MPI_File_write_at (page cache, no sync; rank 0 alone: " +
                         fmt("%.0f", 1 / wfit.slope / 1e6) + " MB/s) (" + how + ")");
    fs.disk_read_Bps = 1 / rfit.slope;
    src.emplace_back(
        "pvfs.disk_read_Bps_source",
        "1 / slope of rank 0's MPI_File_read_at time per call over 4 KiB..16 MiB (page cache) (" + how + ")");
    fs.request_overhead_s = wfit.intercept;
    src.emplace_back(
        "pvfs.request_overhead_s_source",
        "intercept of rank 0's MPI_File_write_at time per call over 4 KiB..16 MiB (" + how + ")");
    const json& lw = need(m, "list_write");
    const double regions = lw.at("regions").get<double>();
    fs.region_overhead_s =
        std::max(0.0, (median_of(lw.at("list_seconds")) - median_of(lw.at("contiguous_seconds"))) / regions);
    src.emplace_back("pvfs.region_overhead_s_source",
                     "(one write_list of " + fmt("%.0f", regions) +
                         " 64-byte regions - one contiguous write of the same bytes) / regions, MpiProcess's "
                         "hindexed-view list write (" +
                         how + ")");
    fs.client_region_overhead_s = 0;
    src.emplace_back("pvfs.client_region_overhead_s_source", "0: included in region_overhead_s");
    fs.stripe_size = knee(fw, wfit.slope, 0.9);
    src.emplace_back(
        "pvfs.stripe_size_source",
        "the smallest MPI_File_write_at size reaching 90% of the fitted write bandwidth (one server: "
        "sets how requests are cut)");
    fs.flow_buffer = fs.stripe_size;
    src.emplace_back("pvfs.flow_buffer_source", "as stripe_size");
    fs.max_outstanding = 8;
    src.emplace_back("pvfs.max_outstanding_source", "PVFS model default (one disk, not measured)");
    fs.request_header = 256;
    src.emplace_back("pvfs.request_header_source", "PVFS protocol constant (costs nothing at memcpy speed)");
    fs.region_descriptor = 16;
    src.emplace_back("pvfs.region_descriptor_source", "two 64-bit integers per region");

    // The model: each rank's open and its close are one metadata request, served one at a time by the
    // metadata server's CPU; P ranks' collective open + close then take 2 P metadata_overhead_s.
    const double oc = median_of(need(m, "open_close").at("seconds"));
    fs.metadata_overhead_s = oc / (2.0 * ranks);
    src.emplace_back("pvfs.metadata_overhead_s_source",
                     "collective MPI_File_open + MPI_File_close of " + std::to_string(ranks) + " ranks (" +
                         fmt("%.3f", oc * 1e3) + " ms, max over ranks) / (2 x " + std::to_string(ranks) +
                         "): the model serves each rank's open and close one at a time (" + how + ")");
    // On one host the same file system is also described as the node's own disk behind its page cache
    // (filesystem kind "local": each rank's calls on its own CPU, the bytes copied into the kernel's cache),
    // the model that --set platform.filesystem=local selects.
    if (one_host && distinct.size() == 1) {
      LocalDiskConfig& lo = p.local;
      lo.node = 0;
      src.emplace_back("local.node_source", "the one host of the measuring ranks");
      // A write call's own cost apart from adding pages to the cache: 4-byte calls over cached pages give
      // the call, one page's calls into new pages minus over cached ones what adding pages costs a call;
      // measurements without them give the write fit's intercept and nothing more.
      if (m.contains("small_writes")) {
        const json& sw = m.at("small_writes");
        const double fresh = median_of(sw.at("new_pages_s")), cached = median_of(sw.at("cached_pages_s"));
        lo.request_overhead_s = median_of(sw.at("small_s"));
        src.emplace_back("local.request_overhead_s_source",
                         "MPI_File_write_at of " + std::to_string(sw.at("small_bytes").get<std::int64_t>()) +
                             " bytes over pages already cached, rank 0 alone, per call (" +
                             std::to_string(sw.at("small_calls").get<std::int64_t>()) +
                             " calls, median of repetitions; " + how + ")");
        lo.new_pages_call_s = std::max(0.0, fresh - cached);
        src.emplace_back("local.new_pages_call_s_source",
                         "MPI_File_write_at of one page into new pages (" + fmt("%.3g", fresh * 1e6) +
                             " us a call) minus over the same pages cached (" + fmt("%.3g", cached * 1e6) +
                             " us), rank 0 alone (" + how + ")");
      } else {
        lo.request_overhead_s = wfit.intercept;
        src.emplace_back("local.request_overhead_s_source",
                         "as pvfs.request_overhead_s: the write call's intercept");
      }
      lo.region_overhead_s = fs.region_overhead_s;
      src.emplace_back("local.region_overhead_s_source",
                       "as pvfs.region_overhead_s: the list write's cost per region");
      // The collective open and close as a run makes them (a fresh file, the job's duplicated
      // communicator), each timed apart; measurements from before they were kept give each the cost of
      // one call, as the model did before the keys.
      const json& oc_m = need(m, "open_close");
      const auto own = [&](const char* key, const char* what, double& value) {
        const std::string name = std::string("local.") + key + "_overhead_s";
        if (oc_m.contains(std::string(key) + "_seconds")) {
          value = median_of(oc_m.at(std::string(key) + "_seconds"));
          src.emplace_back(name + "_source",
                           std::string("collective ") + what + " of " + std::to_string(ranks) +
                               " ranks on a fresh file that each rank writes " +
                               fmt("%.0f", oc_m.value("written_bytes_per_rank", 0.0) / 1048576) +
                               " MiB into before the close, max over ranks, median of repetitions (" + how +
                               ")");
        } else {
          value = lo.request_overhead_s;
          src.emplace_back(name + "_source",
                           "as local.request_overhead_s (the measurements do not time the " +
                               std::string(what) + " apart)");
        }
      };
      own("open", "MPI_File_open", lo.open_overhead_s);
      own("close", "MPI_File_close reached together", lo.close_overhead_s);
      lo.disk_write_Bps = agg;
      src.emplace_back(
          "local.disk_write_Bps_source",
          "not measured: the runs stay in the page cache; all ranks' concurrent write rate into it "
          "stands in (an upper bound for the device)");
      lo.disk_read_Bps = fs.disk_read_Bps;
      src.emplace_back("local.disk_read_Bps_source", "as pvfs.disk_read_Bps (reads from the page cache)");
      const auto pc = m.find("page_cache");
      if (pc != m.end() && pc->is_object()) {
        lo.cache.bytes = pc->at("mem_available_bytes").get<double>();
        lo.cache.dirty_ratio = pc->at("dirty_ratio").get<double>();
        lo.cache.dirty_background_ratio = pc->at("dirty_background_ratio").get<double>();
        lo.cache.dirty_expire_s = pc->at("dirty_expire_s").get<double>();
        lo.cache.writeback_interval_s = pc->at("writeback_interval_s").get<double>();
        lo.cache.copy_Bps = 1 / wfit.slope;
        src.emplace_back("local.page_cache_bytes_source", "MemAvailable of /proc/meminfo (" + how + ")");
        for (const char* k : {"dirty_ratio", "dirty_background_ratio"})
          src.emplace_back(std::string("local.page_cache_") + k + "_source",
                           std::string("/proc/sys/vm/") + k + " / 100 (" + how + ")");
        src.emplace_back("local.page_cache_dirty_expire_s_source",
                         "/proc/sys/vm/dirty_expire_centisecs / 100 (" + how + ")");
        src.emplace_back("local.page_cache_writeback_interval_s_source",
                         "/proc/sys/vm/dirty_writeback_centisecs / 100 (" + how + ")");
        src.emplace_back(
            "local.page_cache_copy_Bps_source",
            "1 / slope of rank 0's MPI_File_write_at time per call over 4 KiB..16 MiB (" + how + ")");
      } else {
        src.emplace_back("local.page_cache_bytes_source",
                         "not measured (no /proc/meminfo, or measurements from before calibrate read it): no "
                         "page cache");
      }
      p.filesystems = {"pvfs", "local"};
    }

    // Whether the library's close synchronizes: the on-time ranks' close against rank 0's delay.
    if (const auto cw = m.find("close_wait"); cw != m.end()) {
      const double delay = cw->at("delay_seconds").get<double>();
      const double waited = median_of(cw->at("seconds"));
      p.close = waited > delay / 2 ? "barrier" : "local";
      src.emplace_back("filesystem.close_source",
                       "the ranks on time at MPI_File_close while rank 0 was " + fmt("%.0f", delay * 1e3) +
                           " ms late closed in " + fmt("%.3f", waited * 1e3) +
                           " ms: " + (p.close == "barrier" ? "they waited for it" : "they did not wait") +
                           " (" + how + ")");
    } else {
      src.emplace_back("filesystem.close_source",
                       "not measured (measurements taken before calibrate measured it): local, as before");
    }
    p.description = "Measured by ciosim calibrate: " + ctx.machine + ", " +
                    need(m, "mpi_library").get<std::string>() + "; MPI one-way " +
                    fmt("%.2f", latency * 1e6) + " us, " + fmt("%.0f", bandwidth / 1e6) +
                    " MB/s; file write " + fmt("%.0f", agg / 1e6) +
                    " MB/s (page cache); collective open+close " + fmt("%.2f", oc * 1e3) + " ms" + concurrent;
    src.emplace_back("name_source", how);
    std::sort(src.begin(), src.end());
    check_platform(p, "calibrated platform");
    return pf;
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("malformed calibration measurements: ") + e.what());
  } catch (const ConfigError& e) {
    throw std::invalid_argument(std::string("the measurements give an impossible platform: ") + e.what());
  }
}

namespace {

bool is_timing(const json& j) {
  return j.is_object() && j.contains("median") && j.contains("min") && j.contains("max");
}

json merge_at(const std::vector<const json*>& at) {
  const json& first = *at.front();
  if (is_timing(first) && std::all_of(at.begin(), at.end(), [](const json* j) { return is_timing(*j); })) {
    std::vector<double> medians;
    double lo = first.at("min").get<double>(), hi = first.at("max").get<double>();
    for (const json* j : at) {
      medians.push_back(j->at("median").get<double>());
      lo = std::min(lo, j->at("min").get<double>());
      hi = std::max(hi, j->at("max").get<double>());
    }
    std::sort(medians.begin(), medians.end());
    const std::size_t n = medians.size();
    const double med = n % 2 ? medians[n / 2] : (medians[n / 2 - 1] + medians[n / 2]) / 2;
    return json{{"median", med}, {"min", lo}, {"max", hi}};
  }
  if (first.is_object()) {
    json out = json::object();
    for (auto it = first.begin(); it != first.end(); ++it) {
      std::vector<const json*> next;
      for (const json* j : at)
        if (j->is_object() && j->contains(it.key())) next.push_back(&j->at(it.key()));
      out[it.key()] = next.size() == at.size() ? merge_at(next) : it.value();
    }
    return out;
  }
  if (first.is_array()) {
    json out = json::array();
    for (std::size_t i = 0; i < first.size(); ++i) {
      std::vector<const json*> next;
      for (const json* j : at)
        if (j->is_array() && j->size() == first.size()) next.push_back(&(*j)[i]);
      out.push_back(next.size() == at.size() ? merge_at(next) : first[i]);
    }
    return out;
  }
  return first;
}

}  // namespace

double romio_piece_from_measurements(const json& m) {
  if (!m.contains("library_write_all")) return 0;
  const json& cases = m.at("library_write_all").at("cases");
  const json& small = cases.at(0);
  const json& large = cases.at(1);
  const double dt = median_of(small.at("seconds")) - median_of(large.at("seconds"));
  const double dn = small.at("pieces").get<double>() - large.at("pieces").get<double>();
  return dn > 0 && dt > 0 ? dt / dn : 0.0;
}

json merge_measurements(const std::vector<json>& runs) {
  if (runs.empty()) throw std::invalid_argument("no calibration runs to merge");
  std::vector<const json*> at;
  for (const json& r : runs) at.push_back(&r);
  return merge_at(at);
}

double TermSpread::spread() const {
  if (values.empty()) return 1;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo > 0 ? *hi / *lo : 1;
}

std::vector<TermSpread> term_spreads(const std::vector<PlatformFile>& per_run) {
  std::vector<TermSpread> out = {
      {"MPI bandwidth", "MB/s", 1e-6, {}},     {"memcpy", "MB/s", 1e-6, {}},
      {"pack, per tuple", "ns", 1e9, {}},      {"file write (all)", "MB/s", 1e-6, {}},
      {"per-request overhead", "us", 1e6, {}}, {"per-region overhead", "ns", 1e9, {}}};
  for (const PlatformFile& pf : per_run) {
    const PlatformSpec& s = pf.spec;
    out[0].values.push_back(s.networks.front().link_bandwidth_Bps);
    out[1].values.push_back(s.memcpy_Bps);
    out[2].values.push_back(s.tuple_cost_s);
    out[3].values.push_back(s.pvfs.disk_write_Bps);
    out[4].values.push_back(s.pvfs.request_overhead_s);
    out[5].values.push_back(s.pvfs.region_overhead_s);
  }
  // Each loop's own cost per tuple (nodes.tuple_cost_<step>_s), where every run fitted it.
  for (int i = 0; i < kStepKinds; ++i) {
    const auto st = static_cast<Step>(i);
    if (st == Step::Pack || per_run.empty()) continue;
    TermSpread t{std::string(step_name(st)) + " loop, per tuple", "ns", 1e9, {}};
    for (const PlatformFile& pf : per_run)
      if (const double v = pf.spec.step_tuple_cost_s[static_cast<std::size_t>(i)]; !not_given(v))
        t.values.push_back(v);
    if (t.values.size() == per_run.size()) out.push_back(std::move(t));
  }
  return out;
}

void add_run_intervals(PlatformFile& merged, const std::vector<PlatformFile>& per_run) {
  const std::size_t n = per_run.size();
  if (n < 2) return;
  const double confidence = 1 - std::pow(2.0, 1.0 - static_cast<double>(n));
  const auto note = [&](const std::string& key, const std::vector<double>& values) {
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    if (*lo == *hi) return;
    const std::string source = key + "_source";
    auto it = std::find_if(merged.sources.begin(), merged.sources.end(),
                           [&](const auto& kv) { return kv.first == source; });
    if (it == merged.sources.end()) return;  // a value calibrate did not fit (a default of the model)
    it->second += "; " + std::to_string(n) + " runs on their own: " + fmt("%.4g", *lo) + " to " +
                  fmt("%.4g", *hi) + " (the range of " + std::to_string(n) +
                  " independent runs holds their median with probability " + fmt("%.0f", 100 * confidence) +
                  " %)";
  };
  for (const PlatformKey& k : platform_keys()) {
    if (k.type == ParamType::Enum || k.type == ParamType::String || !describes_key(merged.spec, k)) continue;
    std::vector<double> values;
    for (const PlatformFile& run : per_run) {
      if (!describes_key(run.spec, k)) break;
      values.push_back(std::visit(
          [](const auto& v) -> double {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
              return 0;
            else
              return static_cast<double>(v);
          },
          platform_value(run.spec, k)));
    }
    if (values.size() == n) note(k.key, values);
  }
  for (std::size_t i = 0; i < merged.spec.networks.size(); ++i) {
    const std::string at = "network.profiles." + merged.spec.networks[i].name + ".";
    const auto each = [&](double NetworkProfile::*field) {
      std::vector<double> values;
      for (const PlatformFile& run : per_run) values.push_back(run.spec.networks.at(i).*field);
      return values;
    };
    note(at + "link_bandwidth_Bps", each(&NetworkProfile::link_bandwidth_Bps));
    note(at + "link_latency_s", each(&NetworkProfile::link_latency_s));
    note(at + "send_overhead_s", each(&NetworkProfile::send_overhead_s));
    note(at + "recv_overhead_s", each(&NetworkProfile::recv_overhead_s));
  }
}

}  // namespace ciosim::config
