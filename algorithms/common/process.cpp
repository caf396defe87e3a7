#include "algorithms/common/process.hpp"

#include <numeric>
#include <stdexcept>
#include <string_view>

#include "algorithms/common/payload.hpp"

namespace ciosim {

const char* call_name(Call c) {
  switch (c) {
    case Call::Send:
      return "send";
    case Call::Recv:
      return "recv";
    case Call::Isend:
      return "isend";
    case Call::Irecv:
      return "irecv";
    case Call::Wait:
      return "wait";
    case Call::Waitall:
      return "waitall";
    case Call::Waitany:
      return "waitany";
    case Call::Barrier:
      return "barrier";
    case Call::Bcast:
      return "bcast";
    case Call::Gather:
      return "gather";
    case Call::Gatherv:
      return "gatherv";
    case Call::Allgather:
      return "allgather";
    case Call::Alltoall:
      return "alltoall";
    case Call::Allreduce:
      return "allreduce";
    case Call::FileOpen:
      return "file_open";
    case Call::FileClose:
      return "file_close";
    case Call::FileWrite:
      return "file_write";
    case Call::FileRead:
      return "file_read";
    case Call::FileListWrite:
      return "file_list_write";
    case Call::FileListRead:
      return "file_list_read";
    case Call::FileSync:
      return "file_sync";
    case Call::kCount:
      break;
  }
  return "?";
}

const char* step_name(Step s) {
  switch (s) {
    case Step::Pack:
      return "pack";
    case Step::Offsets:
      return "offsets";
    case Step::Requests:
      return "requests";
    case Step::Windows:
      return "windows";
    case Step::Views:
      return "views";
    case Step::Scatter:
      return "scatter";
    case Step::Ranges:
      return "ranges";
    case Step::Regions:
      return "regions";
    case Step::Lists:
      return "lists";
    case Step::kCount:
      break;
  }
  return "?";
}

Step step_named(std::string_view name) {
  for (int i = 0; i < kStepKinds; ++i)
    if (name == step_name(static_cast<Step>(i))) return static_cast<Step>(i);
  return Step::Pack;
}

void Process::send(int dst, int tag, std::span<const std::byte> buf) {
  const CallEnd end = count(Call::Send);
  note(Call::Send, dst, static_cast<std::int64_t>(buf.size()), tag);
  sent(Call::Send, static_cast<std::int64_t>(buf.size()));
  do_send(dst, tag, buf);
}
void Process::recv(int src, int tag, std::span<std::byte> buf) {
  const CallEnd end = count(Call::Recv);
  note(Call::Recv, src, static_cast<std::int64_t>(buf.size()), tag);
  do_recv(src, tag, buf);
}
Request Process::isend(int dst, int tag, std::span<const std::byte> buf) {
  const CallEnd end = count(Call::Isend);
  note(Call::Isend, dst, static_cast<std::int64_t>(buf.size()), tag);
  sent(Call::Isend, static_cast<std::int64_t>(buf.size()));
  return do_isend(dst, tag, buf);
}
Request Process::irecv(int src, int tag, std::span<std::byte> buf) {
  const CallEnd end = count(Call::Irecv);
  note(Call::Irecv, src, static_cast<std::int64_t>(buf.size()), tag);
  return do_irecv(src, tag, buf);
}
void Process::wait(Request& r) {
  const CallEnd end = count(Call::Wait);
  note(Call::Wait, -1, 1);
  const std::int64_t id = r.id;
  do_wait(r);
  if (!serialized_.empty()) finish_shared(id);
}
void Process::waitall(std::vector<Request>& rs) {
  const CallEnd end = count(Call::Waitall);
  note(Call::Waitall, -1, static_cast<std::int64_t>(rs.size()));
  std::vector<std::int64_t> ids;
  if (!serialized_.empty())
    for (const Request& r : rs) ids.push_back(r.id);
  do_waitall(rs);
  for (std::int64_t id : ids) finish_shared(id);
}
int Process::waitany(std::vector<Request>& rs) {
  std::int64_t active = 0;
  for (const Request& r : rs) active += r.id >= 0 ? 1 : 0;
  const CallEnd end = count(Call::Waitany);
  note(Call::Waitany, -1, active);
  if (active == 0) return -1;
  std::vector<std::int64_t> ids;
  if (!serialized_.empty())
    for (const Request& r : rs) ids.push_back(r.id);
  const int i = do_waitany(rs);
  if (i < 0 || i >= static_cast<int>(rs.size()) || rs[static_cast<std::size_t>(i)].id >= 0)
    throw std::logic_error("waitany: the backend completed no active request");
  if (!ids.empty()) finish_shared(ids[static_cast<std::size_t>(i)]);
  return i;
}
Request Process::isend_shared(int dst, int tag, SharedMessagePtr m) {
  if (!m) throw std::invalid_argument("isend_shared: no message");
  const std::int64_t bytes = m->wire_size();
  const CallEnd end = count(Call::Isend);
  note(Call::Isend, dst, bytes, tag);
  sent(Call::Isend, bytes);
  return do_isend_shared(dst, tag, std::move(m));
}
Request Process::irecv_shared(int src, int tag, std::int64_t bytes, SharedMessagePtr* into,
                              SharedDecoder decode) {
  if (bytes < 0 || into == nullptr || !decode)
    throw std::invalid_argument("irecv_shared: a size >= 0, a destination and a decoder are needed");
  const CallEnd end = count(Call::Irecv);
  note(Call::Irecv, src, bytes, tag);
  return do_irecv_shared(src, tag, bytes, into, std::move(decode));
}
Request Process::do_isend_shared(int dst, int tag, SharedMessagePtr m) {
  const auto n = static_cast<std::size_t>(m->wire_size());
  if (const std::span<const std::byte> in_place = m->wire_bytes(); n > 0 && in_place.size() == n) {
    const Request r = do_isend(dst, tag, in_place);
    serialized_[r.id].keep = std::move(m);  // its bytes are the send's buffer until the wait
    return r;
  }
  std::unique_ptr<std::byte[]> bytes(new std::byte[n]);  // every byte written by serialize
  m->serialize(std::span(bytes.get(), n));
  const Request r = do_isend(dst, tag, std::span<const std::byte>(bytes.get(), n));
  SerializedShared& s = serialized_[r.id];
  s.bytes = std::move(bytes);
  s.size = n;
  return r;
}
Request Process::do_irecv_shared(int src, int tag, std::int64_t bytes, SharedMessagePtr* into,
                                 SharedDecoder decode) {
  const auto n = static_cast<std::size_t>(bytes);
  std::unique_ptr<std::byte[]> buf(new std::byte[n]);  // every byte written by the receive
  const Request r = do_irecv(src, tag, std::span(buf.get(), n));
  SerializedShared& s = serialized_[r.id];
  s.bytes = std::move(buf);
  s.size = n;
  s.into = into;
  s.decode = std::move(decode);
  return r;
}
void Process::finish_shared(std::int64_t id) {
  auto it = serialized_.find(id);
  if (it == serialized_.end()) return;
  SerializedShared s = std::move(it->second);
  serialized_.erase(it);
  if (s.into) *s.into = s.decode(std::span<const std::byte>(s.bytes.get(), s.size));
}
namespace {

/// "Class::function" of a compiler's function signature: the name before the parameter list, without its
/// return type and the project's namespace.
std::string short_function(std::string_view f) {
  int depth = 0;
  std::size_t open = f.size();
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '<') ++depth;
    if (f[i] == '>') --depth;
    if (f[i] == '(' && depth == 0) {
      open = i;
      break;
    }
  }
  std::string_view name = f.substr(0, open);
  depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {  // the return type ends at the last space outside <>
    if (name[i] == '>') ++depth;
    if (name[i] == '<') --depth;
    if (name[i] == ' ' && depth == 0) {
      name = name.substr(i + 1);
      break;
    }
  }
  std::string out;  // without template arguments
  depth = 0;
  for (const char c : name) {
    if (c == '<') ++depth;
    if (depth == 0) out += c;
    if (c == '>') --depth;
  }
  for (const std::string_view ns : {"ciosim::", "{anonymous}::", "(anonymous namespace)::"})
    for (std::size_t at; (at = out.find(ns)) != std::string::npos;) out.erase(at, ns.size());
  return out;
}

}  // namespace

void Process::compute(const Work& w, CodeSite where) {
  if (stepping_) {
    StepTime& s = steps_[SiteKey{where.function_name(), where.file_name(), where.line()}];
    s.step = step_name(w.step);
    ++s.charges;
    s.tuples += w.tuples;
    s.bytes_copied += w.bytes_copied;
    s.library_pieces += w.library_pieces;
    s.seconds += std::chrono::duration<double>(Clock::now() - since_).count();
  }
  do_compute(w);
  if (stepping_) since_ = Clock::now();  // an application's computation (Work::seconds) is not the code's
}

void Process::uncharged() {
  const Clock::time_point now = Clock::now();
  StepTime& s = uncharged_[phase_];
  ++s.charges;
  s.seconds += std::chrono::duration<double>(now - since_).count();
  since_ = now;
}

void Process::record_steps(bool on) {
  stepping_ = on;
  since_ = Clock::now();
}

std::vector<StepTime> add_up_by_site(const std::vector<StepTime>& records) {
  std::map<std::string, StepTime> by_site;
  for (const StepTime& r : records) {
    StepTime& t = by_site[r.site];
    t.site = r.site;
    t.step = r.step;
    t += r;
  }
  std::vector<StepTime> out;
  for (auto& [site, t] : by_site) out.push_back(std::move(t));
  return out;
}

std::vector<StepTime> Process::steps() const {
  std::vector<StepTime> named;
  for (const auto& [k, s] : steps_) {
    const std::string_view file = k.file;
    const std::size_t slash = file.find_last_of('/');
    named.push_back(s);
    named.back().site = short_function(k.function) + ", " +
                        std::string(slash == std::string_view::npos ? file : file.substr(slash + 1)) + ":" +
                        std::to_string(k.line);
  }
  for (const auto& [phase, s] : uncharged_) {
    named.push_back(s);
    named.back().site = "uncharged code, phase " + (phase.empty() ? std::string("(none)") : phase);
  }
  return add_up_by_site(named);
}

void Process::barrier() {
  const CallEnd end = count(Call::Barrier);
  note(Call::Barrier);
  do_barrier();
}
void Process::bcast(std::span<std::byte> buf, int root) {
  const CallEnd end = count(Call::Bcast);
  note(Call::Bcast, root, static_cast<std::int64_t>(buf.size()));
  if (rank() == root) sent(Call::Bcast, static_cast<std::int64_t>(buf.size()));
  payload::require_bytes(buf, "bcast");
  do_bcast(buf, root);
}
void Process::gather(std::span<const std::byte> send, std::span<std::byte> recv, int root) {
  const CallEnd end = count(Call::Gather);
  note(Call::Gather, root, static_cast<std::int64_t>(send.size()));
  sent(Call::Gather, static_cast<std::int64_t>(send.size()));
  payload::require_bytes(send, "gather");
  do_gather(send, recv, root);
}
void Process::gatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                      std::span<const std::int64_t> counts, int root) {
  const CallEnd end = count(Call::Gatherv);
  note(Call::Gatherv, root, static_cast<std::int64_t>(send.size()));
  sent(Call::Gatherv, static_cast<std::int64_t>(send.size()));
  do_gatherv(send, recv, counts, root);
}
void Process::allgather(std::span<const std::byte> send, std::span<std::byte> recv) {
  const CallEnd end = count(Call::Allgather);
  note(Call::Allgather, -1, static_cast<std::int64_t>(send.size()));
  sent(Call::Allgather, static_cast<std::int64_t>(send.size()));
  payload::require_bytes(send, "allgather");
  do_allgather(send, recv);
}
void Process::alltoall(std::span<const std::byte> send, std::span<std::byte> recv) {
  const CallEnd end = count(Call::Alltoall);
  note(Call::Alltoall, -1, static_cast<std::int64_t>(send.size()));
  sent(Call::Alltoall, static_cast<std::int64_t>(send.size()));
  payload::require_bytes(send, "alltoall");
  payload::require_bytes(recv, "alltoall");
  do_alltoall(send, recv);
}
void Process::allreduce_max(std::span<std::int64_t> values) {
  const CallEnd end = count(Call::Allreduce);
  note(Call::Allreduce, -1, static_cast<std::int64_t>(values.size_bytes()));
  sent(Call::Allreduce, static_cast<std::int64_t>(values.size_bytes()));
  do_allreduce_max(values);
}
void Process::file_open(const std::string& name) {
  const CallEnd end = count(Call::FileOpen);
  note(Call::FileOpen);
  do_file_open(name);
}
void Process::file_close() {
  const CallEnd end = count(Call::FileClose);
  note(Call::FileClose);
  do_file_close();
}
void Process::set_file_displacement(Offset bytes) {
  if (bytes < 0)
    throw std::invalid_argument("a file view's displacement must be >= 0 (got " + std::to_string(bytes) +
                                ")");
  displacement_ = bytes;
}

namespace {
/// The regions moved by `d` bytes (a copy only when d != 0).
std::span<const Extent> displaced(std::span<const Extent> regions, Offset d, std::vector<Extent>& storage) {
  if (d == 0) return regions;
  storage.assign(regions.begin(), regions.end());
  for (Extent& e : storage) e.offset += d;
  return storage;
}
}  // namespace

void Process::write_at(Offset offset, std::span<const std::byte> data) {
  offset += displacement_;
  const CallEnd end = count(Call::FileWrite);
  note(Call::FileWrite, -1, offset, static_cast<std::int64_t>(data.size()));
  counters_.bytes_written += static_cast<std::int64_t>(data.size());
  do_write_at(offset, data);
}
void Process::read_at(Offset offset, std::span<std::byte> data) {
  offset += displacement_;
  const CallEnd end = count(Call::FileRead);
  note(Call::FileRead, -1, offset, static_cast<std::int64_t>(data.size()));
  counters_.bytes_read += static_cast<std::int64_t>(data.size());
  do_read_at(offset, data);
}
void Process::write_list(std::span<const Extent> given, std::span<const std::byte> data) {
  std::vector<Extent> storage;
  const std::span<const Extent> regions = displaced(given, displacement_, storage);
  const CallEnd end = count(Call::FileListWrite);
  note_regions(Call::FileListWrite, regions);
  counters_.bytes_written += static_cast<std::int64_t>(data.size());
  do_write_list(regions, data);
}
void Process::read_list(std::span<const Extent> given, std::span<std::byte> data) {
  std::vector<Extent> storage;
  const std::span<const Extent> regions = displaced(given, displacement_, storage);
  const CallEnd end = count(Call::FileListRead);
  note_regions(Call::FileListRead, regions);
  counters_.bytes_read += static_cast<std::int64_t>(data.size());
  do_read_list(regions, data);
}
void Process::file_sync() {
  const CallEnd end = count(Call::FileSync);
  note(Call::FileSync);
  do_file_sync();
}

}  // namespace ciosim
