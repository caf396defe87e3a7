// An application's MPI-IO calls replayed one by one (algorithms/replay.hpp). The collective calls go through
// the operation sequences' session seam (View-based collective I/O for MPI-IO, J. García Blas, F. Isaila,
// D. E. Singh, J. Carretero, CCGrid 2008, keeps its views and buffers across calls; the other techniques run
// once per call as ROMIO's MPI_File_write_all does); the independent calls as the independent baseline makes
// them (Thakur, Gropp, Lusk, "Data Sieving and Collective I/O in ROMIO", Frontiers '99, §2: one request per
// contiguous piece).
#include "algorithms/replay.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "algorithms/sequence.hpp"

namespace ciosim {

namespace {

/// The file bytes a step covers: [a_k, a_k + Nx * es).
Extent step_range(const Replay& r, const ReplayStep& s) {
  return Extent{s.position, r.shapes[static_cast<std::size_t>(s.shape)].nx * r.element_size};
}

/// Sorted, with touching or overlapping extents joined.
std::vector<Extent> merged(std::vector<Extent> v) {
  std::sort(v.begin(), v.end(), [](const Extent& a, const Extent& b) { return a.offset < b.offset; });
  std::vector<Extent> out;
  for (const Extent& e : v) {
    if (e.length <= 0) continue;
    if (!out.empty() && e.offset <= out.back().offset + out.back().length)
      out.back().length = std::max(out.back().length, e.offset + e.length - out.back().offset);
    else
      out.push_back(e);
  }
  return out;
}

/// The bytes the replay reads (laid out before the run), or every byte it writes or reads (`all`).
std::vector<Extent> touched(const Replay& r, bool all) {
  std::vector<Extent> v;
  for (const ReplayStep& s : r.steps)
    if (all || !s.write) v.push_back(step_range(r, s));
  for (const auto& actions : r.ranks)
    for (const ReplayAction& a : actions)
      if (a.kind == ReplayKind::IndependentRead || (all && a.kind == ReplayKind::IndependentWrite))
        v.insert(v.end(), a.runs.begin(), a.runs.end());
  return merged(std::move(v));
}

/// One independent call: one request per contiguous region, at its absolute position (the view's
/// displacement is the collective calls' business).
bool independent(Process& p, const ReplayAction& a, std::int64_t es) {
  const bool write = a.kind == ReplayKind::IndependentWrite;
  p.phase(write ? "independent_write" : "independent_read");
  const Offset keep = p.file_displacement();
  p.set_file_displacement(0);
  bool ok = true;
  for (const Extent& e : a.runs) {
    std::vector<std::byte> want(static_cast<std::size_t>(e.length));
    replay_values(e.offset, want, es);
    p.compute(Work{.bytes_copied = 0, .tuples = 1});
    if (write) {
      p.write_at(e.offset, want);
    } else {
      std::vector<std::byte> got(want.size());
      p.read_at(e.offset, got);
      ok = ok && same_bytes(got, want);
    }
  }
  p.set_file_displacement(keep);
  return ok;
}

}  // namespace

void replay_values(Offset offset, std::span<std::byte> out, std::int64_t es) {
  const std::int64_t first = offset / es;
  const auto n = static_cast<std::int64_t>(out.size()) / es;
  for (std::int64_t i = 0; i < n; ++i)
    fill_entry(first + i, out.subspan(static_cast<std::size_t>(i * es), static_cast<std::size_t>(es)));
}

std::string replay_refusal(const TechniqueInfo& tech, const Replay& r) {
  if (tech.layout != FileLayout::Logical)
    return "technique " + tech.name +
           " lays its file out rank by rank (the papers' reference), not where the application's calls put "
           "their bytes; a call-by-call replay needs a technique that writes x in its order";
  std::vector<char> checked(r.shapes.size(), 0);
  for (std::size_t k = 0; k < r.steps.size(); ++k) {
    const ReplayStep& s = r.steps[k];
    const std::string call = "collective call " + std::to_string(k + 1) + " (" + s.name + " of bytes [" +
                             std::to_string(s.position) + ", " +
                             std::to_string(s.position + step_range(r, s).length) + "))";
    if (!s.write && !tech.read && !tech.session)
      return "technique " + tech.name + " has no read path, and " + call + " reads";
    char& done = checked[static_cast<std::size_t>(s.shape)];
    if (done) continue;
    done = 1;
    if (const std::string why = tech.check(r.shapes[static_cast<std::size_t>(s.shape)]); !why.empty())
      return "technique " + tech.name + " cannot serve " + call + ": " + why;
  }
  return "";
}

bool run_replay(Process& p, const TechniqueInfo& tech, const TechniqueInput& in, const Replay& r) {
  const std::int64_t es = r.element_size;
  Distribution none;  // a session opened before any collective call (none follows)
  none.per_rank.resize(static_cast<std::size_t>(p.size()));
  TechniqueInput call = in;
  call.iterations = 1;  // each replayed call is one call
  call.element_size = es;
  call.dist = r.shapes.empty() ? &none : &r.shapes.front();
  std::unique_ptr<Session> s;
  int shape = -1;   // the shape the session's view was set with (-1: none since the open)
  Offset disp = 0;  // that view's displacement
  bool reads_ok = true;
  for (const ReplayAction& a : r.ranks.at(static_cast<std::size_t>(p.rank()))) {
    switch (a.kind) {
      case ReplayKind::Open:
        p.operation("open");
        p.phase("open");
        p.file_open(in.file_name);
        s = open_session(p, tech, call);
        shape = -1;
        break;
      case ReplayKind::Close:
        p.operation("close");
        s->close();
        p.phase("close");
        p.file_close();
        s.reset();
        break;
      case ReplayKind::Sync:
        p.operation("sync");
        p.phase("sync");
        s->sync();
        break;
      case ReplayKind::Compute:
        p.phase("compute");
        p.compute(Work{.seconds = a.seconds});
        break;
      case ReplayKind::IndependentWrite:
      case ReplayKind::IndependentRead:
        reads_ok = independent(p, a, es) && reads_ok;
        break;
      case ReplayKind::Collective: {
        const ReplayStep& st = r.steps.at(static_cast<std::size_t>(a.step));
        const Distribution& d = r.shapes.at(static_cast<std::size_t>(st.shape));
        p.operation(st.name);
        if (st.shape != shape) s->set_distribution(d);
        if (st.shape != shape || st.view_set || st.position < disp) {
          s->set_view(st.position);
          disp = st.position;
        } else {
          s->seek(st.position - disp);  // the same view, an explicit offset or the moved file pointer
        }
        shape = st.shape;
        const std::vector<std::byte> want = make_local_data(d, p.rank(), es, value_base(st.position, es));
        if (st.write) {
          s->write(want);
        } else {
          std::vector<std::byte> got(want.size());
          s->read(got);
          reads_ok = same_bytes(got, want) && reads_ok;
        }
        break;
      }
    }
  }
  return reads_ok;
}

std::vector<std::byte> replay_initial_file(const Replay& r) {
  const std::vector<Extent> read = touched(r, false);
  if (read.empty()) return {};
  std::vector<std::byte> file(static_cast<std::size_t>(read.back().offset + read.back().length));
  for (const Extent& e : read)
    replay_values(
        e.offset,
        std::span(file).subspan(static_cast<std::size_t>(e.offset), static_cast<std::size_t>(e.length)),
        r.element_size);
  return file;
}

std::string check_replay_file(std::span<const std::byte> file, const Replay& r) {
  const std::vector<Extent> all = touched(r, true);
  const Offset end = all.empty() ? 0 : all.back().offset + all.back().length;
  const auto size = static_cast<Offset>(file.size());
  const auto differs = [](Offset b, const char* where) {
    return "the file differs from the application's at byte " + std::to_string(b) + where;
  };
  Offset at = 0;  // bytes before this are checked
  std::vector<std::byte> want;
  for (const Extent& e : all) {
    for (; at < e.offset && at < size; ++at)
      if (file[static_cast<std::size_t>(at)] != std::byte{0}) return differs(at, " (where no call wrote)");
    // In pieces of at most 1 MiB of whole entries: memory for one piece, not the file.
    const Offset piece =
        std::max<Offset>(r.element_size, (Offset{1} << 20) / r.element_size * r.element_size);
    for (Offset from = e.offset; from < e.offset + e.length && from < size; from += piece) {
      const Offset n = std::min({piece, e.offset + e.length - from, size - from});
      want.resize(static_cast<std::size_t>(piece));
      replay_values(from, std::span(want).first(static_cast<std::size_t>(piece)), r.element_size);
      if (std::memcmp(file.data() + from, want.data(), static_cast<std::size_t>(n)) != 0)
        for (Offset i = 0; i < n; ++i)
          if (file[static_cast<std::size_t>(from + i)] != want[static_cast<std::size_t>(i)])
            return differs(from + i, "");
    }
    at = e.offset + e.length;
  }
  if (size != end)
    return "the file is " + std::to_string(size) + " bytes, the application's " + std::to_string(end) +
           " (its last written or read byte)";
  return "";
}

}  // namespace ciosim
