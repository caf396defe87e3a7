// Operation sequences and their driver (algorithms/sequence.hpp; after J. García Blas, F. Isaila,
// D. E. Singh, J. Carretero, "View-based collective I/O for MPI-IO", CCGrid 2008, §VI: BT-IO, MPI-Tile-IO and
// coll_perf keep the file open across several collective calls).
#include "algorithms/sequence.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <stdexcept>

namespace ciosim {

namespace {

const char* kValidOps =
    "valid: open, close, write, read, write/N, read/N, sync, next, view:BYTES, compute:SECONDS, "
    "compute:workload, and ( ... )*N";

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("run.sequence: " + what);
}

/// Recursive-descent parser over the text; `pos` is the next character.
class Parser {
 public:
  explicit Parser(const std::string& text) : t_(text) {}

  std::vector<Op> parse() {
    std::vector<Op> ops = items(false);
    skip();
    if (pos_ < t_.size()) bad("unexpected \")\" at character " + std::to_string(pos_ + 1));
    return ops;
  }

 private:
  void skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }

  std::vector<Op> items(bool nested) {
    std::vector<Op> out;
    for (;;) {
      skip();
      if (pos_ >= t_.size()) {
        if (nested) bad("a \"(\" is never closed (expected \")*N\")");
        return out;
      }
      if (t_[pos_] == ')') {
        if (!nested) return out;  // parse() reports it
        ++pos_;
        const std::int64_t n = repeat();
        return expand(out, n);
      }
      if (t_[pos_] == '(') {
        ++pos_;
        const std::vector<Op> inner = items(true);
        append(out, inner);
        continue;
      }
      append(out, {word()});
    }
  }

  std::int64_t repeat() {
    skip();
    const std::size_t at = pos_;
    if (pos_ >= t_.size() || t_[pos_] != '*')
      bad("\")\" at character " + std::to_string(at) + " must be followed by *N (a repetition count)");
    ++pos_;
    skip();
    std::size_t end = pos_;
    while (end < t_.size() && std::isdigit(static_cast<unsigned char>(t_[end]))) ++end;
    const std::string digits = t_.substr(pos_, end - pos_);
    if (digits.empty() || digits.size() > 9 || std::stoll(digits) < 1)
      bad("the repetition count after \")*\" at character " + std::to_string(at + 1) +
          " must be a whole number from 1 to " + std::to_string(kMaxSequenceOps) + " (got \"" +
          t_.substr(pos_, std::max<std::size_t>(end - pos_, 1)) + "\")");
    pos_ = end;
    return std::stoll(digits);
  }

  static std::vector<Op> expand(const std::vector<Op>& body, std::int64_t n) {
    if (static_cast<double>(body.size()) * static_cast<double>(n) > static_cast<double>(kMaxSequenceOps))
      bad("more than " + std::to_string(kMaxSequenceOps) + " operations after expanding the repetitions");
    std::vector<Op> out;
    out.reserve(body.size() * static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) out.insert(out.end(), body.begin(), body.end());
    return out;
  }

  static void append(std::vector<Op>& out, const std::vector<Op>& more) {
    if (out.size() + more.size() > static_cast<std::size_t>(kMaxSequenceOps))
      bad("more than " + std::to_string(kMaxSequenceOps) + " operations after expanding the repetitions");
    out.insert(out.end(), more.begin(), more.end());
  }

  Op word() {
    const std::size_t at = pos_;
    while (pos_ < t_.size() && !std::isspace(static_cast<unsigned char>(t_[pos_])) && t_[pos_] != '(' &&
           t_[pos_] != ')')
      ++pos_;
    const std::string w = t_.substr(at, pos_ - at);
    const std::string where = " at character " + std::to_string(at + 1);
    Op op;
    if (w == "open")
      op.kind = OpKind::Open;
    else if (w == "close")
      op.kind = OpKind::Close;
    else if (w == "write")
      op.kind = OpKind::Write;
    else if (w == "read")
      op.kind = OpKind::Read;
    else if (w.rfind("write/", 0) == 0 || w.rfind("read/", 0) == 0) {
      op.kind = w[0] == 'w' ? OpKind::Write : OpKind::Read;
      const std::string v = w.substr(w.find('/') + 1);
      const bool digits = !v.empty() && v.size() <= 9 && std::all_of(v.begin(), v.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
      if (!digits || std::stoll(v) < 1)
        bad("\"" + w + "\"" + where + ": " + w.substr(0, w.find('/')) +
            "/N takes N parts, a whole number from 1 to 999999999");
      op.parts = static_cast<int>(std::stoll(v));
    } else if (w == "sync")
      op.kind = OpKind::Sync;
    else if (w == "next")
      op.kind = OpKind::Next;
    else if (w.rfind("view:", 0) == 0) {
      op.kind = OpKind::View;
      const std::string v = w.substr(5);
      const bool digits = !v.empty() && v.size() <= 18 && std::all_of(v.begin(), v.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      });
      if (!digits)
        bad("\"" + w + "\"" + where + ": view:BYTES takes a displacement in bytes, a whole number >= 0");
      op.bytes = std::stoll(v);
    } else if (w.rfind("compute:", 0) == 0) {
      op.kind = OpKind::Compute;
      const std::string v = w.substr(8);
      if (v == "workload") {
        op.workload = true;
      } else {
        std::size_t used = 0;
        double s = -1;
        try {
          s = std::stod(v, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != v.size() || v.empty() || !std::isfinite(s) || s < 0 || s > 1e9)
          bad("\"" + w + "\"" + where +
              ": compute:SECONDS takes seconds from 0 to 1e9, or compute:workload for the workload's own");
        op.seconds = s;
      }
    } else {
      bad("unknown operation \"" + w + "\"" + where + "; " + kValidOps);
    }
    return op;
  }

  const std::string& t_;
  std::size_t pos_ = 0;
};

/// A session for a technique that keeps no state between calls: each write or read is one whole run of
/// the technique (as ROMIO's MPI_File_write_all recomputes everything on every call), at the view's
/// displacement plus the offset, which the Process adds to every file access.
class CallSession final : public DisplacementSession {
 public:
  CallSession(Process& p, const TechniqueInfo& t, const TechniqueInput& in)
      : DisplacementSession(p), t_(t), in_(in) {}
  void set_distribution(const Distribution& d) override { in_.dist = &d; }
  void write(std::span<const std::byte> local) override { t_.run(p_, in_, local); }
  void read(std::span<std::byte> out) override {
    if (!t_.read) throw std::invalid_argument("technique " + t_.name + " has no read path");
    t_.read(p_, in_, out);
  }

 private:
  const TechniqueInfo& t_;
  TechniqueInput in_;
};

bool overlapping(const std::vector<Offset>& sorted, Offset step) {
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i] - sorted[i - 1] < step) return true;
  return false;
}

}  // namespace

std::string op_name(const Op& op) {
  switch (op.kind) {
    case OpKind::Open:
      return "open";
    case OpKind::Close:
      return "close";
    case OpKind::Write:
      return op.parts > 1 ? "write/" + std::to_string(op.parts) : "write";
    case OpKind::Read:
      return op.parts > 1 ? "read/" + std::to_string(op.parts) : "read";
    case OpKind::Sync:
      return "sync";
    case OpKind::Next:
      return "next";
    case OpKind::View:
      return "view:" + std::to_string(op.bytes);
    case OpKind::Compute:
      return "compute";
  }
  return "?";
}

std::vector<Op> parse_sequence(const std::string& text) {
  return Parser(text).parse();
}

void check_sequence(const std::vector<Op>& ops, std::int64_t element_size) {
  if (ops.empty()) bad("no operation; " + std::string(kValidOps));
  bool open = false;
  bool io = false;
  const Op* step = nullptr;  // the write/N or read/N whose step is under way
  int done = 0;              // its parts done
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const std::string which = "\"" + op_name(op) + "\" (operation " + std::to_string(i + 1) + ")";
    const bool access = op.kind == OpKind::Write || op.kind == OpKind::Read;
    if (step != nullptr && op.kind != OpKind::Compute && op.kind != OpKind::Sync &&
        !(access && op.kind == step->kind && op.parts == step->parts))
      bad(which + " comes after " + std::to_string(done) + " of the " + std::to_string(step->parts) +
          " parts of \"" + op_name(*step) + "\"; a step begun in parts must end first");
    if (access && op.parts > 1) {
      step = &op;
      if (++done == op.parts) step = nullptr, done = 0;
    }
    if (op.kind == OpKind::Open) {
      if (open) bad(which + " opens a file that is already open; close it first");
      open = true;
      continue;
    }
    if (op.kind == OpKind::Compute) continue;
    if (!open) bad(which + " while the file is closed; open it first");
    if (op.kind == OpKind::Close) open = false;
    if (op.kind == OpKind::Write || op.kind == OpKind::Read) io = true;
    if (op.kind == OpKind::View && element_size > 0 && op.bytes % element_size != 0)
      bad(which + ": the displacement must be a multiple of the element size (" +
          std::to_string(element_size) + " bytes)");
  }
  if (open) bad("ends with the file open; end it with close");
  if (!io) bad("has no write and no read");
}

void resolve_compute(std::vector<Op>& ops, double workload_s, const std::string& workload) {
  for (Op& op : ops) {
    if (!op.workload) continue;
    if (workload_s < 0)
      bad("compute:workload, but workload " + workload +
          " defines no computation between its outputs (btio does); give compute:SECONDS");
    op.seconds = workload_s;
  }
}

std::vector<Op> prepare_sequence(const std::string& text, const TechniqueInfo* tech,
                                 std::int64_t element_size, double workload_s, const std::string& workload) {
  std::vector<Op> ops = parse_sequence(text);
  check_sequence(ops, element_size);
  resolve_compute(ops, workload_s, workload);
  if (tech && !tech->read && !tech->session)
    for (const Op& op : ops)
      if (op.kind == OpKind::Read)
        throw std::invalid_argument("technique " + tech->name + " has no read path, and run.sequence reads");
  if (tech && !tech->partial_calls)
    for (const Op& op : ops)
      if (op.parts > 1) {
        std::string can;
        for (const TechniqueInfo& t : techniques())
          if (t.partial_calls) can += (can.empty() ? "" : ", ") + t.name;
        throw std::invalid_argument("run.sequence has " + op_name(op) +
                                    ", a call on part of the view; technique " + tech->name +
                                    " accesses a rank's whole view in every call (valid: " + can + ")");
      }
  return ops;
}

std::vector<StepAccess> sequence_accesses(const std::vector<Op>& ops, Offset step) {
  std::vector<StepAccess> out;
  Offset disp = 0, off = 0;
  int part = 0;
  for (const Op& op : ops) {
    switch (op.kind) {
      case OpKind::Open:
        disp = 0, off = 0;
        break;
      case OpKind::View:
        disp = op.bytes, off = 0;
        break;
      case OpKind::Next:
        off += step;
        break;
      case OpKind::Write:
      case OpKind::Read:
        if (part == 0) out.push_back({op.kind == OpKind::Write, disp + off});  // a step in parts once
        part = op.parts > 1 ? (part + 1) % op.parts : 0;
        break;
      default:
        break;
    }
  }
  return out;
}

std::int64_t value_base(Offset position, std::int64_t element_size) {
  return position / element_size;
}

Offset step_bytes(const Distribution& d, FileLayout layout, std::int64_t element_size) {
  if (layout == FileLayout::Logical) return d.nx * element_size;
  Offset entries = 0;
  for (const Datatype& dt : d.per_rank) entries += dt.size();
  return entries * element_size;
}

std::unique_ptr<Session> open_session(Process& p, const TechniqueInfo& tech, const TechniqueInput& in) {
  return tech.session ? tech.session(p, in) : std::make_unique<CallSession>(p, tech, in);
}

bool run_sequence(Process& p, const TechniqueInfo& tech, const TechniqueInput& in,
                  const std::vector<Op>& ops) {
  const std::int64_t es = in.element_size;
  const Offset step = step_bytes(*in.dist, tech.layout, es);
  TechniqueInput once = in;
  once.iterations = 1;  // a write of the sequence is one call
  std::unique_ptr<Session> s;
  Offset disp = 0, off = 0;
  bool reads_ok = true;
  int part = 0;                // the part of a step in parts (write/N, read/N) this call does
  std::vector<std::byte> got;  // a read in parts: the rank's entries as the parts fill them
  for (const Op& op : ops) {
    p.operation(op_name(op));
    switch (op.kind) {
      case OpKind::Open:
        p.phase("open");
        p.file_open(in.file_name);
        s = open_session(p, tech, once);
        disp = 0, off = 0;
        s->set_view(0);
        break;
      case OpKind::Close:
        s->close();
        p.phase("close");
        p.file_close();
        s.reset();
        break;
      case OpKind::View:
        disp = op.bytes, off = 0;
        s->set_view(disp);
        break;
      case OpKind::Next:
        off += step;
        s->seek(off);
        break;
      case OpKind::Write: {
        const std::vector<std::byte> data =
            make_local_data(*in.dist, p.rank(), es, value_base(disp + off, es));
        if (op.parts > 1) {
          s->write_part(data, part, op.parts);
          part = (part + 1) % op.parts;
        } else {
          s->write(data);
        }
        break;
      }
      case OpKind::Read: {
        const std::vector<std::byte> want =
            make_local_data(*in.dist, p.rank(), es, value_base(disp + off, es));
        if (part == 0) got.assign(want.size(), std::byte{0});
        if (op.parts > 1) {
          s->read_part(got, part, op.parts);
          part = (part + 1) % op.parts;
        } else {
          s->read(got);
        }
        if (part == 0) reads_ok = reads_ok && same_bytes(got, want);
        break;
      }
      case OpKind::Sync:
        s->sync();
        break;
      case OpKind::Compute:
        p.phase("compute");
        p.compute(Work{0, 0, op.seconds});
        break;
    }
  }
  return reads_ok;
}

std::vector<std::pair<Offset, std::vector<std::byte>>> sequence_initial_steps(const Distribution& d,
                                                                              FileLayout layout,
                                                                              std::int64_t element_size,
                                                                              const std::vector<Op>& ops) {
  std::vector<std::pair<Offset, std::vector<std::byte>>> out;
  std::set<Offset> present;
  for (const StepAccess& a : sequence_accesses(ops, step_bytes(d, layout, element_size))) {
    if (!present.insert(a.position).second || a.write) continue;
    out.emplace_back(a.position,
                     expected_file(d, layout, element_size, value_base(a.position, element_size)));
  }
  return out;
}

std::string check_sequence_file(std::span<const std::byte> file, const Distribution& d, FileLayout layout,
                                std::int64_t element_size, const std::vector<Op>& ops) {
  const Offset step = step_bytes(d, layout, element_size);
  std::vector<Offset> steps;
  for (const StepAccess& a : sequence_accesses(ops, step)) steps.push_back(a.position);
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  const Offset size = static_cast<Offset>(file.size());
  const auto at = [&](Offset i) { return i < size ? file[static_cast<std::size_t>(i)] : std::byte{0}; };
  const auto first_difference = [&](Offset from, std::span<const std::byte> want) -> Offset {
    for (Offset i = 0; i < static_cast<Offset>(want.size()); ++i)
      if (at(from + i) != want[static_cast<std::size_t>(i)]) return from + i;
    return -1;
  };
  const auto differs = [](Offset byte) {
    return "the file differs from the sequence's at byte " + std::to_string(byte);
  };
  if (overlapping(steps, step)) {
    // Steps that overlap (views closer than a step): the later access wins, so build the whole file in order.
    Offset end = steps.back() + step;
    std::vector<std::byte> want(static_cast<std::size_t>(std::max(end, size)));
    const auto lay = [&](Offset pos) {
      const std::vector<std::byte> bytes =
          expected_file(d, layout, element_size, value_base(pos, element_size));
      std::copy(bytes.begin(), bytes.end(), want.begin() + pos);
    };
    for (const auto& [pos, bytes] : sequence_initial_steps(d, layout, element_size, ops))
      std::copy(bytes.begin(), bytes.end(), want.begin() + pos);  // laid out before the run
    for (const StepAccess& a : sequence_accesses(ops, step))
      if (a.write) lay(a.position);  // then the writes, in order
    if (const Offset b = first_difference(0, want); b >= 0) return differs(b);
    return "";
  }
  Offset covered = 0;  // bytes before this are checked
  for (const Offset pos : steps) {
    for (Offset i = covered; i < pos && i < size; ++i)
      if (at(i) != std::byte{0}) return differs(i) + " (outside every step, where nothing was written)";
    const std::vector<std::byte> want = expected_file(d, layout, element_size, value_base(pos, element_size));
    if (const Offset b = first_difference(pos, want); b >= 0) return differs(b);
    covered = pos + step;
  }
  for (Offset i = covered; i < size; ++i)
    if (at(i) != std::byte{0}) return differs(i) + " (past the last step)";
  return "";
}

}  // namespace ciosim
