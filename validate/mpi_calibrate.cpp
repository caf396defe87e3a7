#include "validate/mpi_calibrate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/common/datatype.hpp"
#include "validate/mpi_process.hpp"
#include "validate/mpi_run.hpp"

namespace ciosim::mpi {

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

struct Stats {
  double median = 0, min = 0, max = 0;
};

/// Runs `once` (which returns seconds) `reps` times.
/// The median, min and max of `t` (not empty).
Stats stats_of(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  const std::size_t n = t.size();
  return Stats{n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2, t.front(), t.back()};
}

Stats repeat(int reps, const std::function<double()>& once) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(once());
  return stats_of(std::move(t));
}

ojson stats_json(const Stats& s) {
  return ojson{{"median", s.median}, {"min", s.min}, {"max", s.max}};
}

/// Rank 0 alone: what a small write call costs with and without adding pages to the page cache, through
/// MPI_File_write_at as the runs call it: `calls` writes of one page at consecutive offsets into a file
/// emptied first (each adds a page), the same writes again (the pages are cached), and `small` writes of 4
/// bytes at consecutive offsets over the cached pages (1,024 to a page: almost none adds one). A plain C
/// program on the developers' VM (ext4): 3.1, 1.5 and 0.73 us a call.
ojson small_writes(const std::string& path, bool quick) {
  constexpr std::int64_t kPage = 4096, kSmall = 4;
  const int calls = quick ? 1024 : 4096, small = quick ? 8192 : 65536;
  MPI_File fh;
  check(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "MPI_File_open");
  const std::vector<std::byte> buf(static_cast<std::size_t>(kPage), std::byte{9});
  const auto per_call = [&](int n, std::int64_t bytes) {
    const double t0 = MPI_Wtime();
    for (int i = 0; i < n; ++i)
      check(
          MPI_File_write_at(fh, i * bytes, buf.data(), static_cast<int>(bytes), MPI_BYTE, MPI_STATUS_IGNORE),
          "MPI_File_write_at");
    return (MPI_Wtime() - t0) / n;
  };
  std::vector<double> fresh, cached, tiny;
  for (int r = 0; r < (quick ? 3 : 5); ++r) {
    check(MPI_File_set_size(fh, 0), "MPI_File_set_size");
    fresh.push_back(per_call(calls, kPage));
    cached.push_back(per_call(calls, kPage));
    tiny.push_back(per_call(small, kSmall));
  }
  check(MPI_File_close(&fh), "MPI_File_close");
  return ojson{{"page_bytes", kPage},
               {"calls", calls},
               {"new_pages_s", stats_json(stats_of(fresh))},
               {"cached_pages_s", stats_json(stats_of(cached))},
               {"small_bytes", kSmall},
               {"small_calls", small},
               {"small_s", stats_json(stats_of(tiny))}};
}

/// The sizes 4^k from `from` to `to` bytes.
std::vector<std::int64_t> sizes(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> v;
  for (std::int64_t s = from; s <= to; s *= 4) v.push_back(s);
  return v;
}

/// One round trip of `n` bytes between ranks 0 and 1: rank 0 sends `out` and then receives into `in`,
/// rank 1 receives into `in` and then sends `out`; the other ranks take no part.
void round_trip(MPI_Comm comm, int rank, int n, int tag, std::byte* out, std::byte* in) {
  if (rank == 0) {
    check(MPI_Send(out, n, MPI_BYTE, 1, tag, comm), "MPI_Send");
    check(MPI_Recv(in, n, MPI_BYTE, 1, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  } else if (rank == 1) {
    check(MPI_Recv(in, n, MPI_BYTE, 0, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    check(MPI_Send(out, n, MPI_BYTE, 0, tag, comm), "MPI_Send");
  }
}

/// A ping-pong size's entry: `warmup` untimed round trips, then `reps` times `iters` of them after a
/// barrier, each repetition's time per one-way message; the median, min and max of the repetitions.
ojson one_way(MPI_Comm comm, std::int64_t size, int iters, int warmup, int reps,
              const std::function<void()>& round_trip_once) {
  for (int i = 0; i < warmup; ++i) round_trip_once();
  const Stats s = repeat(reps, [&] {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) round_trip_once();
    return (MPI_Wtime() - t0) / (2.0 * iters);
  });
  return ojson{{"bytes", size}, {"iterations", iters}, {"one_way_s", stats_json(s)}};
}

ojson pingpong(MPI_Comm comm, int rank, bool quick) {
  ojson out = ojson::array();
  for (std::int64_t size : sizes(1, quick ? 262144 : 4194304)) {
    std::vector<std::byte> buf(static_cast<std::size_t>(size));
    const int n = static_cast<int>(size);
    const int iters = std::clamp(static_cast<int>((quick ? 4e6 : 64e6) / static_cast<double>(size + 4096)),
                                 10, quick ? 200 : 2000);
    // warm-up: connection setup, registration
    out.push_back(one_way(comm, size, iters, std::max(2, iters / 10), quick ? 3 : 7,
                          [&] { round_trip(comm, rank, n, 7, buf.data(), buf.data()); }));
  }
  return out;
}

/// The ping-pong as a run's large messages go: each round trip from and into buffers the rank has not
/// touched since the whole region went through the cache (a region of `region` bytes per rank, far larger
/// than a last-level cache, walked one message at a time), where pingpong() reuses one buffer that stays
/// in the cache. Measured on the developers' VM (Open MPI 4.1 vader, single copy): 4 MiB, 9.8 GB/s
/// reused, 4.9 GB/s rotating through 256 MiB.
ojson pingpong_fresh(MPI_Comm comm, int rank, bool quick, std::int64_t region) {
  ojson out = ojson::array();
  std::vector<std::byte> mem(static_cast<std::size_t>(region), std::byte{7});  // touched: no page faults
  for (std::int64_t size : sizes(65536, quick ? 1048576 : 4194304)) {
    const int n = static_cast<int>(size);
    const std::int64_t slots = region / size;
    const int iters = std::clamp(static_cast<int>(slots / 2), 4, quick ? 32 : 256);
    std::int64_t slot = 0;
    const auto next = [&] {
      std::byte* b = mem.data() + (slot % slots) * size;
      ++slot;
      return b;
    };
    // warm-up: the protocol's first use of this size
    out.push_back(one_way(comm, size, iters, 2, quick ? 3 : 5, [&] {
      std::byte* from = next();
      round_trip(comm, rank, n, 8, from, next());
    }));
  }
  return out;
}

/// The bytes of each memcpy measurement, and its repetitions' times: one std::memcpy between two touched
/// buffers; with `comm`, every rank of it copies at once (after a barrier) and the time is the slowest's.
std::size_t memcpy_bytes(bool quick) {
  return quick ? (8u << 20) : (64u << 20);
}
Stats memcpy_times(bool quick, MPI_Comm comm = MPI_COMM_NULL) {
  const std::size_t bytes = memcpy_bytes(quick);
  std::vector<std::byte> a(bytes, std::byte{1}), b(bytes, std::byte{2});
  return repeat(quick ? 3 : 7, [&] {
    if (comm != MPI_COMM_NULL) MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    std::memcpy(b.data(), a.data(), bytes);
    double t = MPI_Wtime() - t0;
    a[static_cast<std::size_t>(t * 1e9) % bytes] = b[0];  // keep the copy observable
    if (comm != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    return t;
  });
}

ojson memcpy_speed(bool quick) {
  return ojson{{"bytes", memcpy_bytes(quick)}, {"seconds", stats_json(memcpy_times(quick))}};
}

/// Every rank copies at once: with the ranks on one host, what the host's memory gives concurrent copies
/// (nodes.memory_Bps); against memcpy_speed (rank 0 alone), how much they slow each other down.
ojson memcpy_all_ranks(MPI_Comm comm, int size, bool quick) {
  return ojson{{"ranks", size},
               {"bytes_per_rank", memcpy_bytes(quick)},
               {"seconds", stats_json(memcpy_times(quick, comm))}};
}

ojson pack_speed(bool quick) {
  const std::int64_t tuples = quick ? (1 << 16) : (1 << 20);
  const std::int64_t es = 4;
  Datatype dt;
  for (std::int64_t i = 0; i < tuples; ++i) dt.tuples.push_back(Tuple{2 * i, 1});
  std::vector<std::byte> src(static_cast<std::size_t>(2 * tuples * es), std::byte{3});
  std::vector<std::byte> out(static_cast<std::size_t>(tuples * es));
  const Stats s = repeat(quick ? 3 : 7, [&] {
    const double t0 = MPI_Wtime();
    pack(src, dt, es, out);
    return MPI_Wtime() - t0;
  });
  return ojson{{"tuples", tuples}, {"element_size", es}, {"bytes", tuples * es}, {"seconds", stats_json(s)}};
}

/// Rank 0 alone: time per MPI_File_write_at (read_at) call of `size` bytes, calls at increasing offsets
/// into a file emptied before each repetition.
ojson file_calls(const std::string& path, bool write, bool quick) {
  ojson out = ojson::array();
  MPI_File fh;
  check(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "MPI_File_open");
  for (std::int64_t size : sizes(4096, quick ? 1048576 : 16777216)) {
    const std::int64_t total = quick ? (8 << 20) : (64 << 20);
    const int calls = static_cast<int>(std::clamp<std::int64_t>(total / size, 4, 4096));
    std::vector<std::byte> buf(static_cast<std::size_t>(size), std::byte{5});
    if (!write) {  // the data to read: written once, read from the page cache like a just-written file
      check(MPI_File_set_size(fh, 0), "MPI_File_set_size");
      for (int i = 0; i < calls; ++i)
        check(
            MPI_File_write_at(fh, i * size, buf.data(), static_cast<int>(size), MPI_BYTE, MPI_STATUS_IGNORE),
            "MPI_File_write_at");
    }
    const Stats s = repeat(quick ? 3 : 5, [&] {
      if (write) check(MPI_File_set_size(fh, 0), "MPI_File_set_size");
      const double t0 = MPI_Wtime();
      for (int i = 0; i < calls; ++i) {
        const MPI_Offset off = i * size;
        check(
            write
                ? MPI_File_write_at(fh, off, buf.data(), static_cast<int>(size), MPI_BYTE, MPI_STATUS_IGNORE)
                : MPI_File_read_at(fh, off, buf.data(), static_cast<int>(size), MPI_BYTE, MPI_STATUS_IGNORE),
            write ? "MPI_File_write_at" : "MPI_File_read_at");
      }
      return (MPI_Wtime() - t0) / calls;
    });
    out.push_back(ojson{{"bytes", size}, {"calls", calls}, {"seconds_per_call", stats_json(s)}});
  }
  check(MPI_File_close(&fh), "MPI_File_close");
  return out;
}

/// Every rank writes its own block at once, in 1 MiB calls.
ojson file_all_ranks(MPI_Comm comm, int rank, int size, const std::string& path, bool quick) {
  const std::int64_t block = quick ? (4 << 20) : (16 << 20), call = 1 << 20;
  std::vector<std::byte> buf(static_cast<std::size_t>(call), std::byte{6});
  MPI_File fh;
  check(MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "MPI_File_open");
  const Stats s = repeat(quick ? 3 : 5, [&] {
    check(MPI_File_set_size(fh, 0), "MPI_File_set_size");
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    for (std::int64_t off = 0; off < block; off += call)
      check(MPI_File_write_at(fh, rank * block + off, buf.data(), static_cast<int>(call), MPI_BYTE,
                              MPI_STATUS_IGNORE),
            "MPI_File_write_at");
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    return tmax;
  });
  check(MPI_File_close(&fh), "MPI_File_close");
  return ojson{{"ranks", size}, {"bytes_per_rank", block}, {"call_bytes", call}, {"seconds", stats_json(s)}};
}

/// Rank 0: one write_list of `regions` regions of 64 bytes, 64 bytes apart, through MpiProcess, vs. one
/// contiguous write_at of the same bytes.
ojson list_write(const fs::path& dir, bool quick) {
  const std::int64_t regions = quick ? 1024 : 8192, len = 64;
  std::vector<Extent> ext;
  for (std::int64_t i = 0; i < regions; ++i) ext.push_back(Extent{2 * len * i, len});
  std::vector<std::byte> data(static_cast<std::size_t>(regions * len), std::byte{7});
  MpiProcess p(MPI_COMM_SELF, dir);
  p.file_open("ciosim-calibrate-list.dat");
  const int reps = quick ? 3 : 7;
  const Stats list = repeat(reps, [&] {
    const double t0 = MPI_Wtime();
    p.write_list(ext, data);
    return MPI_Wtime() - t0;
  });
  const Stats contig = repeat(reps, [&] {
    const double t0 = MPI_Wtime();
    p.write_at(0, data);
    return MPI_Wtime() - t0;
  });
  p.file_close();
  std::error_code ec;
  fs::remove(dir / "ciosim-calibrate-list.dat", ec);
  return ojson{{"regions", regions},
               {"region_bytes", len},
               {"list_seconds", stats_json(list)},
               {"contiguous_seconds", stats_json(contig)}};
}

/// The kernel's page-cache settings where the file is written (Linux: /proc/meminfo's MemAvailable, the
/// memory the kernel counts as dirtyable, and /proc/sys/vm's writeback tunables), or null elsewhere.
ojson page_cache_settings() {
  const auto read_number = [](const std::string& file) -> double {
    std::ifstream in(file);
    double v = -1;
    in >> v;
    return in ? v : -1;
  };
  double available_kib = -1;
  std::ifstream meminfo("/proc/meminfo");
  for (std::string line; std::getline(meminfo, line);)
    if (line.rfind("MemAvailable:", 0) == 0) available_kib = std::strtod(line.c_str() + 13, nullptr);
  const double ratio = read_number("/proc/sys/vm/dirty_ratio");
  const double background = read_number("/proc/sys/vm/dirty_background_ratio");
  const double expire = read_number("/proc/sys/vm/dirty_expire_centisecs");
  const double period = read_number("/proc/sys/vm/dirty_writeback_centisecs");
  if (available_kib <= 0 || ratio <= 0 || background <= 0 || expire < 0 || period <= 0) return nullptr;
  return ojson{{"mem_available_bytes", available_kib * 1024},
               {"dirty_ratio", ratio / 100},
               {"dirty_background_ratio", background / 100},
               {"dirty_expire_s", expire / 100},
               {"writeback_interval_s", period / 100}};
}

/// A fresh file (as every run of a technique creates its file: mpi_run.cpp) on a new duplicate of `comm`
/// (as MpiProcess opens the file on its own duplicate of the job's), after a barrier; `*dup` is to be
/// freed after the close. Sets *t0 to the moment the ranks left the barrier.
MPI_File open_fresh(MPI_Comm comm, const std::string& path, MPI_Comm* dup, double* t0) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    std::error_code ec;
    fs::remove(path, ec);
  }
  check(MPI_Comm_dup(comm, dup), "MPI_Comm_dup");
  MPI_Barrier(comm);
  *t0 = MPI_Wtime();
  MPI_File fh;
  check(MPI_File_open(*dup, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "MPI_File_open");
  return fh;
}

/// The collective open and close of a fresh file: their sum, and each apart, each the max over the
/// ranks: the open from the barrier to its return, the close from a second barrier (the ranks reach it
/// together) after every rank wrote kWritten bytes, as a run writes before it closes and removed the
/// previous run's written file before it opens (measured with a plain MPI program, Open MPI 4.1 OMPIO on
/// ext4: open 0.27-0.29 ms after removing an empty file, 0.31-0.42 ms after a written one; close
/// 0.03 ms and 0.05-0.11 ms). Separate repetitions: the barrier before the close adds one to the sum's.
ojson open_close(MPI_Comm comm, const std::string& path, bool quick) {
  constexpr std::int64_t kWritten = 4 << 20;  // bytes per rank
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::vector<std::byte> data(static_cast<std::size_t>(kWritten), std::byte{6});
  const int reps = quick ? 3 : 7;
  const auto slowest = [&](double t) {
    double tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    return tmax;
  };
  const Stats s = repeat(reps, [&] {
    MPI_Comm dup;
    double t0 = 0;
    MPI_File fh = open_fresh(comm, path, &dup, &t0);
    check(MPI_File_close(&fh), "MPI_File_close");
    const double t = MPI_Wtime() - t0;
    MPI_Comm_free(&dup);
    return slowest(t);
  });
  std::vector<double> opens, closes;
  for (int i = 0; i < reps; ++i) {
    MPI_Comm dup;
    double t0 = 0;
    MPI_File fh = open_fresh(comm, path, &dup, &t0);
    const double open = MPI_Wtime() - t0;
    check(MPI_File_write_at(fh, rank * kWritten, data.data(), static_cast<int>(kWritten), MPI_BYTE,
                            MPI_STATUS_IGNORE),
          "MPI_File_write_at");
    MPI_Barrier(comm);
    const double t1 = MPI_Wtime();
    check(MPI_File_close(&fh), "MPI_File_close");
    const double close = MPI_Wtime() - t1;
    MPI_Comm_free(&dup);
    opens.push_back(slowest(open));
    closes.push_back(slowest(close));
  }
  return ojson{{"seconds", stats_json(s)},
               {"written_bytes_per_rank", kWritten},
               {"open_seconds", stats_json(stats_of(opens))},
               {"close_seconds", stats_json(stats_of(closes))}};
}

/// Whether MPI_File_close waits for every rank: rank 0 reaches its close kDelay after the others; the
/// fastest close among the others is about kDelay if the library synchronizes there, about a plain close
/// if not.
ojson close_wait(MPI_Comm comm, const std::string& path, bool quick) {
  constexpr double kDelay = 0.02;  // s: far above a local close (0.06-0.2 ms measured), far below a run
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const Stats s = repeat(quick ? 3 : 5, [&] {
    MPI_Comm dup;
    double opened = 0;
    MPI_File fh = open_fresh(comm, path, &dup, &opened);
    MPI_Barrier(comm);
    if (rank == 0) {
      const double t = MPI_Wtime();
      while (MPI_Wtime() - t < kDelay) {
      }
    }
    const double t0 = MPI_Wtime();
    check(MPI_File_close(&fh), "MPI_File_close");
    const double mine = rank == 0 ? 1e30 : MPI_Wtime() - t0;
    double fastest = 0;
    MPI_Comm_free(&dup);
    MPI_Allreduce(&mine, &fastest, 1, MPI_DOUBLE, MPI_MIN, comm);
    return fastest;
  });
  return ojson{{"delay_seconds", kDelay}, {"seconds", stats_json(s)}};
}

void write_json(const std::string& path, const ojson& j) {
  std::ofstream out(path, std::ios::binary);
  out << j.dump(2) << "\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

/// The MPI library's own collective write per piece its aggregator receives: MPI_File_write_all of the
/// same bytes through a view of interleaved blocks (rank r's k-th block at (k * P + r) * piece), once in
/// pieces of kSmall bytes and once of kLarge, with one aggregator (cb_nodes = 1, collective buffering
/// forced). The aggregator receives every piece; the difference of the two times over the difference of
/// the pieces is what the library spends per piece (ROMIO builds a datatype over them: 77 % of its time in
/// ADIOI_Type_create_hindexed_x under perf, Open MPI 4.1's romio321, 4-byte pieces).
ojson library_write_all(MPI_Comm comm, const std::string& path, bool quick) {
  constexpr std::int64_t kSmall = 4;      // bytes: the validation's Bx = 1 of 4-byte entries
  constexpr std::int64_t kLarge = 65536;  // bytes: few pieces, the same bytes
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The whole file: a quarter of the smallest validation workload (16 MiB), one collective-buffer round.
  const std::int64_t bytes = (quick ? 1 : 4) * std::int64_t{1048576} / kLarge / size * kLarge * size;
  const std::int64_t mine = bytes / size;
  std::vector<std::byte> buf(static_cast<std::size_t>(mine), std::byte{1});
  ojson cases = ojson::array();
  for (const std::int64_t piece : {kSmall, kLarge}) {
    MPI_Datatype view;
    check(MPI_Type_vector(static_cast<int>(mine / piece), static_cast<int>(piece),
                          static_cast<int>(piece * size), MPI_BYTE, &view),
          "MPI_Type_vector");
    check(MPI_Type_commit(&view), "MPI_Type_commit");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "romio_cb_write", "enable");
    const auto once = [&] {
      if (rank == 0) {
        std::error_code ec;
        fs::remove(path, ec);
      }
      MPI_Barrier(comm);
      MPI_File fh;
      check(MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh), "MPI_File_open");
      check(MPI_File_set_view(fh, rank * piece, MPI_BYTE, view, "native", MPI_INFO_NULL),
            "MPI_File_set_view");
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      check(MPI_File_write_all(fh, buf.data(), static_cast<int>(mine), MPI_BYTE, MPI_STATUS_IGNORE),
            "MPI_File_write_all");
      double t = MPI_Wtime() - t0, tmax = 0;
      MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
      check(MPI_File_close(&fh), "MPI_File_close");
      return tmax;
    };
    once();  // warm-up: the library's first collective write sets up its buffers
    const Stats s = repeat(quick ? 3 : 5, once);
    MPI_Info_free(&info);
    MPI_Type_free(&view);
    cases.push_back(ojson{{"piece_bytes", piece}, {"pieces", bytes / piece}, {"seconds", stats_json(s)}});
  }
  if (rank == 0) {
    std::error_code ec;
    fs::remove(path, ec);
  }
  return ojson{{"bytes", bytes}, {"aggregators", 1}, {"cases", cases}};
}

/// The techniques' own CPU steps (Step, algorithms/common/process.hpp) timed where they run: each of
/// kStepTechniques writes a block-cyclic vector of 4-byte entries at Bx = 1 and Bx = 16 on every rank, once
/// untimed (warm-up) and once with the step clock (Process::record_steps), which pairs every CPU charge
/// with the real time its code took. Rank 0 gets every rank's sites added up per run.
ojson technique_steps(MPI_Comm comm, const fs::path& dir, bool quick) {
  // The techniques whose charges use the steps with keys of their own: two-phase (offsets, requests,
  // windows), view-based (views, scatter, ranges), List I/O (regions), gathered (offsets, lists).
  static const char* const kStepTechniques[] = {"two-phase", "view-based", "list-io", "gathered"};
  int size = 0;
  MPI_Comm_size(comm, &size);
  ojson out = ojson::array();
  for (const char* algorithm : kStepTechniques)
    for (const std::int64_t bx : {1, 16}) {
      RunSpec spec;
      spec.algorithm = algorithm;
      spec.ranks = size;
      spec.workload.kind = "block-cyclic";
      spec.workload.nx = (quick ? (std::int64_t{1} << 17) : (std::int64_t{1} << 19)) / size * size;
      spec.workload.bx = bx;
      spec.workload.element_size = 4;
      PointOptions warm;
      warm.work_dir = dir;
      run_technique(comm, spec, warm);
      PointOptions stepped = warm;
      stepped.steps = true;
      const PointRun r = run_technique(comm, spec, stepped);
      ojson sites = ojson::array();
      for (const StepTime& t : r.steps) {
        ojson site = step_json(t);
        // one run: its time as median, min and max, so that calibrate --runs takes the median of the
        // runs' times as it does for every timing
        site["seconds"] = stats_json(Stats{t.seconds, t.seconds, t.seconds});
        sites.push_back(std::move(site));
      }
      out.push_back({{"algorithm", algorithm},
                     {"nx", spec.workload.nx},
                     {"bx", bx},
                     {"element_size", 4},
                     {"sites", std::move(sites)}});
    }
  std::error_code ec;
  fs::remove(dir / "x.dat", ec);
  return out;
}

}  // namespace

int calibrate(MPI_Comm comm, const CalibrateOptions& opt) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) throw std::invalid_argument("calibrate needs at least 2 ranks (mpirun -n 2 or more)");
  const fs::path dir = opt.work_dir;
  if (!fs::is_directory(dir))
    throw std::invalid_argument("--work-dir " + opt.work_dir + " is not a directory");
  const std::string file = (dir / "ciosim-calibrate.dat").string();
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string library(lib, static_cast<std::size_t>(len));
  library = library.substr(0, library.find_first_of("\n,"));

  ojson j;
  j["ranks"] = size;
  j["hosts"] = host_names(comm);
  j["mpi_library"] = library;
  j["quick"] = opt.quick;
  if (opt.library_only) {
    // Its own job: the library's collective I/O component is chosen at MPI_Init (Open MPI: --mca io).
    j["library_write_all"] = library_write_all(comm, file, opt.quick);
    if (rank == 0) write_json(opt.out, j);
    return 0;
  }
  j["pingpong"] = pingpong(comm, rank, opt.quick);
  MPI_Barrier(comm);
  {
    // 256 MiB per rank: 8 times the developers' VM's 32 MiB last-level cache, and above any of today's
    // per-socket caches but the largest (AMD's 3D V-Cache parts: up to 1.1 GiB per socket).
    const std::int64_t region = opt.quick ? (64 << 20) : (256 << 20);
    j["pingpong_fresh"] = pingpong_fresh(comm, rank, opt.quick, region);
    j["pingpong_fresh_region_bytes"] = region;
  }
  MPI_Barrier(comm);
  if (rank == 0) {
    j["memcpy"] = memcpy_speed(opt.quick);
    j["pack"] = pack_speed(opt.quick);
    j["file_write"] = file_calls(file, true, opt.quick);
    j["small_writes"] = small_writes(file, opt.quick);
    j["file_read"] = file_calls(file, false, opt.quick);
    j["list_write"] = list_write(dir, opt.quick);
    j["page_cache"] = page_cache_settings();
  }
  MPI_Barrier(comm);
  j["memcpy_all_ranks"] = memcpy_all_ranks(comm, size, opt.quick);
  j["file_write_all_ranks"] = file_all_ranks(comm, rank, size, file, opt.quick);
  j["open_close"] = open_close(comm, file, opt.quick);
  j["close_wait"] = close_wait(comm, file, opt.quick);
  MPI_Barrier(comm);
  keep_freed_memory();  // as validate's real runs (ciosim-mpi run --memory warm), whose steps these predict
  j["steps"] = technique_steps(comm, dir, opt.quick);
  if (rank == 0) {
    std::error_code ec;
    fs::remove(file, ec);
    write_json(opt.out, j);
  }
  return 0;
}

}  // namespace ciosim::mpi
