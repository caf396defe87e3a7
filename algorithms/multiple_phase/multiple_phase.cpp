// Multiple-Phase Collective I/O: closed-form datatypes, the exchange phases and the write.
// D. E. Singh, F. Isaila, A. Calderón, F. García, J. Carretero, "Multiple-Phase Collective I/O Technique for
// Improving Data Access Locality", 15th Euromicro PDP, 2007 (STEM-II), §4: steps 1-3
// of each communication phase (datatype generation, Fig. 5's target processor, the exchange of half the
// data), then the output phase.
#include "algorithms/multiple_phase/multiple_phase.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "algorithms/common/access_list.hpp"
#include "algorithms/common/butterfly.hpp"
#include "algorithms/common/distribution.hpp"
#include "algorithms/common/payload.hpp"

namespace ciosim::multiple_phase {

namespace {

constexpr int kExchangeTagBase = 100;  ///< phase ph uses tag 100 + ph

std::string s(std::int64_t v) {
  return std::to_string(v);
}

/// Sorts and merges adjacent tuples (drops empty ones).
std::vector<Tuple> merged(std::vector<Tuple> t) {
  std::erase_if(t, [](const Tuple& x) { return x.length <= 0; });
  std::sort(t.begin(), t.end(), [](const Tuple& a, const Tuple& b) { return a.offset < b.offset; });
  std::vector<Tuple> out;
  for (const Tuple& x : t) {
    if (!out.empty() && out.back().offset + out.back().length == x.offset)
      out.back().length += x.length;
    else
      out.push_back(x);
  }
  return out;
}

/// The pieces `p` (plane coordinates) of planes [begin, end) as a datatype of x: the indexed pieces
/// replicated once per plane with the plane as stride (MPI_Type_indexed + MPI_Type_hvector), or one tuple
/// when the pieces cover whole planes.
Datatype over_planes(const std::vector<Tuple>& p, Planes range, std::int64_t plane) {
  if (range.size() <= 0 || p.empty()) return Datatype{};
  if (p.size() == 1 && p.front().offset == 0 && p.front().length == plane)
    return Datatype{{{range.begin * plane, range.size() * plane}}, 1, 0};
  std::vector<Tuple> t = p;
  for (Tuple& x : t) x.offset += range.begin * plane;
  return Datatype{std::move(t), range.size(), plane};
}

Layout checked_layout(const Distribution& d) {
  Layout l;
  if (std::string why = layout_of(d, l); !why.empty()) throw std::invalid_argument(why);
  return l;
}

}  // namespace

std::string layout_of(const Distribution& d, Layout& out) {
  if (std::string why = butterfly::check_ranks(d.nprocs(), "multiple-phase"); !why.empty()) return why;
  if (std::string why = check_partition(d); !why.empty())
    return "multiple-phase needs a partition of x: " + why;
  const std::string need =
      "multiple-phase needs a regular distribution, every rank holding the same pieces of each of W equal "
      "planes of x (stem2, block-cyclic): ";
  Layout l;
  int first = -1;  // the first rank that holds entries
  for (int r = 0; r < d.nprocs(); ++r) {
    const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
    if (dt.size() == 0) continue;
    if (first < 0) {
      first = r;
      l.planes = dt.count;
      l.plane = dt.count > 1 ? dt.stride : d.nx;
      if (l.plane <= 0 || l.plane * l.planes != d.nx)
        return need + "rank " + s(r) + " replicates " + s(dt.count) + " times with stride " + s(dt.stride) +
               ", which does not tile Nx=" + s(d.nx);
    } else if (dt.count != l.planes || (l.planes > 1 && dt.stride != l.plane)) {
      return need + "rank " + s(r) + " has " + s(dt.count) + " replicas of stride " + s(dt.stride) +
             ", rank " + s(first) + " has " + s(l.planes) + " of stride " + s(l.plane);
    }
    for (const Tuple& t : dt.tuples)
      if (t.length > 0 && (t.offset < 0 || t.offset + t.length > l.plane))
        return need + "rank " + s(r) + "'s tuple {" + s(t.offset) + "," + s(t.length) +
               "} crosses a plane of " + s(l.plane) + " entries";
  }
  for (const Datatype& dt : d.per_rank)
    l.pieces.push_back(dt.size() == 0 ? std::vector<Tuple>{} : merged(dt.tuples));
  out = std::move(l);
  return "";
}

std::string check(const Distribution& d) {
  Layout l;
  return layout_of(d, l);
}

std::string check_phases(int requested, int ranks) {
  if (std::string why = butterfly::check_ranks(ranks, "multiple-phase"); !why.empty()) return why;
  const int all = butterfly::phases(ranks);
  if (requested == 0 || (requested >= 1 && requested <= all)) return "";
  return "multiple-phase: run.phases = " + s(requested) + " is out of range for " + s(ranks) +
         " ranks (valid: " + (all == 0 ? std::string("none with one rank") : "1.." + s(all)) +
         ", or 0 for all log2(ranks) = " + s(all) + ")";
}

int phases_to_run(int requested, int ranks) {
  if (std::string why = check_phases(requested, ranks); !why.empty()) throw std::invalid_argument(why);
  return requested == 0 ? butterfly::phases(ranks) : requested;
}

Planes planes_after(int r, int k, std::int64_t planes) {
  Planes range{0, planes};
  for (int ph = 0; ph < k; ++ph) {
    const std::int64_t mid = range.begin + (range.size() + 1) / 2;  // the lower half takes the odd plane
    if (butterfly::is_lower(r, ph))
      range.end = mid;
    else
      range.begin = mid;
  }
  return range;
}

std::vector<Tuple> pieces_after(const Layout& l, int r, int k) {
  std::vector<Tuple> all;
  for (int g = 0; g < l.nprocs(); ++g)
    if ((g >> k) == (r >> k))
      all.insert(all.end(), l.pieces[static_cast<std::size_t>(g)].begin(),
                 l.pieces[static_cast<std::size_t>(g)].end());
  return merged(std::move(all));
}

Datatype held(const Layout& l, int r, int k) {
  return over_planes(pieces_after(l, r, k), planes_after(r, k, l.planes), l.plane);
}

Step step(const Layout& l, int r, int ph) {
  Step st;
  st.partner = butterfly::partner(r, ph);
  if (st.partner >= l.nprocs())
    throw std::invalid_argument("multiple-phase: phase " + s(ph) + " pairs rank " + s(r) + " with rank " +
                                s(st.partner) + ", beyond Np=" + s(l.nprocs()));
  const Planes range = planes_after(r, ph, l.planes);  // the partner's too: they differ only in bit ph
  const Planes lower{range.begin, range.begin + (range.size() + 1) / 2};
  const Planes upper{lower.end, range.end};
  const bool low = butterfly::is_lower(r, ph);
  st.send = over_planes(pieces_after(l, r, ph), low ? upper : lower, l.plane);
  st.recv = over_planes(pieces_after(l, st.partner, ph), low ? lower : upper, l.plane);
  return st;
}

void run(Process& p, const TechniqueInput& in, LocalData local) {
  check_input(p, in, local.size(), "multiple-phase");
  const Layout l = checked_layout(*in.dist);
  const int k = phases_to_run(in.phases, p.size());
  const std::int64_t es = in.element_size;
  const int r = p.rank();
  const Datatype& mine = in.dist->per_rank[static_cast<std::size_t>(r)];
  const Datatype out = held(l, r, k);
  std::vector<Extent> regions;
  for_each_storage_piece(out, es, [&](Offset off, Offset len) { regions.push_back({off, len}); });
  for (int it = 0; it < in.iterations; ++it) {
    // The application's array: in the paper every rank has the whole of it, its own entries in place (Fig.
    // 3), so placing them is not the technique's work. This implementation allocates it (zeroed) and unpacks
    // them there, which a real run pays: charged unless the paper's cost is asked (run.cpu_charge).
    const bool charged = in.cpu_charge == CpuCharge::implementation;
    if (charged) p.phase("place");
    payload::Buffer memory(static_cast<std::size_t>(in.dist->nx * es));
    unpack(local, mine, es, memory);
    if (charged)
      p.compute(Work{.bytes_copied = static_cast<std::int64_t>(memory.size() + local.size()),
                     .tuples = mine.all_tuples()});
    for (int ph = 0; ph < k; ++ph) {
      p.phase("exchange" + std::to_string(ph));
      const Step st = step(l, r, ph);
      payload::Buffer incoming(static_cast<std::size_t>(st.recv.size() * es));
      butterfly::exchange(p, st.partner, kExchangeTagBase + ph, memory, st.send, es, incoming);
      unpack(incoming, st.recv, es, memory);  // into the unassigned entries, at their own positions
      p.compute(
          Work{.bytes_copied = static_cast<std::int64_t>(incoming.size()), .tuples = st.recv.all_tuples()});
    }
    p.phase("write");
    if (regions.size() == 1) {  // one contiguous block (all log2 Np phases): written from memory in place
      p.write_at(regions.front().offset,
                 memory.span().subspan(static_cast<std::size_t>(regions.front().offset),
                                       static_cast<std::size_t>(regions.front().length)));
    } else if (!regions.empty()) {  // a file view of the held pieces: one list access
      payload::Buffer packed(static_cast<std::size_t>(out.size() * es));
      pack(memory, out, es, packed);
      p.compute(Work{.bytes_copied = static_cast<std::int64_t>(packed.size()), .tuples = out.all_tuples()});
      p.write_list(regions, packed);
    }
  }
}

void run_read(Process& p, const TechniqueInput& in, std::span<std::byte> out) {
  check_input(p, in, out.size(), "multiple-phase");
  const Layout l = checked_layout(*in.dist);
  const int k = phases_to_run(in.phases, p.size());
  const std::int64_t es = in.element_size;
  const int r = p.rank();
  const Datatype& mine = in.dist->per_rank[static_cast<std::size_t>(r)];
  const Datatype held_now = held(l, r, k);
  std::vector<Extent> regions;
  for_each_storage_piece(held_now, es, [&](Offset off, Offset len) { regions.push_back({off, len}); });
  for (int it = 0; it < in.iterations; ++it) {
    payload::Buffer memory(static_cast<std::size_t>(in.dist->nx * es));
    p.phase("read");  // the write's access, mirrored
    if (regions.size() == 1) {
      p.read_at(regions.front().offset,
                memory.span().subspan(static_cast<std::size_t>(regions.front().offset),
                                      static_cast<std::size_t>(regions.front().length)));
    } else if (!regions.empty()) {
      payload::Buffer packed(static_cast<std::size_t>(held_now.size() * es));
      p.read_list(regions, packed);
      unpack(packed, held_now, es, memory);
      p.compute(
          Work{.bytes_copied = static_cast<std::int64_t>(packed.size()), .tuples = held_now.all_tuples()});
    }
    for (int ph = k - 1; ph >= 0; --ph) {  // the phases undone in reverse: each rank gets back what it sent
      p.phase("exchange" + std::to_string(ph));
      const Step st = step(l, r, ph);
      payload::Buffer incoming(static_cast<std::size_t>(st.send.size() * es));
      butterfly::exchange(p, st.partner, kExchangeTagBase + ph, memory, st.recv, es, incoming);
      unpack(incoming, st.send, es, memory);
      p.compute(
          Work{.bytes_copied = static_cast<std::int64_t>(incoming.size()), .tuples = st.send.all_tuples()});
    }
    pack(memory, mine, es, out);  // the application's own entries, in its storage order (not charged)
  }
}

std::vector<std::vector<std::int64_t>> simulate_memory(const Distribution& d, int k) {
  const Layout l = checked_layout(d);
  const int np = l.nprocs();
  const int all = butterfly::phases(np);
  if (k < 0) k = all;
  if (k > all)
    throw std::invalid_argument("multiple-phase: " + s(k) + " phases requested, " + s(np) + " ranks have " +
                                s(all));
  constexpr std::int64_t es = sizeof(std::int64_t);
  std::vector<std::vector<std::int64_t>> memory(
      static_cast<std::size_t>(np), std::vector<std::int64_t>(static_cast<std::size_t>(d.nx), -1));
  for (int r = 0; r < np; ++r) {
    const Datatype& dt = d.per_rank[static_cast<std::size_t>(r)];
    std::vector<std::int64_t> local;  // storage order, each entry its logical index
    for (std::int64_t j = 0; j < dt.count; ++j)
      for (const Tuple& t : dt.tuples)
        for (std::int64_t i = 0; i < t.length; ++i) local.push_back(t.offset + j * dt.stride + i);
    unpack(as_bytes(local), dt, es, as_writable_bytes(memory[static_cast<std::size_t>(r)]));
  }
  for (int ph = 0; ph < k; ++ph) {
    std::vector<Step> steps;
    std::vector<std::vector<std::int64_t>> staging;  // every send is packed before any receive lands
    for (int r = 0; r < np; ++r) {
      steps.push_back(step(l, r, ph));
      staging.emplace_back(static_cast<std::size_t>(steps.back().send.size()));
      pack(as_bytes(memory[static_cast<std::size_t>(r)]), steps.back().send, es,
           as_writable_bytes(staging.back()));
    }
    for (int r = 0; r < np; ++r) {
      auto& m = memory[static_cast<std::size_t>(r)];
      const Step& st = steps[static_cast<std::size_t>(r)];
      const std::vector<std::int64_t>& in = staging[static_cast<std::size_t>(st.partner)];
      if (static_cast<std::int64_t>(in.size()) != st.recv.size())
        throw std::logic_error("multiple-phase: phase " + s(ph) + ": rank " + s(r) + " expects " +
                               s(st.recv.size()) + " entries, its partner sends " + s(in.size()));
      const std::vector<Tuple> gone = st.send.flatten();  // given to the partner: no longer this rank's
      for (const Tuple& t : gone) std::fill_n(m.begin() + t.offset, t.length, -1);
      unpack(as_bytes(in), st.recv, es, as_writable_bytes(m));
    }
  }
  return memory;
}

}  // namespace ciosim::multiple_phase
