#include "config/timeline.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "config/params.hpp"

namespace ciosim::config {
namespace {

using activity::ActorKind;
using activity::Log;

/// Microseconds with picosecond resolution (Chrome's unit), or seconds with 12 decimals (Paje).
std::string usec(double seconds) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", seconds * 1e6);
  return buf;
}
std::string sec(double seconds) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.12f", seconds);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

/// Splits overlapping intervals into lanes (each lane's intervals do not overlap): greedy by start time,
/// first lane free. Returns each interval's lane, in input order.
template <class T>
std::vector<int> lanes_of(const std::vector<const T*>& items) {
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return items[a]->start < items[b]->start; });
  std::vector<double> lane_end;
  std::vector<int> lane(items.size(), 0);
  for (std::size_t i : order) {
    std::size_t l = 0;
    while (l < lane_end.size() && lane_end[l] > items[i]->start) ++l;
    if (l == lane_end.size()) lane_end.push_back(0);
    lane_end[l] = items[i]->end;
    lane[i] = static_cast<int>(l);
  }
  return lane;
}

/// Hosts in display order: the ranks' hosts in rank order, then the others in the log's actor order.
std::vector<std::string> hosts_of(const Log& log) {
  std::vector<std::string> hosts;
  auto add = [&](const std::string& h) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  };
  std::vector<const activity::Actor*> ranks;
  for (const auto& a : log.actors())
    if (a.kind == ActorKind::Rank) ranks.push_back(&a);
  std::stable_sort(ranks.begin(), ranks.end(), [](auto* a, auto* b) { return a->rank < b->rank; });
  for (const auto* a : ranks) add(a->host);
  for (const auto& a : log.actors()) add(a.host);
  return hosts;
}

/// Phase intervals of a rank: name, start, end.
struct PhaseSpan {
  std::string name;
  double start = 0;
  double end = 0;
};
std::vector<PhaseSpan> phase_spans(const RankRecord& rec) {
  std::vector<PhaseSpan> out;
  for (std::size_t i = 0; i < rec.marks.size(); ++i)
    out.push_back({rec.marks[i].first, rec.marks[i].second,
                   i + 1 < rec.marks.size() ? rec.marks[i + 1].second : rec.end});
  return out;
}

/// The log's spans grouped by actor, and messages grouped by sender.
struct Grouped {
  std::vector<std::vector<const activity::Span*>> spans;      // [actor]
  std::map<int, std::vector<const activity::Message*>> sent;  // rank -> messages
  std::map<int, int> rank_actor;                              // rank -> actor id
};
Grouped group(const Log& log) {
  Grouped g;
  g.spans.resize(log.actors().size());
  for (const auto& s : log.spans()) g.spans[static_cast<std::size_t>(s.actor)].push_back(&s);
  for (const auto& m : log.messages()) g.sent[m.src].push_back(&m);
  for (std::size_t i = 0; i < log.actors().size(); ++i)
    if (log.actors()[i].kind == ActorKind::Rank) g.rank_actor[log.actors()[i].rank] = static_cast<int>(i);
  return g;
}

}  // namespace

const std::vector<TimelineFormat>& timeline_formats() {
  static const std::vector<TimelineFormat> f{{"chrome", ".json"}, {"paje", ".paje"}};
  return f;
}

std::vector<std::string> parse_timeline_formats(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    std::stringstream ss(v);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const auto& all = timeline_formats();
      if (std::none_of(all.begin(), all.end(), [&](const TimelineFormat& f) { return item == f.name; }))
        throw ConfigError("unknown --timeline format " + quote(item) + "; valid choices: chrome, paje");
      if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
  }
  return out;
}

std::string point_identity(const std::string& algorithm,
                           const std::vector<std::pair<std::string, std::string>>& params) {
  std::string s = "algorithm=" + algorithm;
  for (const auto& [k, v] : params)
    if (k != "run.algorithm") s += ", " + k + "=" + v;
  return s;
}

std::string chrome_trace_json(const std::vector<RankRecord>& records, const Log& log,
                              const std::string& point) {
  const std::vector<std::string> hosts = hosts_of(log);
  const auto pid_of = [&](const std::string& host) {
    return static_cast<int>(std::find(hosts.begin(), hosts.end(), host) - hosts.begin()) + 1;
  };
  const Grouped g = group(log);
  std::ostringstream out;
  bool first = true;
  auto event = [&](const std::string& body) {
    out << (first ? "\n" : ",\n") << "{" << body << "}";
    first = false;
  };
  auto thread = [&](int pid, int tid, const std::string& name, int sort) {
    event("\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(pid) +
          ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"name\":" + json_string(name) + "}");
    event("\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" + std::to_string(pid) +
          ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"sort_index\":" + std::to_string(sort) + "}");
  };
  auto slice = [&](int pid, int tid, const std::string& cat, const std::string& name, double s, double e,
                   const std::string& args) {
    event("\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":" + json_string(name) +
          ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + usec(s) +
          ",\"dur\":" + usec(e - s) + (args.empty() ? "" : ",\"args\":{" + args + "}"));
  };
  out << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"ciosim\",\"time_unit\":"
         "\"simulated microseconds\""
      << (point.empty() ? "" : ",\"point\":" + json_string(point)) << "},\"traceEvents\":[";
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    event("\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(h + 1) +
          ",\"args\":{\"name\":" + json_string(hosts[h]) + "}");
    event("\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + std::to_string(h + 1) +
          ",\"args\":{\"sort_index\":" + std::to_string(h) + "}");
  }
  int next_tid = 1;
  std::map<int, int> rank_tid;  // rank -> its main thread
  // Ranks: phases with calls nested, then their sends.
  for (std::size_t r = 0; r < records.size(); ++r) {
    const int rank = static_cast<int>(r);
    const auto it = g.rank_actor.find(rank);
    if (it == g.rank_actor.end()) continue;
    const activity::Actor& a = log.actors()[static_cast<std::size_t>(it->second)];
    const int pid = pid_of(a.host);
    const int tid = next_tid++;
    rank_tid[rank] = tid;
    thread(pid, tid, a.name, tid);
    for (const PhaseSpan& p : phase_spans(records[r]))
      slice(pid, tid, "phase", p.name, p.start, p.end, "\"rank\":" + std::to_string(rank));
    for (const activity::Span* s : g.spans[static_cast<std::size_t>(it->second)])
      slice(pid, tid, "call", s->name, s->start, s->end, "\"bytes\":" + std::to_string(s->bytes));
  }
  int flow = 0;
  for (std::size_t r = 0; r < records.size(); ++r) {
    const int rank = static_cast<int>(r);
    const auto sent = g.sent.find(rank);
    const auto it = g.rank_actor.find(rank);
    if (sent == g.sent.end() || it == g.rank_actor.end()) continue;
    const int pid = pid_of(log.actors()[static_cast<std::size_t>(it->second)].host);
    const std::vector<int> lane = lanes_of(sent->second);
    const int lanes = lane.empty() ? 0 : *std::max_element(lane.begin(), lane.end()) + 1;
    const int base = next_tid;
    next_tid += lanes;
    for (int l = 0; l < lanes; ++l)
      thread(pid, base + l,
             "rank " + std::to_string(rank) + " sends" + (l ? " #" + std::to_string(l + 1) : ""), base + l);
    for (std::size_t i = 0; i < sent->second.size(); ++i) {
      const activity::Message& m = *sent->second[i];
      const int tid = base + lane[i];
      slice(pid, tid, "message", "to rank " + std::to_string(m.dst), m.start, m.end,
            "\"src\":" + std::to_string(m.src) + ",\"dst\":" + std::to_string(m.dst) +
                ",\"bytes\":" + std::to_string(m.bytes) + ",\"tag\":" + std::to_string(m.tag) +
                ",\"received_in\":" + json_string(m.within));
      const auto dst_actor = g.rank_actor.find(m.dst);
      if (dst_actor == g.rank_actor.end()) continue;
      const int dpid = pid_of(log.actors()[static_cast<std::size_t>(dst_actor->second)].host);
      ++flow;
      event("\"ph\":\"s\",\"cat\":\"message\",\"name\":\"message\",\"id\":" + std::to_string(flow) +
            ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
            ",\"ts\":" + usec(m.start));
      event("\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"message\",\"name\":\"message\",\"id\":" +
            std::to_string(flow) + ",\"pid\":" + std::to_string(dpid) +
            ",\"tid\":" + std::to_string(rank_tid[m.dst]) + ",\"ts\":" + usec(m.end));
    }
  }
  // Servers and disks: one thread per lane of overlapping requests or operations.
  for (std::size_t id = 0; id < log.actors().size(); ++id) {
    const activity::Actor& a = log.actors()[id];
    if (a.kind == ActorKind::Rank || g.spans[id].empty()) continue;
    const int pid = pid_of(a.host);
    const std::vector<int> lane = lanes_of(g.spans[id]);
    const int lanes = *std::max_element(lane.begin(), lane.end()) + 1;
    const int base = next_tid;
    next_tid += lanes;
    const std::string what = a.kind == ActorKind::Disk ? a.name : a.name + " requests";
    for (int l = 0; l < lanes; ++l)
      thread(pid, base + l, what + (l ? " #" + std::to_string(l + 1) : ""), base + l);
    for (std::size_t i = 0; i < g.spans[id].size(); ++i) {
      const activity::Span& s = *g.spans[id][i];
      std::string args = "\"bytes\":" + std::to_string(s.bytes);
      if (s.peer >= 0) args += ",\"rank\":" + std::to_string(s.peer);
      slice(pid, base + lane[i], a.kind == ActorKind::Disk ? "disk" : "request", s.name, s.start, s.end,
            args);
    }
  }
  out << "\n]}\n";
  return out.str();
}

namespace {

/// The colours of a trace's state values as Paje writes them ("r g b", each 0..1): twenty distinct ones
/// (matplotlib's tab10 and its light variants, the greys replaced: the Gantt chart draws servers grey),
/// given in the order the values first appear, so that the phases of one picture never share a colour
/// and the same technique's files colour alike.
/// scripts/ciosim_plot.py's Gantt chart uses the same list in the same order.
const char* state_colour(std::size_t index) {
  static constexpr const char* kPalette[] = {
      "0.122 0.467 0.706", "1.000 0.498 0.055", "0.173 0.627 0.173", "0.839 0.153 0.157",
      "0.580 0.404 0.741", "0.549 0.337 0.294", "0.890 0.467 0.761", "0.000 0.502 0.502",
      "0.737 0.741 0.133", "0.090 0.745 0.812", "0.682 0.780 0.910", "1.000 0.733 0.471",
      "0.596 0.875 0.541", "1.000 0.596 0.588", "0.773 0.690 0.835", "0.769 0.612 0.580",
      "0.969 0.714 0.824", "0.502 0.000 0.251", "0.859 0.859 0.553", "0.620 0.855 0.898"};
  return kPalette[index % (sizeof kPalette / sizeof *kPalette)];
}
}  // namespace

std::string paje_trace(const std::vector<RankRecord>& records, const Log& log, const std::string& point) {
  struct Ev {
    double t;
    std::string line;  // without the time
    int code;
  };
  std::vector<Ev> evs;
  const auto q = [](const std::string& s) { return "\"" + s + "\""; };
  auto add = [&](int code, double t, const std::string& rest) { evs.push_back({t, rest, code}); };
  // Every state value is defined with a colour (PajeDefineEntityValue), so that ViTE draws each phase, call
  // and operation in its own colour; pushes name the value by its alias TYPE:name.
  std::map<std::string, std::vector<std::string>> values;  // state type -> its values, first seen first
  auto push = [&](double t, const std::string& type, const std::string& c, const std::string& value) {
    std::vector<std::string>& seen = values[type];
    if (std::find(seen.begin(), seen.end(), value) == seen.end()) seen.push_back(value);
    add(12, t, type + " " + c + " " + q(type + ":" + value));
  };
  const Grouped g = group(log);
  double end = 0;
  for (const auto& r : records) end = std::max(end, r.end);
  for (const auto& s : log.spans()) end = std::max(end, s.end);
  for (const auto& m : log.messages()) end = std::max(end, m.end);

  std::vector<std::string> containers;  // created, destroyed at `end`
  auto container = [&](const std::string& alias, const std::string& type, const std::string& parent,
                       const std::string& name) {
    add(6, 0, q(alias) + " " + type + " " + q(parent) + " " + q(name));
    containers.push_back(type + " " + q(alias));
  };
  for (const std::string& h : hosts_of(log)) container("h:" + h, "HOST", "0", h);
  for (std::size_t r = 0; r < records.size(); ++r) {
    const int rank = static_cast<int>(r);
    const auto it = g.rank_actor.find(rank);
    if (it == g.rank_actor.end()) continue;
    const activity::Actor& a = log.actors()[static_cast<std::size_t>(it->second)];
    const std::string c = "r" + std::to_string(rank);
    container(c, "RANK", "h:" + a.host, a.name);
    for (const PhaseSpan& p : phase_spans(records[r])) {
      push(p.start, "PHASE", q(c), p.name);
      add(13, p.end, "PHASE " + q(c));
    }
    for (const activity::Span* s : g.spans[static_cast<std::size_t>(it->second)]) {
      push(s->start, "CALL", q(c), s->name);
      add(13, s->end, "CALL " + q(c));
    }
  }
  for (std::size_t id = 0; id < log.actors().size(); ++id) {
    const activity::Actor& a = log.actors()[id];
    if (a.kind == ActorKind::Rank || g.spans[id].empty()) continue;
    const bool disk = a.kind == ActorKind::Disk;
    const std::vector<int> lane = lanes_of(g.spans[id]);
    const int lanes = *std::max_element(lane.begin(), lane.end()) + 1;
    for (int l = 0; l < lanes; ++l)
      container("a" + std::to_string(id) + "." + std::to_string(l), disk ? "DISK" : "SERVER", "h:" + a.host,
                (disk ? a.name : a.name + " requests") + (l ? " #" + std::to_string(l + 1) : ""));
    // Spans of one lane in time order (pushes and pops of a container must alternate).
    std::vector<std::size_t> order(g.spans[id].size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return g.spans[id][x]->start < g.spans[id][y]->start;
    });
    for (std::size_t i : order) {
      const activity::Span& s = *g.spans[id][i];
      const std::string c = q("a" + std::to_string(id) + "." + std::to_string(lane[i]));
      push(s.start, disk ? "DISK_OP" : "REQUEST", c, s.name);
      add(13, s.end, std::string(disk ? "DISK_OP " : "REQUEST ") + c);
    }
  }
  int key = 0;
  for (const auto& m : log.messages()) {
    const std::string k = q("m" + std::to_string(++key));
    add(15, m.start,
        "MESSAGE \"0\" " + q(m.tag < 0 ? "collective" : "p2p") + " " + q("r" + std::to_string(m.src)) + " " +
            k + " " + std::to_string(m.bytes));
    add(16, m.end,
        "MESSAGE \"0\" " + q(m.tag < 0 ? "collective" : "p2p") + " " + q("r" + std::to_string(m.dst)) + " " +
            k);
  }
  // Children are destroyed before their parents (hosts were created first).
  for (auto it = containers.rbegin(); it != containers.rend(); ++it) add(7, end, *it);
  // Time order; events of one container were added in its own time order and stay so (stable sort).
  std::stable_sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) { return a.t < b.t; });

  std::ostringstream out;
  if (!point.empty()) {
    std::string line = point;  // one comment line
    std::replace(line.begin(), line.end(), '\n', ' ');
    out << "# ciosim point: " << line << "\n";
  }
  out << "%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n"
         "%       Name string\n%EndEventDef\n"
         "%EventDef PajeDefineStateType 2\n%       Alias string\n%       Type string\n"
         "%       Name string\n%EndEventDef\n"
         "%EventDef PajeDefineEntityValue 3\n%       Alias string\n%       Type string\n"
         "%       Name string\n%       Color color\n%EndEventDef\n"
         "%EventDef PajeDefineLinkType 4\n%       Alias string\n%       Type string\n"
         "%       StartContainerType string\n%       EndContainerType string\n%       Name string\n"
         "%EndEventDef\n"
         "%EventDef PajeCreateContainer 6\n%       Time date\n%       Alias string\n%       Type string\n"
         "%       Container string\n%       Name string\n%EndEventDef\n"
         "%EventDef PajeDestroyContainer 7\n%       Time date\n%       Type string\n%       Name string\n"
         "%EndEventDef\n"
         "%EventDef PajePushState 12\n%       Time date\n%       Type string\n%       Container string\n"
         "%       Value string\n%EndEventDef\n"
         "%EventDef PajePopState 13\n%       Time date\n%       Type string\n%       Container string\n"
         "%EndEventDef\n"
         "%EventDef PajeStartLink 15\n%       Time date\n%       Type string\n%       Container string\n"
         "%       Value string\n%       StartContainer string\n%       Key string\n%       Size string\n"
         "%EndEventDef\n"
         "%EventDef PajeEndLink 16\n%       Time date\n%       Type string\n%       Container string\n"
         "%       Value string\n%       EndContainer string\n%       Key string\n%EndEventDef\n";
  out << "0 HOST 0 HOST\n0 RANK HOST RANK\n0 SERVER HOST SERVER\n0 DISK HOST DISK\n"
         "2 PHASE RANK PHASE\n2 CALL RANK CALL\n2 REQUEST SERVER REQUEST\n2 DISK_OP DISK DISK_OP\n"
         "4 MESSAGE 0 RANK RANK MESSAGE\n";
  for (const auto& [type, names] : values)
    for (std::size_t i = 0; i < names.size(); ++i)
      out << "3 " << q(type + ":" + names[i]) << " " << type << " " << q(names[i]) << " \"" << state_colour(i)
          << "\"\n";
  for (const Ev& e : evs) out << e.code << " " << sec(e.t) << " " << e.line << "\n";
  return out.str();
}

void write_timelines(const std::vector<std::string>& formats, const std::string& path,
                     const std::vector<RankRecord>& records, const Log& log, const std::string& point) {
  for (const TimelineFormat& f : timeline_formats()) {
    if (std::find(formats.begin(), formats.end(), f.name) == formats.end()) continue;
    const std::string file = path + f.extension;
    std::ofstream out(file, std::ios::binary);
    out << (std::string(f.name) == "chrome" ? chrome_trace_json(records, log, point)
                                            : paje_trace(records, log, point));
    out.close();
    if (!out) throw std::runtime_error("cannot write the timeline " + file);
  }
}

}  // namespace ciosim::config
