// Workload distributions of the global vector x: block-cyclic (paper §3, Fig. 1), a random distribution
// satisfying IEC's per-chunk condition, and explicit lists (Fig. 11's "generic distribution").
// Singh, Isaila, Pichel, Carretero, "A collective I/O implementation based on inspector-executor paradigm",
// The Journal of Supercomputing 47(1):53-75, 2009.
#include "algorithms/common/distribution.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace ciosim {

namespace {

std::string s(std::int64_t v) {
  return std::to_string(v);
}

/// splitmix64 (Steele, Lea, Flood 2014): a tiny PRNG whose output is fixed by its definition, so that a seed
/// gives the same distribution with every compiler and standard library.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) by rejection (no modulo bias).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t threshold = (0 - n) % n;
    for (;;) {
      const std::uint64_t r = next();
      if (r >= threshold) return r % n;
    }
  }

 private:
  std::uint64_t state_;
};

}  // namespace

Distribution block_cyclic(std::int64_t nx, int np, std::int64_t bx) {
  const std::string vals = " (Nx=" + s(nx) + ", Np=" + s(np) + ", Bx=" + s(bx) + ")";
  if (nx <= 0 || np <= 0 || bx <= 0)
    throw std::invalid_argument("block-cyclic needs Nx, Np and Bx > 0" + vals);
  if (bx > nx / np)  // also keeps Np*Bx from overflowing
    throw std::invalid_argument("block-cyclic needs Np*Bx <= Nx: one block per rank at least" + vals);
  if (nx % (static_cast<std::int64_t>(np) * bx) != 0)
    throw std::invalid_argument("block-cyclic needs Nx divisible by Np*Bx" + vals);
  Distribution d;
  d.nx = nx;
  const std::int64_t cycle = static_cast<std::int64_t>(np) * bx;
  for (int r = 0; r < np; ++r) d.per_rank.push_back(Datatype{{{r * bx, bx}}, nx / cycle, cycle});
  return d;
}

Distribution irregular(std::int64_t nx, int np, std::uint64_t seed) {
  const std::string vals = " (Nx=" + s(nx) + ", Np=" + s(np) + ")";
  if (nx <= 0 || np <= 0) throw std::invalid_argument("irregular needs Nx > 0 and Np > 0" + vals);
  const std::int64_t np64 = np;
  if (nx % (np64 * np64) != 0) throw std::invalid_argument("irregular needs Nx divisible by Np^2" + vals);
  const std::int64_t chunk = nx / np64;
  const std::int64_t share = chunk / np64;  // entries of each chunk per rank
  SplitMix64 rng(seed);
  Distribution d;
  d.nx = nx;
  d.per_rank.resize(static_cast<std::size_t>(np));
  std::vector<int> owner(static_cast<std::size_t>(chunk));
  for (std::int64_t c = 0; c < np64; ++c) {
    for (std::int64_t i = 0; i < chunk; ++i) owner[static_cast<std::size_t>(i)] = static_cast<int>(i / share);
    for (std::int64_t i = chunk - 1; i > 0; --i)  // Fisher-Yates
      std::swap(owner[static_cast<std::size_t>(i)],
                owner[static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i) + 1))]);
    for (std::int64_t i = 0; i < chunk; ++i) {
      const std::int64_t e = c * chunk + i;
      auto& tuples = d.per_rank[static_cast<std::size_t>(owner[static_cast<std::size_t>(i)])].tuples;
      if (!tuples.empty() && tuples.back().offset + tuples.back().length == e)
        ++tuples.back().length;
      else
        tuples.push_back({e, 1});
    }
  }
  return d;
}

std::vector<int> dims_create(int nnodes, int ndims) {
  if (nnodes < 1 || ndims < 1)
    throw std::invalid_argument("dims_create needs nnodes >= 1 and ndims >= 1 (nnodes=" + s(nnodes) +
                                ", ndims=" + s(ndims) + ")");
  std::vector<int> best;
  std::vector<int> cur;
  // Depth-first over non-increasing factor sequences; the first found at the best spread wins, and the
  // search visits larger leading factors first, so prefer a candidate only when strictly better.
  auto better = [&](const std::vector<int>& c) {
    if (best.empty()) return true;
    const int sc = c.front() - c.back();
    const int sb = best.front() - best.back();
    if (sc != sb) return sc < sb;
    return c < best;  // smaller largest dimension first, then lexicographic
  };
  auto search = [&](auto&& self, int left, int max_factor) -> void {
    if (static_cast<int>(cur.size()) == ndims - 1) {
      if (left > max_factor) return;
      cur.push_back(left);
      if (better(cur)) best = cur;
      cur.pop_back();
      return;
    }
    for (int f = std::min(left, max_factor); f >= 1; --f) {
      if (left % f != 0) continue;
      cur.push_back(f);
      self(self, left / f, f);
      cur.pop_back();
    }
  };
  search(search, nnodes, nnodes);
  return best;
}

Distribution block3d(std::int64_t gx, std::int64_t gy, std::int64_t gz, int np) {
  const std::string vals = " (nx=" + s(gx) + ", ny=" + s(gy) + ", nz=" + s(gz) + ", Np=" + s(np) + ")";
  if (gx <= 0 || gy <= 0 || gz <= 0 || np <= 0)
    throw std::invalid_argument("block3d needs nx, ny, nz and Np > 0" + vals);
  if (gx > INT64_MAX / gy || gx * gy > INT64_MAX / gz)
    throw std::invalid_argument("block3d: nx*ny*nz overflows 64 bits" + vals);
  const std::vector<int> dims = dims_create(np, 3);
  const std::int64_t g[3] = {gx, gy, gz};
  std::int64_t block[3];
  for (int k = 0; k < 3; ++k)
    block[k] = (g[k] + dims[static_cast<std::size_t>(k)] - 1) / dims[static_cast<std::size_t>(k)];
  Distribution d;
  d.nx = gx * gy * gz;
  for (int r = 0; r < np; ++r) {
    const int c[3] = {r / (dims[1] * dims[2]), (r / dims[2]) % dims[1], r % dims[2]};
    std::int64_t lo[3], len[3];
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(g[k], c[k] * block[k]);
      len[k] = std::min(g[k], lo[k] + block[k]) - lo[k];
    }
    Datatype dt;
    if (len[0] == 0 || len[1] == 0 || len[2] == 0) {
      d.per_rank.push_back(dt);  // this rank holds nothing
      continue;
    }
    // One x-plane of the block: len[1] rows of len[2] entries, merged when the rows are whole; the planes
    // are replicas len[0] times with a stride of one global plane (merged too when planes are whole).
    const std::int64_t base = (lo[0] * gy + lo[1]) * gz + lo[2];
    if (len[2] == gz && len[1] == gy) {
      dt.tuples.push_back({base, len[0] * gy * gz});
    } else {
      if (len[2] == gz)
        dt.tuples.push_back({base, len[1] * gz});
      else
        for (std::int64_t y = 0; y < len[1]; ++y) dt.tuples.push_back({base + y * gz, len[2]});
      dt.count = len[0];
      dt.stride = gy * gz;
    }
    d.per_rank.push_back(std::move(dt));
  }
  return d;
}

std::pair<std::int64_t, std::int64_t> block_rows(std::int64_t n, int np, int p) {
  if (n < 0 || np <= 0 || p < 0 || p >= np)
    throw std::invalid_argument("block_rows needs n >= 0, Np > 0 and 0 <= rank < Np (n=" + s(n) +
                                ", Np=" + s(np) + ", rank=" + s(p) + ")");
  const std::int64_t q = n / np;
  const std::int64_t extra = n % np;  // the first `extra` ranks hold one row more
  const std::int64_t begin = p * q + std::min<std::int64_t>(p, extra);
  return {begin, begin + q + (p < extra ? 1 : 0)};
}

Distribution stem2(std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t nl, std::int64_t nchem,
                   int np) {
  const std::string vals = " (nx=" + s(nx) + ", ny=" + s(ny) + ", nz=" + s(nz) + ", nl=" + s(nl) +
                           ", nchem=" + s(nchem) + ", Np=" + s(np) + ")";
  if (nx <= 0 || ny <= 0 || nz <= 0 || nl <= 0 || nchem <= 0 || np <= 0)
    throw std::invalid_argument("stem2 needs nx, ny, nz, nl, nchem and Np > 0" + vals);
  std::int64_t total = 1;
  for (const std::int64_t e : {nx, ny, nz, nl, nchem}) {
    if (total > INT64_MAX / e)
      throw std::invalid_argument("stem2: nx*ny*nz*nl*nchem overflows 64 bits" + vals);
    total *= e;
  }
  Distribution d;
  d.nx = total;
  const std::int64_t plane = nx * ny;         // one (z, l, ph): Nx*Ny entries, x fastest (Fig. 3)
  const std::int64_t planes = total / plane;  // Nz*Nl*Nph
  for (int p = 0; p < np; ++p) {
    const auto [y0, y1] = block_rows(ny, np, p);
    if (y1 == y0) {
      d.per_rank.push_back(Datatype{});  // more ranks than y rows: this rank holds nothing
      continue;
    }
    d.per_rank.push_back(Datatype{{{y0 * nx, (y1 - y0) * nx}}, planes, plane});
  }
  return d;
}

Distribution from_lists(std::int64_t nx, std::vector<std::vector<Tuple>> lists) {
  Distribution d;
  d.nx = nx;
  for (auto& l : lists) d.per_rank.push_back(Datatype{std::move(l), 1, 0});
  if (std::string why = check_partition(d); !why.empty())
    throw std::invalid_argument("the lists must partition [0, Nx): " + why);
  return d;
}

Distribution mesh(const std::vector<int>& owner, int np, std::int64_t load) {
  if (np < 1) throw std::invalid_argument("mesh: Np must be positive (Np=" + s(np) + ")");
  if (load < 1)
    throw std::invalid_argument("mesh: the load must be >= 1 entry per node (load=" + s(load) + ")");
  if (owner.empty()) throw std::invalid_argument("mesh: the mesh has no nodes");
  const auto n = static_cast<std::int64_t>(owner.size());
  if (n > INT64_MAX / load) throw std::invalid_argument("mesh: nodes x load overflows 64 bits");
  Distribution d;
  d.nx = n * load;
  d.unit = load;
  d.per_rank.resize(static_cast<std::size_t>(np));
  for (std::int64_t i = 0; i < n; ++i) {
    const int r = owner[static_cast<std::size_t>(i)];
    if (r < 0 || r >= np)
      throw std::invalid_argument("mesh: node " + s(i) + " is owned by rank " + s(r) + ", outside [0, " +
                                  s(np) + ")");
    auto& tuples = d.per_rank[static_cast<std::size_t>(r)].tuples;
    if (!tuples.empty() && tuples.back().offset + tuples.back().length == i * load)
      tuples.back().length += load;
    else
      tuples.push_back(Tuple{i * load, load});
  }
  return d;
}

void count_per_piece(const Datatype& dt, std::int64_t piece, std::vector<std::int64_t>& counts) {
  const auto npieces = static_cast<std::int64_t>(counts.size());
  if (piece <= 0 || npieces == 0) return;
  const std::int64_t end = piece * npieces;
  auto add_interval = [&](std::int64_t a, std::int64_t len) {
    std::int64_t b = std::min(a + len, end);
    a = std::max<std::int64_t>(a, 0);
    while (a < b) {
      const std::int64_t p = a / piece;
      const std::int64_t stop = std::min(b, (p + 1) * piece);
      counts[static_cast<std::size_t>(p)] += stop - a;
      a = stop;
    }
  };
  const bool closed_form = dt.stride > 0 && dt.count > 2 * (npieces + 1);
  if (!closed_form) {
    for (std::int64_t j = 0; j < dt.count; ++j)
      for (const Tuple& t : dt.tuples) add_interval(t.offset + j * dt.stride, t.length);
    return;
  }
  for (const Tuple& t : dt.tuples) {
    if (t.length <= 0) continue;
    // below(x): entries of the replicas [o + j*stride, o + j*stride + len), j < count, that are < x.
    auto below = [&](std::int64_t x) {
      const std::int64_t base = x - t.offset - t.length;
      std::int64_t j = base < 0 ? 0 : std::min(dt.count, base / dt.stride + 1);  // replicas entirely below x
      std::int64_t n = j * t.length;
      for (; j < dt.count && t.offset + j * dt.stride < x; ++j) n += x - (t.offset + j * dt.stride);
      return n;
    };
    std::int64_t prev = below(0);
    for (std::int64_t p = 0; p < npieces; ++p) {
      const std::int64_t next = below((p + 1) * piece);
      counts[static_cast<std::size_t>(p)] += next - prev;
      prev = next;
    }
  }
}

}  // namespace ciosim
