// ROMIO's cb_config_list: grammar, matching and the open-time exchange.
// Reimplemented from its description in docs/two-phase.md, "Aggregators" (checked against ROMIO
// adio/common/cb_config_list.c and ad_open.c of MPICH; no code copied).
#include "algorithms/two_phase/cb_config_list.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <unordered_map>

namespace ciosim {

namespace {

enum class Tok { End, Comma, Colon, Wildcard, String };

class Lexer {
 public:
  explicit Lexer(const std::string& s) : s_(s) {}
  Tok next(std::string& text) {
    if (pos_ >= s_.size()) return Tok::End;
    const char c = s_[pos_];
    if (c == ':') return ++pos_, Tok::Colon;
    if (c == ',') return ++pos_, Tok::Comma;
    const std::size_t stop = std::min(s_.find_first_of(":,", pos_), s_.size());
    text = s_.substr(pos_, stop - pos_);
    pos_ = stop;
    if (c == '*') {
      if (text.size() != 1) fail("'*' must stand alone (got '" + text + "')");
      return Tok::Wildcard;
    }
    return Tok::String;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument("hints.cb_config_list \"" + s_ + "\": " + why +
                                " (expected host[:n] items separated by commas, host or n may be *)");
  }

 private:
  const std::string& s_;
  std::size_t pos_ = 0;
};

/// The processes of each host name, in rank order, so that a host's processes are found without a scan
/// over every process (quadratic at tens of thousands of ranks).
class NameIndex {
 public:
  explicit NameIndex(const std::vector<std::string>& names) {
    for (int i = 0; i < static_cast<int>(names.size()); ++i)
      procs_[names[static_cast<std::size_t>(i)]].push_back(i);
  }
  /// First unused process at or after `from` whose name is `name`, or -1.
  int find(const std::string& name, const std::vector<char>& used, int from) const {
    const auto it = procs_.find(name);
    if (it == procs_.end()) return -1;
    const std::vector<int>& p = it->second;
    for (auto i = std::lower_bound(p.begin(), p.end(), std::max(from, 0)); i != p.end(); ++i)
      if (!used[static_cast<std::size_t>(*i)]) return *i;
    return -1;
  }

 private:
  std::unordered_map<std::string, std::vector<int>> procs_;
};

/// Takes up to max_matches unused processes named `name` from index `from` on, then retires every other
/// process of that host.
void match_host(const std::string& name, int from, int max_matches, const NameIndex& names,
                std::vector<char>& used, std::vector<int>& ranks, int cb_nodes) {
  int to_take = std::min(max_matches, cb_nodes - static_cast<int>(ranks.size()));
  int cur = from;
  while (to_take > 0) {
    cur = names.find(name, used, cur);
    if (cur < 0) return;
    ranks.push_back(cur);
    used[static_cast<std::size_t>(cur)] = 1;
    ++cur;
    --to_take;
  }
  while ((cur = names.find(name, used, cur)) >= 0) used[static_cast<std::size_t>(cur++)] = 1;
}

}  // namespace

std::vector<CbConfigItem> parse_cb_config_list(const std::string& list) {
  Lexer lex(list);
  std::vector<CbConfigItem> items;
  std::string text;
  for (Tok t = lex.next(text); t != Tok::End; t = lex.next(text)) {
    if (t != Tok::Wildcard && t != Tok::String) lex.fail("an item must start with a host name or *");
    CbConfigItem item;
    item.host = t == Tok::Wildcard ? "" : text;
    Tok after = lex.next(text);
    if (after == Tok::Colon) {
      const Tok n = lex.next(text);
      if (n == Tok::Wildcard) {
        item.all_procs = true;
      } else if (n == Tok::String) {
        errno = 0;
        char* end = nullptr;
        const long v = std::strtol(text.c_str(), &end, 10);
        if (*end != '\0') {
          item.max_procs = 1;  // ROMIO: "some garbage value; default to 1"
        } else if (v < 0 || v > INT32_MAX || errno != 0) {
          lex.fail("the process count must be >= 0 (got " + text + ")");
        } else {
          item.max_procs = static_cast<int>(v);
        }
      } else {
        lex.fail("':' must be followed by a process count or *");
      }
      after = lex.next(text);
    }
    if (after != Tok::Comma && after != Tok::End) lex.fail("items must be separated by ','");
    items.push_back(std::move(item));
    if (after == Tok::End) break;
  }
  return items;
}

std::vector<int> cb_config_ranklist(const std::string& list, const std::vector<std::string>& procnames,
                                    int cb_nodes) {
  const std::vector<CbConfigItem> items = parse_cb_config_list(list);
  const int nprocs = static_cast<int>(procnames.size());
  if (cb_nodes <= 0 || cb_nodes > nprocs) cb_nodes = nprocs;
  std::vector<int> ranks;
  if (list == "*:*") {
    for (int r = 0; r < cb_nodes; ++r) ranks.push_back(r);
    return ranks;
  }
  std::vector<char> used(procnames.size(), 0);
  const NameIndex index(procnames);
  for (const CbConfigItem& item : items) {
    if (static_cast<int>(ranks.size()) >= cb_nodes) break;
    const int max_procs = item.all_procs ? cb_nodes : item.max_procs;
    if (!item.host.empty()) {
      match_host(item.host, 0, max_procs, index, used, ranks, cb_nodes);
      continue;
    }
    if (max_procs == 0) {  // "*:0" retires every host
      std::fill(used.begin(), used.end(), 1);
      continue;
    }
    int w = 0;  // wildcard: every unused host in rank order, max_procs processes each
    while (static_cast<int>(ranks.size()) < cb_nodes) {
      while (w < nprocs && used[static_cast<std::size_t>(w)]) ++w;
      if (w == nprocs) break;
      ranks.push_back(w);
      match_host(procnames[static_cast<std::size_t>(w)], w + 1, max_procs - 1, index, used, ranks, cb_nodes);
      used[static_cast<std::size_t>(w)] = 1;
      ++w;
    }
  }
  return ranks;
}

std::vector<std::string> gather_processor_names(Process& p) {
  const int P = p.size();
  const std::string me = p.host();
  // MPI_Get_processor_name's length, then the name with its NUL.
  std::int32_t my_len = static_cast<std::int32_t>(me.size());
  std::vector<std::int32_t> lens(p.rank() == 0 ? static_cast<std::size_t>(P) : 0);
  p.gather(std::as_bytes(std::span(&my_len, 1)), as_writable_bytes(lens), 0);
  std::vector<std::byte> mine(me.size() + 1, std::byte{0});
  std::memcpy(mine.data(), me.data(), me.size());
  std::vector<std::int64_t> counts;
  std::int64_t total = 0;
  if (p.rank() == 0)
    for (std::int32_t l : lens) total += counts.emplace_back(l + 1);
  std::vector<std::byte> all(static_cast<std::size_t>(total));
  p.gatherv(mine, all, counts, 0);
  std::vector<std::string> names;
  std::size_t pos = 0;
  for (std::int64_t c : counts) {
    names.emplace_back(reinterpret_cast<const char*>(all.data() + pos), static_cast<std::size_t>(c - 1));
    pos += static_cast<std::size_t>(c);
  }
  return names;
}

std::vector<int> bcast_rank_map(Process& p, const IoHints& hints, const std::vector<std::string>& names) {
  std::int32_t cb_nodes = 0;
  std::vector<std::int32_t> ranklist;
  if (p.rank() == 0) {
    for (int r : cb_config_ranklist(hints.cb_config_list, names, hints.cb_nodes)) ranklist.push_back(r);
    cb_nodes = static_cast<std::int32_t>(ranklist.size());
  }
  p.bcast(std::as_writable_bytes(std::span(&cb_nodes, 1)), 0);
  if (cb_nodes == 0)
    throw std::invalid_argument("hints.cb_config_list \"" + hints.cb_config_list +
                                "\" selects no aggregator on this platform's hosts (e.g. " + p.host() + ")");
  ranklist.resize(static_cast<std::size_t>(cb_nodes));
  p.bcast(as_writable_bytes(ranklist), 0);
  return {ranklist.begin(), ranklist.end()};
}

const std::vector<std::string>& processor_names(Process& p) {
  // The key names what ROMIO caches (its attribute on the communicator holds the processor names).
  static const std::string kNames = "romio:processor_names";
  auto names = std::static_pointer_cast<const std::vector<std::string>>(p.attribute(kNames));
  if (!names) {
    names = std::make_shared<const std::vector<std::string>>(gather_processor_names(p));
    p.set_attribute(kNames, names);
  }
  return *names;  // the attribute keeps it
}

std::vector<int> select_aggregators(Process& p, const IoHints& hints) {
  return bcast_rank_map(p, hints, processor_names(p));
}

}  // namespace ciosim
