#include "validate/mpi_run.hpp"

#include <algorithm>
#include <climits>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "algorithms/replay.hpp"
#include "algorithms/sequence.hpp"
#include "algorithms/technique.hpp"
#include "config/trace_replay.hpp"
#include "config/workload.hpp"
#include "validate/mpi_process.hpp"

namespace ciosim::mpi {

namespace {

namespace fs = std::filesystem;
using config::RankRecord;

constexpr const char* kFileName = "x.dat";  // as sim::simulate names it

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

[[noreturn]] void abort_job(MPI_Comm comm, int rank, const std::string& what) {
  std::cerr << "ciosim-mpi: error: rank " << rank << ": " << one_line(what) << std::endl;
  MPI_Abort(comm, 1);
  std::abort();  // not reached
}

nlohmann::json record_json(const RankRecord& r) {
  nlohmann::json j;
  j["start"] = r.start;
  j["end"] = r.end;
  j["marks"] = r.marks;
  j["ops"] = r.ops;
  j["calls"] = r.counters.calls;
  j["sent"] = r.counters.bytes_sent;
  j["written"] = r.counters.bytes_written;
  j["read"] = r.counters.bytes_read;
  nlohmann::json t = nlohmann::json::array();
  for (const TraceEvent& e : r.trace) t.push_back({e.phase, static_cast<int>(e.kind), e.peer, e.a, e.b});
  j["trace"] = std::move(t);
  nlohmann::json st = nlohmann::json::array();
  for (const StepTime& e : r.steps)
    st.push_back({e.site, e.step, e.charges, e.tuples, e.bytes_copied, e.library_pieces, e.seconds});
  j["steps"] = std::move(st);
  return j;
}

RankRecord record_from_json(const nlohmann::json& j) {
  RankRecord r;
  r.start = j.at("start").get<double>();
  r.end = j.at("end").get<double>();
  r.marks = j.at("marks").get<std::vector<std::pair<std::string, double>>>();
  r.ops = j.at("ops").get<std::vector<std::pair<std::string, double>>>();
  r.counters.calls = j.at("calls").get<decltype(r.counters.calls)>();
  r.counters.bytes_sent = j.at("sent").get<std::int64_t>();
  r.counters.bytes_written = j.at("written").get<std::int64_t>();
  r.counters.bytes_read = j.at("read").get<std::int64_t>();
  for (const auto& e : j.at("trace"))
    r.trace.push_back(TraceEvent{e.at(0).get<std::string>(), static_cast<Call>(e.at(1).get<int>()),
                                 e.at(2).get<int>(), e.at(3).get<std::int64_t>(),
                                 e.at(4).get<std::int64_t>()});
  for (const auto& e : j.at("steps"))
    r.steps.push_back(StepTime{e.at(0).get<std::string>(), e.at(1).get<std::string>(),
                               e.at(2).get<std::int64_t>(), e.at(3).get<std::int64_t>(),
                               e.at(4).get<std::int64_t>(), e.at(5).get<std::int64_t>(),
                               e.at(6).get<double>()});
  return r;
}

/// Times relative to the rank's own start (clocks of different hosts need not agree).
RankRecord relative(RankRecord r) {
  for (auto& m : r.marks) m.second -= r.start;
  for (auto& m : r.ops) m.second -= r.start;
  r.end -= r.start;
  r.start = 0;
  return r;
}

struct Setup {
  Distribution dist;
  std::vector<std::byte> local;
  std::optional<Replay> replay;  ///< a trace replayed call by call (dist and local stay empty)
  int rank = 0;
  fs::path file;
};

Setup setup(MPI_Comm comm, const RunSpec& spec, const PointOptions& opt) {
  Setup s;
  int size = 0;
  MPI_Comm_rank(comm, &s.rank);
  MPI_Comm_size(comm, &size);
  if (spec.ranks != size)
    throw std::invalid_argument("run.ranks = " + std::to_string(spec.ranks) + " but the MPI job has " +
                                std::to_string(size) + " ranks (start it with mpirun -n " +
                                std::to_string(spec.ranks) + ", or set run.ranks)");
  if (replays_calls(spec.workload)) {
    s.replay = config::replay_from_capture(spec.workload.file, size, spec.workload.element_size);
  } else {
    s.dist = make_distribution(spec.workload, size);
    s.local = make_local_data(s.dist, s.rank, spec.workload.element_size);
  }
  s.file = opt.work_dir / kFileName;
  // A fresh file for every run, so that the check below sees what this run wrote.
  if (s.rank == 0) {
    std::error_code ec;
    fs::remove(s.file, ec);
  }
  MPI_Barrier(comm);
  return s;
}

bool file_equals(const fs::path& path, const std::vector<std::byte>& expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::vector<char> got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return same_bytes(std::as_bytes(std::span<const char>(got)), expected);
}

}  // namespace

nlohmann::ordered_json step_json(const StepTime& t) {
  return {{"site", t.site},
          {"step", t.step},
          {"charges", t.charges},
          {"tuples", t.tuples},
          {"bytes_copied", t.bytes_copied},
          {"library_pieces", t.library_pieces},
          {"seconds", t.seconds}};
}

namespace {

/// Gathers the records, summarises them and checks the file (rank 0).
PointRun conclude(MPI_Comm comm, const RunSpec& spec, const Setup& s, const RankRecord& mine,
                  const std::string& algorithm, FileLayout layout, const PointOptions& opt) {
  std::vector<RankRecord> all = gather_records(comm, mine);
  PointRun out;
  if (s.rank != 0) return out;
  RunResult& res = out.result;
  res.algorithm = algorithm;
  res.params = spec.params;
  res.ranks = spec.ranks;
  res.network_mpi = "real";
  res.network_io = "real";
  config::summarize(all, res);
  if (spec.sequence.empty() && !s.replay) {
    res.file_verified = file_equals(s.file, expected_file(s.dist, layout, spec.workload.element_size));
  } else {
    // As the simulator checks a sequence's file (step by step, algorithms/sequence.hpp) or a replayed
    // application's (call by call, algorithms/replay.hpp).
    std::ifstream in(s.file, std::ios::binary);
    std::vector<char> got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto bytes = std::as_bytes(std::span<const char>(got));
    res.file_verified = (in.good() || in.eof()) &&
                        (s.replay ? check_replay_file(bytes, *s.replay)
                                  : check_sequence_file(bytes, s.dist, layout, spec.workload.element_size,
                                                        parse_sequence(spec.sequence)))
                            .empty();
  }
  if (opt.trace)
    for (auto& r : all) out.trace.push_back(std::move(r.trace));
  if (opt.steps) {  // every rank's step-clock sites added up by site
    std::vector<StepTime> every;
    for (const RankRecord& r : all) every.insert(every.end(), r.steps.begin(), r.steps.end());
    out.steps = add_up_by_site(every);
  }
  if (!opt.export_file.empty()) fs::copy_file(s.file, opt.export_file, fs::copy_options::overwrite_existing);
  return out;
}

int int_of(std::int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw std::invalid_argument(std::string("reference write: ") + what + " = " + std::to_string(v) +
                                " does not fit MPI's int");
  return static_cast<int>(v);
}

/// The file view (filetype, displacement) and memory type of a rank's entries for the reference write.
struct View {
  MPI_Datatype filetype = MPI_BYTE;
  MPI_Datatype memtype = MPI_BYTE;
  MPI_Offset disp = 0;
  int mem_count = 0;  ///< count of memtype
  bool derived = false;
};

View make_view(const Datatype& dt, std::int64_t es, std::int64_t local_bytes) {
  View v;
  if (dt.size() == 0) return v;  // nothing to write: a plain byte view, count 0
  if (dt.tuples.size() == 1 && (dt.count == 1 || dt.stride >= dt.tuples[0].length)) {
    // Block-cyclic: `count` blocks of `length` entries, `stride` entries apart: an MPI vector.
    const Tuple& t = dt.tuples[0];
    check(MPI_Type_vector(int_of(dt.count, "blocks"), int_of(t.length * es, "block bytes"),
                          int_of(std::max<std::int64_t>(dt.stride, t.length) * es, "stride bytes"), MPI_BYTE,
                          &v.filetype),
          "MPI_Type_vector");
    v.disp = t.offset * es;
    v.mem_count = int_of(local_bytes, "local bytes");
  } else {
    // Irregular: the runs of consecutive positions, sorted by file offset, as hindexed file and memory types.
    struct Run {
      std::int64_t file, mem, len;
    };
    std::vector<Run> runs;
    std::int64_t mem = 0;
    for (const Tuple& t : dt.flatten()) {
      runs.push_back(Run{t.offset * es, mem, t.length * es});
      mem += t.length * es;
    }
    std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.file < b.file; });
    std::vector<Run> merged;
    for (const Run& r : runs) {
      if (!merged.empty() && merged.back().file + merged.back().len == r.file &&
          merged.back().mem + merged.back().len == r.mem)
        merged.back().len += r.len;
      else
        merged.push_back(r);
    }
    std::vector<int> lens;
    std::vector<MPI_Aint> fd, md;
    for (const Run& r : merged) {
      lens.push_back(int_of(r.len, "run bytes"));
      fd.push_back(static_cast<MPI_Aint>(r.file));
      md.push_back(static_cast<MPI_Aint>(r.mem));
    }
    const int n = static_cast<int>(merged.size());
    check(MPI_Type_create_hindexed(n, lens.data(), fd.data(), MPI_BYTE, &v.filetype),
          "MPI_Type_create_hindexed");
    check(MPI_Type_create_hindexed(n, lens.data(), md.data(), MPI_BYTE, &v.memtype),
          "MPI_Type_create_hindexed");
    MPI_Type_commit(&v.memtype);
    v.mem_count = 1;
  }
  MPI_Type_commit(&v.filetype);
  v.derived = true;
  return v;
}

}  // namespace

std::vector<RankRecord> gather_records(MPI_Comm comm, const RankRecord& mine) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string text = record_json(mine).dump();
  int len = static_cast<int>(text.size());
  std::vector<int> lens(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  std::string all;
  if (rank == 0) {
    long total = 0;
    for (int r = 0; r < size; ++r) {
      displs[static_cast<std::size_t>(r)] = static_cast<int>(total);
      total += lens[static_cast<std::size_t>(r)];
    }
    if (total > INT_MAX) throw std::runtime_error("the ranks' records exceed 2 GiB; run without --trace");
    all.resize(static_cast<std::size_t>(total));
  }
  check(MPI_Gatherv(text.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, comm),
        "MPI_Gatherv");
  std::vector<RankRecord> out;
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      out.push_back(record_from_json(
          nlohmann::json::parse(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]),
                                           static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])))));
  return out;
}

namespace {

/// Every rank runs `body` (an operation sequence, a replayed application: it opens and closes the file
/// itself) from a common start; the records gathered and the file checked as conclude() does, and every
/// rank's reads (body's result).
PointRun run_driver(MPI_Comm comm, const RunSpec& spec, const PointOptions& opt, const TechniqueInfo& tech,
                    const Setup& s, const std::function<bool(Process&)>& body) {
  RankRecord rec;
  int read_ok = 1;
  {
    MpiProcess p(comm, opt.work_dir);
    p.record_trace(opt.trace);
    p.record_steps(opt.steps);
    try {
      MPI_Barrier(comm);  // common start, not counted (as the simulator's start barrier)
      rec.start = MPI_Wtime();
      read_ok = body(p) ? 1 : 0;
      rec.end = MPI_Wtime();
    } catch (const std::exception& e) {
      abort_job(comm, s.rank, e.what());
    }
    rec.marks = p.marks();
    rec.ops = p.ops();
    rec.counters = p.counters();
    rec.trace = p.trace();
    rec.steps = p.steps();
  }
  MPI_Allreduce(MPI_IN_PLACE, &read_ok, 1, MPI_INT, MPI_MIN, comm);
  PointRun out = conclude(comm, spec, s, relative(rec), spec.algorithm, tech.layout, opt);
  out.result.file_verified = out.result.file_verified && read_ok != 0;
  return out;
}

/// A point with run.sequence on real MPI, as sim::simulate runs it: the steps read before they are written
/// laid out first by rank 0 (untimed), then every rank runs the sequence (algorithms/sequence.hpp).
PointRun run_sequence_point(MPI_Comm comm, const RunSpec& spec, const PointOptions& opt,
                            const TechniqueInfo& tech, const Setup& s, const TechniqueInput& in) {
  const std::vector<Op> ops =
      prepare_sequence(spec.sequence, &tech, in.element_size, spec.workload_compute_s, spec.workload.kind);
  if (s.rank == 0) {
    const auto steps = sequence_initial_steps(s.dist, tech.layout, in.element_size, ops);
    if (!steps.empty()) {
      std::ofstream f(s.file, std::ios::binary);
      for (const auto& [pos, bytes] : steps) {
        f.seekp(static_cast<std::streamoff>(pos));
        f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      }
      f.close();
      if (!f) throw std::runtime_error("cannot write " + s.file.string());
    }
  }
  return run_driver(comm, spec, opt, tech, s, [&](Process& p) { return run_sequence(p, tech, in, ops); });
}

/// Rank 0 lays out the bytes a replay reads (untimed), as the simulator does.
void lay_out_replay(const Setup& s) {
  if (s.rank != 0) return;
  const std::vector<std::byte> initial = replay_initial_file(*s.replay);
  if (initial.empty()) return;
  std::ofstream f(s.file, std::ios::binary);
  f.write(reinterpret_cast<const char*>(initial.data()), static_cast<std::streamsize>(initial.size()));
  f.close();
  if (!f) throw std::runtime_error("cannot write " + s.file.string());
}

/// A trace replayed call by call on real MPI, as sim::simulate runs it (algorithms/replay.hpp).
PointRun run_replay_point(MPI_Comm comm, const RunSpec& spec, const PointOptions& opt,
                          const TechniqueInfo& tech, const Setup& s) {
  if (const std::string why = replay_refusal(tech, *s.replay); !why.empty()) throw std::invalid_argument(why);
  const TechniqueInput in{nullptr,        spec.workload.element_size, kFileName, 1, spec.hints, spec.phases,
                          spec.cpu_charge};
  check_hints(in.hints);
  lay_out_replay(s);
  return run_driver(comm, spec, opt, tech, s, [&](Process& p) { return run_replay(p, tech, in, *s.replay); });
}

}  // namespace

PointRun run_technique(MPI_Comm comm, const RunSpec& spec, const PointOptions& opt) {
  const TechniqueInfo& tech = technique(spec.algorithm);
  const Setup s = setup(comm, spec, opt);
  if (s.replay) return run_replay_point(comm, spec, opt, tech, s);
  if (const std::string why = tech.check(s.dist); !why.empty()) throw std::invalid_argument(why);
  const TechniqueInput in{
      &s.dist,        spec.workload.element_size, kFileName, spec.iterations, spec.hints, spec.phases,
      spec.cpu_charge};
  check_hints(in.hints);  // as sim::simulate builds and checks it
  const bool read = spec.access == Access::Read;
  if (read && !tech.read) throw std::invalid_argument("technique " + tech.name + " has no read path");
  if (!spec.sequence.empty()) return run_sequence_point(comm, spec, opt, tech, s, in);
  if (read) {
    // As the simulator: the file as the technique lays it out is in place before the run (untimed).
    if (s.rank == 0) {
      const std::vector<std::byte> initial = expected_file(s.dist, tech.layout, spec.workload.element_size);
      std::ofstream f(s.file, std::ios::binary);
      f.write(reinterpret_cast<const char*>(initial.data()), static_cast<std::streamsize>(initial.size()));
      f.close();
      if (!f) throw std::runtime_error("cannot write " + s.file.string());
    }
    MPI_Barrier(comm);
  }
  RankRecord rec;
  int read_ok = 1;
  {
    MpiProcess p(comm, opt.work_dir);
    p.record_trace(opt.trace);
    p.record_steps(opt.steps);
    try {
      std::vector<std::byte> buf(read ? s.local.size() : 0);
      MPI_Barrier(comm);  // common start, not counted (as the simulator's start barrier)
      rec.start = MPI_Wtime();
      p.phase("open");
      p.file_open(kFileName);
      if (read)
        tech.read(p, in, buf);
      else
        tech.run(p, in, s.local);
      p.phase("close");
      p.file_close();
      rec.end = MPI_Wtime();
      read_ok = !read || buf == s.local;
    } catch (const std::exception& e) {
      abort_job(comm, s.rank, e.what());
    }
    rec.marks = p.marks();
    rec.counters = p.counters();
    rec.trace = p.trace();
    rec.steps = p.steps();
  }
  MPI_Allreduce(MPI_IN_PLACE, &read_ok, 1, MPI_INT, MPI_MIN, comm);
  PointRun out = conclude(comm, spec, s, relative(rec), spec.algorithm, tech.layout, opt);
  // A read run is verified by what every rank read back (the file itself is the initial one).
  if (read) out.result.file_verified = read_ok != 0;
  return out;
}

namespace {

/// The MPI library's own collective calls through an operation sequence (algorithms/sequence.hpp), as
/// an application would: MPI_File_set_view at open, at each view:BYTES and at each next (the view moved to
/// the step: an explicit offset counts in the view's bytes, not the file's), MPI_File_write_at_all /
/// read_at_all at offset 0 of the view, MPI_File_sync, the computation spun on the core. Marks each
/// operation (and phases named like the driver's) in `rec`; returns false when a read returned other bytes.
bool reference_sequence(MPI_Comm comm, const RunSpec& spec, const Setup& s, const View& v, RankRecord& rec) {
  const std::int64_t es = spec.workload.element_size;
  const std::vector<Op> ops =
      prepare_sequence(spec.sequence, nullptr, es, spec.workload_compute_s, spec.workload.kind);
  const Offset step = step_bytes(s.dist, FileLayout::Logical, es);
  const std::string path = s.file.string();
  MPI_File fh = MPI_FILE_NULL;
  Offset disp = 0, off = 0;
  bool ok = true;
  const auto set_view = [&] {
    check(MPI_File_set_view(fh, v.disp + disp + off, MPI_BYTE, v.filetype, "native", MPI_INFO_NULL),
          "MPI_File_set_view");
  };
  for (const Op& op : ops) {
    rec.ops.emplace_back(op_name(op), MPI_Wtime());
    MPI_Status st;
    switch (op.kind) {
      case OpKind::Open:
        rec.marks.emplace_back("open", MPI_Wtime());
        check(MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
              "MPI_File_open");
        disp = 0, off = 0;
        set_view();
        break;
      case OpKind::Close:
        rec.marks.emplace_back("close", MPI_Wtime());
        check(MPI_File_close(&fh), "MPI_File_close");
        break;
      case OpKind::View:
        disp = op.bytes, off = 0;
        set_view();
        break;
      case OpKind::Next:
        off += step;
        set_view();
        break;
      case OpKind::Write: {
        rec.marks.emplace_back("write", MPI_Wtime());
        const std::vector<std::byte> data = make_local_data(s.dist, s.rank, es, value_base(disp + off, es));
        check(MPI_File_write_at_all(fh, 0, data.data(), v.mem_count, v.memtype, &st),
              "MPI_File_write_at_all");
        rec.counters.bytes_written += static_cast<std::int64_t>(data.size());
        break;
      }
      case OpKind::Read: {
        rec.marks.emplace_back("read", MPI_Wtime());
        const std::vector<std::byte> want = make_local_data(s.dist, s.rank, es, value_base(disp + off, es));
        std::vector<std::byte> got(want.size());
        check(MPI_File_read_at_all(fh, 0, got.data(), v.mem_count, v.memtype, &st), "MPI_File_read_at_all");
        ok = ok && same_bytes(got, want);
        break;
      }
      case OpKind::Sync:
        rec.marks.emplace_back("sync", MPI_Wtime());
        check(MPI_File_sync(fh), "MPI_File_sync");
        break;
      case OpKind::Compute: {
        rec.marks.emplace_back("compute", MPI_Wtime());
        spin_cpu(op.seconds);
        break;
      }
    }
  }
  return ok;
}

/// The application's calls replayed through the MPI library's own collective I/O: at each collective call
/// MPI_File_set_view with the call's filetype at its position, then MPI_File_write_all / read_all; the
/// independent calls one MPI_File_write_at / read_at per region through a byte view of the file opened by
/// the rank alone (MPI_COMM_SELF: an independent call cannot change the collective handle's view); the
/// computation spun on the core. Marks as run_replay does; returns false when a read returned other bytes.
bool reference_replay(MPI_Comm comm, const Replay& r, const Setup& s, RankRecord& rec) {
  const std::int64_t es = r.element_size;
  const std::string path = s.file.string();
  MPI_File fh = MPI_FILE_NULL, own = MPI_FILE_NULL;
  bool ok = true;
  MPI_Status st;
  for (const ReplayAction& a : r.ranks.at(static_cast<std::size_t>(s.rank))) {
    switch (a.kind) {
      case ReplayKind::Open:
        rec.ops.emplace_back("open", MPI_Wtime());
        rec.marks.emplace_back("open", MPI_Wtime());
        check(MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
              "MPI_File_open");
        check(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_RDWR, MPI_INFO_NULL, &own),
              "MPI_File_open");
        break;
      case ReplayKind::Close:
        rec.ops.emplace_back("close", MPI_Wtime());
        rec.marks.emplace_back("close", MPI_Wtime());
        check(MPI_File_close(&own), "MPI_File_close");
        check(MPI_File_close(&fh), "MPI_File_close");
        break;
      case ReplayKind::Sync:
        rec.ops.emplace_back("sync", MPI_Wtime());
        rec.marks.emplace_back("sync", MPI_Wtime());
        check(MPI_File_sync(fh), "MPI_File_sync");
        break;
      case ReplayKind::Compute:
        rec.marks.emplace_back("compute", MPI_Wtime());
        spin_cpu(a.seconds);
        break;
      case ReplayKind::IndependentWrite:
      case ReplayKind::IndependentRead: {
        const bool write = a.kind == ReplayKind::IndependentWrite;
        rec.marks.emplace_back(write ? "independent_write" : "independent_read", MPI_Wtime());
        for (const Extent& e : a.runs) {
          std::vector<std::byte> want(static_cast<std::size_t>(e.length));
          replay_values(e.offset, want, es);
          if (write) {
            check(MPI_File_write_at(own, e.offset, want.data(), static_cast<int>(e.length), MPI_BYTE, &st),
                  "MPI_File_write_at");
            rec.counters.bytes_written += e.length;
          } else {
            std::vector<std::byte> got(want.size());
            check(MPI_File_read_at(own, e.offset, got.data(), static_cast<int>(e.length), MPI_BYTE, &st),
                  "MPI_File_read_at");
            ok = ok && same_bytes(got, want);
          }
        }
        break;
      }
      case ReplayKind::Collective: {
        const ReplayStep& step = r.steps.at(static_cast<std::size_t>(a.step));
        const Distribution& d = r.shapes.at(static_cast<std::size_t>(step.shape));
        rec.ops.emplace_back(step.name, MPI_Wtime());
        rec.marks.emplace_back(step.write ? "write" : "read", MPI_Wtime());
        const std::vector<std::byte> want = make_local_data(d, s.rank, es, value_base(step.position, es));
        View v = make_view(d.per_rank.at(static_cast<std::size_t>(s.rank)), es,
                           static_cast<std::int64_t>(want.size()));
        check(MPI_File_set_view(fh, step.position + v.disp, MPI_BYTE, v.filetype, "native", MPI_INFO_NULL),
              "MPI_File_set_view");
        if (step.write) {
          check(MPI_File_write_all(fh, want.data(), v.mem_count, v.memtype, &st), "MPI_File_write_all");
          rec.counters.bytes_written += static_cast<std::int64_t>(want.size());
        } else {
          std::vector<std::byte> got(want.size());
          check(MPI_File_read_all(fh, got.data(), v.mem_count, v.memtype, &st), "MPI_File_read_all");
          ok = ok && same_bytes(got, want);
        }
        if (v.derived) MPI_Type_free(&v.filetype);
        if (v.memtype != MPI_BYTE) MPI_Type_free(&v.memtype);
        break;
      }
    }
  }
  return ok;
}

}  // namespace

PointRun run_reference(MPI_Comm comm, const RunSpec& spec, const PointOptions& opt,
                       const std::string& label) {
  const Setup s = setup(comm, spec, opt);
  const std::int64_t es = spec.workload.element_size;
  View v;  // the rank's view of x (a replay sets each call's own)
  if (s.replay)
    lay_out_replay(s);
  else
    v = make_view(s.dist.per_rank[static_cast<std::size_t>(s.rank)], es,
                  static_cast<std::int64_t>(s.local.size()));
  RankRecord rec;
  int read_ok = 1;
  try {
    MPI_File fh;
    const std::string path = s.file.string();
    MPI_Barrier(comm);
    rec.start = MPI_Wtime();
    if (s.replay) {
      read_ok = reference_replay(comm, *s.replay, s, rec) ? 1 : 0;
    } else if (spec.sequence.empty()) {
      rec.marks.emplace_back("open", MPI_Wtime());
      check(MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
            "MPI_File_open");
      rec.marks.emplace_back("write", MPI_Wtime());
      check(MPI_File_set_view(fh, v.disp, MPI_BYTE, v.filetype, "native", MPI_INFO_NULL),
            "MPI_File_set_view");
      MPI_Status st;
      check(MPI_File_write_all(fh, s.local.data(), v.mem_count, v.memtype, &st), "MPI_File_write_all");
      rec.marks.emplace_back("close", MPI_Wtime());
      check(MPI_File_close(&fh), "MPI_File_close");
    } else {
      read_ok = reference_sequence(comm, spec, s, v, rec) ? 1 : 0;
    }
    rec.end = MPI_Wtime();
  } catch (const std::exception& e) {
    abort_job(comm, s.rank, e.what());
  }
  if (v.derived) MPI_Type_free(&v.filetype);
  if (v.memtype != MPI_BYTE) MPI_Type_free(&v.memtype);
  if (spec.sequence.empty() && !s.replay)
    rec.counters.bytes_written = static_cast<std::int64_t>(s.local.size());
  MPI_Allreduce(MPI_IN_PLACE, &read_ok, 1, MPI_INT, MPI_MIN, comm);
  PointRun out = conclude(comm, spec, s, relative(rec), label, FileLayout::Logical, opt);
  out.result.file_verified = out.result.file_verified && read_ok != 0;
  return out;
}

}  // namespace ciosim::mpi
