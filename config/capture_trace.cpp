#include "config/capture_trace.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ciosim::config {
namespace {

namespace fs = std::filesystem;

/// A non-negative integer, the whole of `s`; throws naming `what`.
std::int64_t count_of(std::string_view s, const std::string& what) {
  std::int64_t v = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0)
    throw std::invalid_argument(what + " " + std::string(s) + " is not a non-negative integer");
  return v;
}

double seconds_of(const std::string& s, const std::string& what) {
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || !(v >= 0))
    throw std::invalid_argument(what + " " + s + " is not a time in seconds (>= 0)");
  return v;
}

const std::set<std::string>& data_kinds() {
  static const std::set<std::string> k = {"write", "write_all", "write_at", "write_at_all",
                                          "read",  "read_all",  "read_at",  "read_at_all"};
  return k;
}

/// One line of rank-R.txt.
CapturedCall parse_call(const std::string& line) {
  std::istringstream in(line);
  CapturedCall c;
  std::string start, end;
  if (!(in >> c.kind >> start >> end)) throw std::invalid_argument("expected KIND START END");
  c.start = seconds_of(start, "start");
  c.end = seconds_of(end, "end");
  if (c.end < c.start)
    throw std::invalid_argument("the call ends (" + end + ") before it starts (" + start + ")");
  static const std::set<std::string> kinds = {"open", "close", "view", "seek", "sync", "unsupported"};
  const bool data = data_kinds().count(c.kind) > 0;
  if (!data && !kinds.count(c.kind))
    throw std::invalid_argument("unknown call " + c.kind +
                                " (open, close, view, seek, sync, write, write_all, write_at, write_at_all, "
                                "read, read_all, read_at, read_at_all, unsupported)");
  std::set<std::string> seen;
  std::string rest;
  std::getline(in, rest);
  std::size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    if (i >= rest.size()) break;
    const std::size_t eq = rest.find('=', i);
    if (eq == std::string::npos) throw std::invalid_argument("expected key=value at " + rest.substr(i));
    const std::string key = rest.substr(i, eq - i);
    if (!seen.insert(key).second) throw std::invalid_argument("key " + key + " given twice");
    i = eq + 1;
    if (key == "regions" || key == "runs") {  // the rest of the line
      c.regions = parse_regions(rest.substr(i));
      i = rest.size();
      continue;
    }
    std::string value;
    if (key == "path") {
      if (i >= rest.size() || rest[i] != '"') throw std::invalid_argument("path must be quoted");
      for (++i; i < rest.size() && rest[i] != '"'; ++i) {
        if (rest[i] == '\\' && i + 1 < rest.size()) ++i;
        value += rest[i];
      }
      if (i >= rest.size()) throw std::invalid_argument("path has no closing quote");
      ++i;
      c.path = value;
      continue;
    }
    const std::size_t sp = rest.find(' ', i);
    value = rest.substr(i, sp == std::string::npos ? std::string::npos : sp - i);
    i = sp == std::string::npos ? rest.size() : sp;
    if (key == "fh")
      c.fh = static_cast<int>(count_of(value, "fh"));
    else if (key == "comm" || key == "amode")
      (void)count_of(value, key);
    else if (key == "bytes")
      c.bytes = count_of(value, "bytes");
    else if (key == "offset")
      c.offset = count_of(value, "offset");
    else if (key == "disp")
      c.disp = count_of(value, "disp");
    else if (key == "etype")
      c.etype = count_of(value, "etype");
    else if (key == "extent")
      c.extent = count_of(value, "extent");
    else if (key == "call")
      c.call = value;
    else
      throw std::invalid_argument("unknown key " + key);
  }
  if (c.kind != "unsupported" && c.fh < 1) throw std::invalid_argument(c.kind + " needs fh=N (N >= 1)");
  if (data) {
    std::int64_t sum = 0;
    for (const ByteRun& r : c.regions) sum += r.length;
    if (sum != c.bytes)
      throw std::invalid_argument("its regions hold " + std::to_string(sum) +
                                  " bytes, not bytes=" + std::to_string(c.bytes));
  }
  if (c.kind == "view" && (c.etype < 1 || c.extent < 1))
    throw std::invalid_argument("view needs etype and extent >= 1");
  return c;
}

}  // namespace

std::string format_regions(const std::vector<ByteRun>& in) {
  std::vector<ByteRun> runs;  // joined where one continues the last
  for (const ByteRun& r : in) {
    if (r.length == 0) continue;
    if (!runs.empty() && runs.back().offset + runs.back().length == r.offset)
      runs.back().length += r.length;
    else
      runs.push_back(r);
  }
  std::string out;
  for (std::size_t i = 0; i < runs.size();) {
    std::size_t n = 1;
    std::int64_t stride = 0;
    if (i + 1 < runs.size() && runs[i + 1].length == runs[i].length) {
      stride = runs[i + 1].offset - runs[i].offset;
      while (i + n < runs.size() && runs[i + n].length == runs[i].length &&
             runs[i + n].offset - runs[i + n - 1].offset == stride)
        ++n;
    }
    if (!out.empty()) out += ' ';
    out += std::to_string(runs[i].offset) + "+" + std::to_string(runs[i].length);
    if (n > 1 && stride > 0) {
      out += "x" + std::to_string(n) + "/" + std::to_string(stride);
    } else {
      n = 1;
    }
    i += n;
  }
  return out;
}

std::vector<ByteRun> parse_regions(const std::string& text) {
  std::vector<ByteRun> out;
  std::istringstream in(text);
  for (std::string tok; in >> tok;) {
    const auto bad = [&](const std::string& why) {
      return std::invalid_argument("region " + tok + ": " + why +
                                   " (OFFSET+LENGTH or OFFSET+LENGTHxCOUNT/STRIDE)");
    };
    const std::size_t plus = tok.find('+');
    if (plus == std::string::npos) throw bad("no '+'");
    const std::size_t x = tok.find('x', plus);
    const std::size_t slash = tok.find('/', plus);
    if ((x == std::string::npos) != (slash == std::string::npos) || (x != std::string::npos && slash < x))
      throw bad("a count needs a stride");
    try {
      const std::int64_t off = count_of(std::string_view(tok).substr(0, plus), "offset");
      const std::int64_t len = count_of(
          std::string_view(tok).substr(plus + 1, (x == std::string::npos ? tok.size() : x) - plus - 1),
          "length");
      std::int64_t n = 1, stride = 0;
      if (x != std::string::npos) {
        n = count_of(std::string_view(tok).substr(x + 1, slash - x - 1), "count");
        stride = count_of(std::string_view(tok).substr(slash + 1), "stride");
        if (n < 1) throw std::invalid_argument("a count of 0");
        if (stride < len) throw std::invalid_argument("a stride shorter than the length");
      }
      if (len < 1) throw std::invalid_argument("a length of 0");
      if (len > INT64_MAX - off || (n - 1) > (INT64_MAX - off - len) / std::max<std::int64_t>(stride, 1))
        throw std::invalid_argument("it ends past the largest 64-bit offset");
      if (n > kMaxRegions - static_cast<std::int64_t>(out.size()))
        throw std::invalid_argument("more than " + std::to_string(kMaxRegions) +
                                    " regions in one call (each is held while the capture is replayed)");
      for (std::int64_t k = 0; k < n; ++k) out.push_back({off + k * stride, len});
    } catch (const std::invalid_argument& e) {
      throw bad(e.what());
    }
  }
  return out;
}

CapturedTrace read_capture(const fs::path& dir) {
  const fs::path head = dir / "trace.json";
  std::ifstream hin(head);
  if (!hin) throw std::invalid_argument(dir.string() + " is not a capture (no trace.json)");
  CapturedTrace t;
  try {
    const nlohmann::json h = nlohmann::json::parse(hin);
    if (h.value("format", "") != "ciosim-trace")
      throw std::invalid_argument("format is not \"ciosim-trace\"");
    t.version = h.at("version").get<int>();
    if (t.version != 1)
      throw std::invalid_argument("version " + std::to_string(t.version) + " (this ciosim reads 1)");
    t.ranks = h.at("ranks").get<int>();
    if (t.ranks < 1 || t.ranks > 1 << 20) throw std::invalid_argument("ranks must be 1 to 1048576");
    t.hosts = h.at("hosts").get<std::vector<std::string>>();
    if (static_cast<int>(t.hosts.size()) != t.ranks)
      throw std::invalid_argument("hosts must list every rank's");
    t.mpi_library = h.value("mpi_library", "");
    t.program = h.value("program", "");
  } catch (const std::exception& e) {
    throw std::invalid_argument(head.string() + ": " + e.what());
  }
  t.calls.resize(static_cast<std::size_t>(t.ranks));
  for (int r = 0; r < t.ranks; ++r) {
    const fs::path f = dir / ("rank-" + std::to_string(r) + ".txt");
    std::ifstream in(f);
    if (!in)
      throw std::invalid_argument(f.string() + " is missing (the capture has " + std::to_string(t.ranks) +
                                  " ranks)");
    int n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      if (line.empty() || line[0] == '#') continue;
      try {
        t.calls[static_cast<std::size_t>(r)].push_back(parse_call(line));
      } catch (const std::exception& e) {
        throw std::invalid_argument(f.string() + ":" + std::to_string(n) + ": " + e.what());
      }
    }
  }
  return t;
}

}  // namespace ciosim::config
