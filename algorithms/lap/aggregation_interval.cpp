// LAP aggregator assignment (ACN, AVN): Filgueira, Singh, Pichel, Isaila, Carretero, "Data Locality Aware
// Strategy for Two-Phase Collective I/O", VECPAR 2008, LNCS 5336 (2009). The reference code's
// aggregation_interval, step by step (docs/two-phase.md, "LAP aggregator assignment"), reimplemented; no
// code copied.
#include "algorithms/lap/aggregation_interval.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "algorithms/two_phase/cb_config_list.hpp"

namespace ciosim::lap {

namespace {

constexpr int kCountsTag = 1;              // the reference's MPI_Send tag
constexpr std::size_t kMaxInfoVal = 1024;  // MPICH's MPI_MAX_INFO_VAL, NUL included

std::int32_t to_int32(std::int64_t v, const char* what) {
  if (v < INT32_MIN || v > INT32_MAX)
    throw std::invalid_argument(std::string("hints.lap: ") + what + " " + std::to_string(v) +
                                " does not fit the reference's int");
  return static_cast<std::int32_t>(v);
}

}  // namespace

Intervals make_intervals(std::int64_t n_items, int count) {
  if (count < 1)
    throw std::invalid_argument("hints.lap: at least one host is needed (got " + std::to_string(count) + ")");
  if (n_items < count)
    throw std::invalid_argument("hints.lap: " + std::to_string(n_items) + " items (mesh nodes) cannot make " +
                                std::to_string(count) + " intervals, one per host; use fewer hosts");
  Intervals iv;
  iv.size = n_items / count;
  for (int k = 0; k < count; ++k) {
    iv.begin.push_back(k * iv.size);
    iv.end.push_back(k == count - 1 ? n_items - 1 : (k + 1) * iv.size - 1);
  }
  return iv;
}

std::vector<Block> item_blocks(const Datatype& dt, std::int64_t unit) {
  if (unit < 1)
    throw std::invalid_argument("hints.lap: entries per item must be >= 1 (got " + std::to_string(unit) +
                                ")");
  std::vector<Tuple> t = dt.flatten();
  std::erase_if(t, [](const Tuple& x) { return x.length <= 0; });
  std::sort(t.begin(), t.end(), [](const Tuple& a, const Tuple& b) { return a.offset < b.offset; });
  std::vector<Block> out;
  std::int64_t run_start = 0, run_len = 0;
  auto flush = [&] {
    if (run_len == 0) return;
    if (run_start % unit != 0 || run_len % unit != 0)
      throw std::invalid_argument("hints.lap: entries [" + std::to_string(run_start) + ", " +
                                  std::to_string(run_start + run_len) + ") are not whole items of " +
                                  std::to_string(unit) + " entries");
    out.push_back(Block{run_start / unit, run_len / unit});
  };
  for (const Tuple& x : t) {
    if (run_len > 0 && run_start + run_len == x.offset) {
      run_len += x.length;
      continue;
    }
    flush();
    run_start = x.offset;
    run_len = x.length;
  }
  flush();
  return out;
}

std::vector<std::int64_t> interval_counts(std::span<const Block> blocks, const Intervals& iv,
                                          LapCriterion c) {
  const auto n = static_cast<std::int64_t>(iv.begin.size());
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n), 0);
  for (const Block& b : blocks) {
    std::int64_t off = b.start;
    std::int64_t rem = b.length;
    while (rem > 0) {
      // The reference: (off + size) / size - 1, clamped to the last interval (see the header).
      const std::int64_t id = std::min(off / iv.size, n - 1);
      const std::int64_t len = std::min(rem, iv.end[static_cast<std::size_t>(id)] + 1 - off);
      counts[static_cast<std::size_t>(id)] += c == LapCriterion::Acn ? 1 : len;
      off += len;
      rem -= len;
    }
  }
  return counts;
}

Hosts group_hosts(const std::vector<std::string>& procnames) {
  Hosts h;
  for (int r = 0; r < static_cast<int>(procnames.size()); ++r) {
    const std::string& name = procnames[static_cast<std::size_t>(r)];
    const auto it = std::find(h.names.begin(), h.names.end(), name);
    if (it == h.names.end()) {
      h.names.push_back(name);
      h.ranks.push_back({r});
    } else {
      h.ranks[static_cast<std::size_t>(it - h.names.begin())].push_back(r);
    }
  }
  return h;
}

Matrix benefit_matrix(const Hosts& hosts, const std::vector<std::vector<std::int64_t>>& counts) {
  const int n = static_cast<int>(hosts.names.size());
  Matrix w(n);
  for (int h = 0; h < n; ++h)
    for (int r : hosts.ranks[static_cast<std::size_t>(h)]) {
      const auto& c = counts.at(static_cast<std::size_t>(r));
      if (static_cast<int>(c.size()) != n)
        throw std::invalid_argument("hints.lap: rank " + std::to_string(r) + " has " +
                                    std::to_string(c.size()) + " interval counts, expected " +
                                    std::to_string(n));
      for (int k = 0; k < n; ++k) w.at(h, k) += c[static_cast<std::size_t>(k)];
    }
  return w;
}

Choice choose(const Hosts& hosts, const Matrix& benefit) {
  const Assignment a = lapjv_max(benefit);  // rows = hosts, columns = intervals
  Choice out;
  out.interval_host = a.col_sol;
  out.solver_steps = a.steps;
  for (int h : a.col_sol) {
    out.ranklist.push_back(hosts.ranks[static_cast<std::size_t>(h)].front());
    if (!out.cb_config_list.empty()) out.cb_config_list += ',';
    out.cb_config_list += hosts.names[static_cast<std::size_t>(h)];
  }
  return out;
}

Choice aggregation_interval(Process& p, const Datatype& dt, std::int64_t unit, std::int64_t n_items,
                            LapCriterion c) {
  if (c == LapCriterion::None) throw std::invalid_argument("aggregation_interval: hints.lap is none");
  const int P = p.size();
  const int me = p.rank();
  // Steps 1-3: processor names to rank 0, hosts in order of first appearance, their count to everyone.
  const std::vector<std::string> names = gather_processor_names(p);
  Hosts hosts;
  std::int32_t cnodes = 0;
  if (me == 0) {
    hosts = group_hosts(names);
    cnodes = static_cast<std::int32_t>(hosts.names.size());
    p.compute(Work{.bytes_copied = 0, .tuples = static_cast<std::int64_t>(P) * cnodes});
  }
  p.bcast(std::as_writable_bytes(std::span(&cnodes, 1)), 0);

  // Steps 4-5: the intervals and this rank's count in each.
  const Intervals iv = make_intervals(n_items, cnodes);
  const std::vector<Block> blocks = item_blocks(dt, unit);
  const std::vector<std::int64_t> mine = interval_counts(blocks, iv, c);
  p.compute(Work{.bytes_copied = 0, .tuples = static_cast<std::int64_t>(blocks.size()) + cnodes});
  std::vector<std::int32_t> mine32;
  for (std::int64_t v : mine) mine32.push_back(to_int32(v, "an interval count of"));

  // Step 6: counts to rank 0, point-to-point, received in rank order.
  const auto n = static_cast<std::size_t>(cnodes);
  Choice choice;
  std::vector<std::int32_t> ranklist(n, 0);
  std::int32_t len = 0;
  if (me != 0) {
    p.send(0, kCountsTag, as_bytes(mine32));
  } else {
    std::vector<std::vector<std::int64_t>> counts(static_cast<std::size_t>(P));
    counts[0] = mine;
    std::vector<std::int32_t> buf(n);
    for (int r = 1; r < P; ++r) {
      p.recv(r, kCountsTag, as_writable_bytes(buf));
      counts[static_cast<std::size_t>(r)].assign(buf.begin(), buf.end());
    }
    // Steps 7-9: the benefit matrix, LAPJV on -W, the rank list and the string's buffer length.
    const Matrix w = benefit_matrix(hosts, counts);
    choice = choose(hosts, w);
    p.compute(Work{.bytes_copied = 0, .tuples = static_cast<std::int64_t>(P) * cnodes + choice.solver_steps});
    for (std::size_t k = 0; k < n; ++k) ranklist[k] = choice.ranklist[k];
    std::int64_t total = 3;
    for (int h : choice.interval_host)
      total += static_cast<std::int64_t>(hosts.names[static_cast<std::size_t>(h)].size()) + 3;
    // A list MPI_Info_set would refuse: length 0 tells every rank to stop (none may wait in a Bcast).
    len =
        choice.cb_config_list.size() >= kMaxInfoVal ? 0 : to_int32(total, "the cb_config_list buffer length");
  }
  // Step 10: the rank list, the buffer length and the string (with its NUL, in a buffer of len bytes).
  p.bcast(as_writable_bytes(ranklist), 0);
  p.bcast(std::as_writable_bytes(std::span(&len, 1)), 0);
  if (len == 0)
    throw std::invalid_argument("hints.lap: the cb_config_list naming " + std::to_string(cnodes) +
                                " hosts exceeds MPI_MAX_INFO_VAL (1024 characters); use fewer hosts");
  std::vector<char> text(static_cast<std::size_t>(len), '\0');
  if (me == 0) std::memcpy(text.data(), choice.cb_config_list.data(), choice.cb_config_list.size());
  p.bcast(as_writable_bytes(text), 0);
  choice.ranklist.assign(ranklist.begin(), ranklist.end());
  choice.cb_config_list = std::string(text.data());
  return choice;
}

}  // namespace ciosim::lap
