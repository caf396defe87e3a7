// The seam between algorithm code and a backend (docs/architecture.md, the Process seam).
//
// Every technique in algorithms/ is a function of a Process&. Two backends implement it: sim/ (SimGrid
// S4U actors) and validate/ (MPI and MPI-IO). This header includes neither.
//
// Counting is done here, in the non-virtual public methods, so both backends count every call by kind
// identically; backends implement the protected do_* methods.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ciosim {

/// Where a call was made from (file, line, function), for the step clock. std::source_location where the
/// standard library provides it; Debian 12's clang 14 with libstdc++ 12 does not (libstdc++'s version needs
/// a builtin clang gained in version 15), so there the same three builtins, which gcc and clang both have,
/// name the caller. Only the function's spelling differs: unqualified there, qualified with std.
#if defined(__cpp_lib_source_location)
using CodeSite = std::source_location;
#else
struct CodeSite {
  static constexpr CodeSite current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE(),
                                    const char* function = __builtin_FUNCTION()) noexcept {
    CodeSite s;
    s.file_ = file;
    s.line_ = line;
    s.function_ = function;
    return s;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr const char* function_name() const noexcept { return function_; }

 private:
  const char* file_ = "";
  unsigned line_ = 0;
  const char* function_ = "";
};
#endif

using Offset = std::int64_t;

/// A contiguous byte range of the shared file.
struct Extent {
  Offset offset = 0;
  Offset length = 0;
  bool operator==(const Extent&) const = default;
};

/// Kinds of calls counted per rank. Names (call_name) are the keys of results' "calls".
enum class Call : int {
  Send,
  Recv,
  Isend,
  Irecv,
  Wait,
  Waitall,
  Waitany,
  Barrier,
  Bcast,
  Gather,
  Gatherv,
  Allgather,
  Alltoall,
  Allreduce,
  FileOpen,
  FileClose,
  FileWrite,
  FileRead,
  FileListWrite,
  FileListRead,
  FileSync,
  kCount
};
constexpr int kCallKinds = static_cast<int>(Call::kCount);
const char* call_name(Call c);

/// Per-rank counters, identical in meaning in both backends.
struct Counters {
  using Calls = std::array<std::int64_t, kCallKinds>;
  Calls calls{};
  /// The same calls by the phase they were made in (Process::phase; "" before the first mark). A phase
  /// entered several times adds up, as its time does.
  std::map<std::string, Calls> phase_calls;
  /// The payload bytes of bytes_sent by the phase they were sent in and the kind of call that sent them
  /// (isend, alltoall, ...), so a phase's traffic can be told apart (the metadata lists from the data).
  std::map<std::string, Calls> phase_bytes;
  std::int64_t bytes_sent = 0;     ///< payload bytes this rank handed to point-to-point sends and collectives
  std::int64_t bytes_written = 0;  ///< bytes this rank wrote to the shared file
  std::int64_t bytes_read = 0;     ///< bytes this rank read from the shared file
  std::int64_t count(Call c) const { return calls[static_cast<int>(c)]; }
};

/// The kind of loop a CPU charge's tuples go through: each kind has its own cost per tuple on a platform
/// (nodes.tuple_cost_s for Pack, nodes.tuple_cost_KEY_s for the others, each defaulting to
/// nodes.tuple_cost_s), because the loops differ several-fold in what they do per tuple (measured by the step
/// clock, Process::record_steps: 0.8 to 9.3 ns a tuple on one machine where pack's loop takes 3 ns).
enum class Step : int {
  Pack,      ///< pack or unpack a datatype: read a tuple, copy its bytes (the calibrated pack loop)
  Offsets,   ///< flatten a rank's datatype into its file offset-length list (ROMIO's Calc_my_off_len)
  Requests,  ///< split a rank's list by file domain into requests, and what others ask of an aggregator
  Windows,   ///< walk sorted lists against a collective-buffer window (two-phase's exchange rounds)
  Views,     ///< walk file views to find which pieces of a block belong to which rank (view-based)
  Scatter,   ///< build a piece's runs in a block and copy them in or out (view-based's buffers)
  Ranges,    ///< merge runs into a buffer's valid and dirty byte ranges (view-based)
  Regions,   ///< build the regions of one list I/O call (List I/O)
  Lists,     ///< copy offset-length lists into messages and walk them for sizes (gathered I/O's root)
  kCount
};
constexpr int kStepKinds = static_cast<int>(Step::kCount);
/// "pack", "offsets", ...: the platform key of a step is nodes.tuple_cost_s for pack, else
/// nodes.tuple_cost_<name>_s.
const char* step_name(Step s);
/// The step of that name; Step::Pack for any other name.
Step step_named(std::string_view name);

/// CPU work declared by an algorithm. The simulator charges it from the platform's CPU cost model;
/// the MPI backend ignores it (real time passes anyway).
struct Work {
  std::int64_t bytes_copied = 0;  ///< bytes moved by memcpy-like loops (pack, unpack, staging)
  std::int64_t tuples = 0;        ///< offset-length tuples (or list entries) processed
  /// Seconds of the application's own computation on one core (an operation sequence's compute: BT's
  /// solver between two outputs). The simulator charges them on the rank's node; the MPI backend spins for
  /// that much CPU time.
  double seconds = 0;
  /// Pieces the MPI library's own collective I/O handles one by one where ciosim's code does not
  /// (run.cpu_charge = library: ROMIO's aggregator builds, commits and frees a datatype over each piece
  /// of a round); the simulator charges nodes.romio_piece_s each, the MPI backend never sees them.
  std::int64_t library_pieces = 0;
  Step step = Step::Pack;  ///< the kind of loop the tuples go through (their cost per tuple)
};

/// The step clock's record of one compute() site (Process::record_steps): how often it charged, the work it
/// charged, and the real seconds the code took before each charge (since the rank's previous call, phase
/// mark or charge).
struct StepTime {
  std::string site;  ///< "Class::function, file.cpp:line" of the compute() call
  std::string step;  ///< step_name of its Work::step ("" for uncharged code)
  std::int64_t charges = 0;
  std::int64_t tuples = 0;
  std::int64_t bytes_copied = 0;
  std::int64_t library_pieces = 0;
  double seconds = 0;  ///< measured
  /// Adds another record's charges, work and time (the site stays).
  StepTime& operator+=(const StepTime& o) {
    charges += o.charges;
    tuples += o.tuples;
    bytes_copied += o.bytes_copied;
    library_pieces += o.library_pieces;
    seconds += o.seconds;
    return *this;
  }
};

/// The records of each site added up into one (its step kept), in site order: one rank's sites whose
/// function names differ only in pointer, or every rank's records of a run.
std::vector<StepTime> add_up_by_site(const std::vector<StepTime>& records);

/// One call as the optional trace records it (validation: both backends record through the same counted
/// wrappers, so a technique's trace is identical on the simulator and on MPI by construction of the seam).
/// Field meaning by kind: point-to-point: peer = the other rank, a = bytes, b = tag; bcast/gather:
/// peer = root, a = bytes sent (bcast: buffer size); allgather/alltoall/allreduce: a = bytes sent;
/// wait/waitall/waitany: a = requests (waitany: the active ones); file write/read: a = offset, b = length;
/// list write/read: one event per region (a = offset, b = length); open/close/sync/barrier: no fields. Unused
/// fields are 0 (peer -1).
struct TraceEvent {
  std::string phase;  ///< the phase the call was made in ("" before the first mark)
  Call kind = Call::Send;
  int peer = -1;
  std::int64_t a = 0;
  std::int64_t b = 0;
  bool operator==(const TraceEvent&) const = default;
};

/// Handle of a nonblocking operation; meaningful only to the backend that issued it.
struct Request {
  std::int64_t id = -1;
};

/// An immutable message that a technique hands over whole (isend_shared / irecv_shared). On the wire it is
/// exactly its serialized bytes: the MPI backend sends those, and the simulator, whose ranks share one
/// address space, hands the object itself to the receiver while charging the network for wire_size()
/// bytes. Both count and trace it as an isend / irecv of wire_size() bytes, so a technique costs and
/// behaves the same as if it serialized the object itself; only the simulator's own memory and time
/// shrink (the IEC inspector's recursive datatype bundles, for one, share their subtrees instead of
/// copying them at every phase).
class SharedMessage {
 public:
  virtual ~SharedMessage() = default;
  /// Bytes of the serialized form.
  virtual std::int64_t wire_size() const = 0;
  /// Writes the serialized form: exactly wire_size() bytes.
  virtual void serialize(std::span<std::byte> out) const = 0;
  /// The serialized form where it already lies in the message's memory (wire_size() bytes), or empty: a
  /// backend that moves bytes then sends these in place, as an MPI application sends from its arrays,
  /// instead of serializing into a copy.
  virtual std::span<const std::byte> wire_bytes() const { return {}; }
};
using SharedMessagePtr = std::shared_ptr<const SharedMessage>;
/// Rebuilds a message from its serialized form (throws std::invalid_argument on malformed bytes).
using SharedDecoder = std::function<SharedMessagePtr(std::span<const std::byte>)>;

struct CallEnd;

class Process {
 public:
  virtual ~Process() = default;

  // --- identity
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string host() const = 0;

  // --- point-to-point (tags >= 0; the receive buffer size must equal the message size)
  void send(int dst, int tag, std::span<const std::byte> buf);
  void recv(int src, int tag, std::span<std::byte> buf);
  Request isend(int dst, int tag, std::span<const std::byte> buf);
  Request irecv(int src, int tag, std::span<std::byte> buf);
  void wait(Request& r);
  void waitall(std::vector<Request>& rs);
  /// MPI_Waitany: waits until one of the active requests of `rs` completes, marks it done (id -1) and
  /// returns its index; -1 when none is active. Which one completes first is the backend's (the network's)
  /// business: a technique that serves receives as they arrive must make the same calls whatever the order
  /// (the trace records only how many requests were active).
  int waitany(std::vector<Request>& rs);
  /// Sends `m` (wire_size() bytes on the wire). The sender must not change *m afterwards.
  Request isend_shared(int dst, int tag, SharedMessagePtr m);
  /// Receives a message of `bytes` bytes on the wire (the sender's wire_size(), as irecv's buffer size must
  /// equal the message size); once the request is waited on, *into holds it.
  Request irecv_shared(int src, int tag, std::int64_t bytes, SharedMessagePtr* into, SharedDecoder decode);

  // --- collectives (over all ranks; block sizes equal on every rank)
  void barrier();
  void bcast(std::span<std::byte> buf, int root);
  /// recv (significant at root only) receives size() blocks of send.size() bytes in rank order.
  void gather(std::span<const std::byte> send, std::span<std::byte> recv, int root);
  /// MPI_Gatherv: rank i contributes send (counts[i] bytes); recv (root only) receives the contributions
  /// back to back in rank order. counts (size() entries) is significant at root only.
  void gatherv(std::span<const std::byte> send, std::span<std::byte> recv,
               std::span<const std::int64_t> counts, int root);
  /// recv receives size() blocks of send.size() bytes in rank order.
  void allgather(std::span<const std::byte> send, std::span<std::byte> recv);
  /// send holds size() blocks; block i goes to rank i. recv block j comes from rank j.
  void alltoall(std::span<const std::byte> send, std::span<std::byte> recv);
  /// Element-wise maximum over ranks, in place.
  void allreduce_max(std::span<std::int64_t> values);

  // --- CPU work
  /// `where` names the charge's site for the step clock (record_steps); callers leave it defaulted.
  void compute(const Work& w, CodeSite where = CodeSite::current());

  // --- the shared file (opened collectively by every rank)
  void file_open(const std::string& name);
  void file_close();
  void write_at(Offset offset, std::span<const std::byte> data);
  void read_at(Offset offset, std::span<std::byte> data);
  /// One list request: data holds the regions' bytes back to back, in list order.
  void write_list(std::span<const Extent> regions, std::span<const std::byte> data);
  void read_list(std::span<const Extent> regions, std::span<std::byte> data);
  /// Collective: every rank calls it (MPI_File_sync is collective in the MPI backend).
  void file_sync();
  /// The file view's displacement in bytes (0 until set): added to the offset of every write_at, read_at
  /// and list region, as MPI-IO adds a view's displacement and an explicit offset to every access. An
  /// operation sequence sets it for the techniques that keep no state of their own (algorithms/sequence.hpp).
  void set_file_displacement(Offset bytes);
  Offset file_displacement() const { return displacement_; }

  // --- instrumentation
  /// Marks the start of a named phase (and the end of the previous one) on this rank.
  void phase(const std::string& name);
  /// Marks the start of operation `name` of an operation sequence (and the end of the previous one).
  void operation(const std::string& name);
  const Counters& counters() const { return counters_; }

  // --- communicator attributes (MPI_Comm_set_attr / MPI_Comm_get_attr): what a library caches on the
  // communicator for its whole life, such as ROMIO's processor names, gathered at the first collective open
  // and reused by every later one (ADIOI_cb_gather_name_array). Null when `key` was never set.
  std::shared_ptr<const void> attribute(const std::string& key) const {
    const auto it = attributes_.find(key);
    return it == attributes_.end() ? nullptr : it->second;
  }
  void set_attribute(const std::string& key, std::shared_ptr<const void> value) {
    attributes_[key] = std::move(value);
  }
  /// Starts recording every call into trace() (off by default: a trace grows with every call).
  void record_trace(bool on) { tracing_ = on; }
  const std::vector<TraceEvent>& trace() const { return trace_; }
  /// Starts the step clock (off by default; it reads the host's clock at the end of every call): each
  /// compute() charge is then paired with the real time this rank's code took since its previous call,
  /// phase mark or charge, by the site of the charge. It measures what a charge stands for where the code
  /// runs for real (the MPI backend); in the simulator it would time the host, not the model.
  void record_steps(bool on);
  /// What the step clock saw, one entry per compute() site and one per phase for the code that ran
  /// between calls and was charged nothing ("uncharged code, phase NAME"), in site order.
  std::vector<StepTime> steps() const;

 protected:
  virtual void do_send(int dst, int tag, std::span<const std::byte> buf) = 0;
  virtual void do_recv(int src, int tag, std::span<std::byte> buf) = 0;
  virtual Request do_isend(int dst, int tag, std::span<const std::byte> buf) = 0;
  virtual Request do_irecv(int src, int tag, std::span<std::byte> buf) = 0;
  virtual void do_wait(Request& r) = 0;
  virtual void do_waitall(std::vector<Request>& rs) = 0;
  virtual int do_waitany(std::vector<Request>& rs) = 0;
  /// Default: serializes `m` into a buffer kept until the request is waited on, and sends that (do_isend).
  virtual Request do_isend_shared(int dst, int tag, SharedMessagePtr m);
  /// Default: receives the bytes (do_irecv) and decodes them into *into when the request is waited on.
  virtual Request do_irecv_shared(int src, int tag, std::int64_t bytes, SharedMessagePtr* into,
                                  SharedDecoder decode);
  virtual void do_barrier() = 0;
  virtual void do_bcast(std::span<std::byte> buf, int root) = 0;
  virtual void do_gather(std::span<const std::byte> send, std::span<std::byte> recv, int root) = 0;
  virtual void do_gatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                          std::span<const std::int64_t> counts, int root) = 0;
  virtual void do_allgather(std::span<const std::byte> send, std::span<std::byte> recv) = 0;
  virtual void do_alltoall(std::span<const std::byte> send, std::span<std::byte> recv) = 0;
  virtual void do_allreduce_max(std::span<std::int64_t> values) = 0;
  virtual void do_compute(const Work& w) = 0;
  virtual void do_file_open(const std::string& name) = 0;
  virtual void do_file_close() = 0;
  virtual void do_write_at(Offset offset, std::span<const std::byte> data) = 0;
  virtual void do_read_at(Offset offset, std::span<std::byte> data) = 0;
  virtual void do_write_list(std::span<const Extent> regions, std::span<const std::byte> data) = 0;
  virtual void do_read_list(std::span<const Extent> regions, std::span<std::byte> data) = 0;
  virtual void do_file_sync() = 0;
  virtual void do_phase(const std::string& name) = 0;
  virtual void do_operation(const std::string& name) = 0;

 private:
  /// Counts call `c`; the guard it returns, held for the call, ends the step clock's region at the call's
  /// end (boundary()).
  [[nodiscard]] CallEnd count(Call c);
  /// For the step clock: the code since the last boundary was charged nothing (uncharged()), and the next
  /// region starts when the returned guard goes (the end of a call or mark).
  [[nodiscard]] CallEnd boundary();
  /// Counts `bytes` of payload handed to call `c` (in bytes_sent and in the phase's bytes of that kind).
  void sent(Call c, std::int64_t bytes) {
    counters_.bytes_sent += bytes;
    if (phase_bytes_ == nullptr) phase_bytes_ = &counters_.phase_bytes[phase_];
    (*phase_bytes_)[static_cast<std::size_t>(c)] += bytes;
  }
  void note(Call c, int peer = -1, std::int64_t a = 0, std::int64_t b = 0) {
    if (tracing_) trace_.push_back(TraceEvent{phase_, c, peer, a, b});
  }
  void note_regions(Call c, std::span<const Extent> regions) {
    for (const Extent& e : regions) note(c, -1, e.offset, e.length);
  }
  /// The default shared transport's state per request: the bytes in flight and, for a receive, where the
  /// decoded message goes. Finished after the backend's wait.
  struct SerializedShared {
    std::unique_ptr<std::byte[]> bytes;  ///< a send's copy or a receive's buffer (not zeroed first)
    std::size_t size = 0;
    SharedMessagePtr keep;  ///< a send from the message's own bytes (wire_bytes): kept until the wait
    SharedMessagePtr* into = nullptr;
    SharedDecoder decode;
  };
  void finish_shared(std::int64_t id);
  std::map<std::int64_t, SerializedShared> serialized_;
  std::map<std::string, std::shared_ptr<const void>> attributes_;
  Counters counters_;
  Counters::Calls* phase_calls_ = nullptr;  ///< counters_.phase_calls[phase_] (map nodes do not move)
  Counters::Calls* phase_bytes_ = nullptr;  ///< counters_.phase_bytes[phase_]
  std::string phase_;
  Offset displacement_ = 0;
  bool tracing_ = false;
  std::vector<TraceEvent> trace_;
  /// The step clock: where the code's work since the last call began, and what each site took.
  using Clock = std::chrono::steady_clock;
  friend struct CallEnd;
  bool stepping_ = false;
  Clock::time_point since_{};
  struct SiteKey {
    const char* function;
    const char* file;
    std::uint_least32_t line;
    auto operator<=>(const SiteKey&) const = default;
  };
  std::map<SiteKey, StepTime> steps_;
  std::map<std::string, StepTime> uncharged_;  ///< by phase: code that ran before a call, not charged
  /// Adds the time since the last call, mark or charge to the phase's uncharged code.
  void uncharged();
};

/// Marks the end of a call or mark for the step clock (Process::boundary).
struct CallEnd {
  Process& p;
  explicit CallEnd(Process& process) : p(process) {}
  CallEnd(const CallEnd&) = delete;
  CallEnd& operator=(const CallEnd&) = delete;
  ~CallEnd() {
    if (p.stepping_) p.since_ = Process::Clock::now();
  }
};

inline CallEnd Process::boundary() {
  if (stepping_) uncharged();
  return CallEnd(*this);
}

inline CallEnd Process::count(Call c) {
  ++counters_.calls[static_cast<int>(c)];
  if (phase_calls_ == nullptr) phase_calls_ = &counters_.phase_calls[phase_];
  ++(*phase_calls_)[static_cast<std::size_t>(c)];
  return boundary();
}

inline void Process::operation(const std::string& name) {
  const CallEnd end = boundary();  // as a phase mark: the code before it is the current phase's
  do_operation(name);
}

inline void Process::phase(const std::string& name) {
  const CallEnd end = boundary();  // the code before the mark belongs to the phase that ends
  phase_ = name;
  phase_calls_ = &counters_.phase_calls[name];
  phase_bytes_ = &counters_.phase_bytes[name];
  do_phase(name);
}

/// Views of trivially copyable arrays as bytes.
template <class T>
std::span<const std::byte> as_bytes(const std::vector<T>& v) {
  return std::as_bytes(std::span<const T>(v));
}
template <class T>
std::span<std::byte> as_writable_bytes(std::vector<T>& v) {
  return std::as_writable_bytes(std::span<T>(v));
}

}  // namespace ciosim
