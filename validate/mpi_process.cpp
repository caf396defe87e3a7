#include "validate/mpi_process.hpp"

#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <climits>
#include <limits>
#include <stdexcept>

#include "config/placement.hpp"

namespace ciosim::mpi {

namespace {

constexpr std::size_t kMaxPiece = std::size_t{1} << 30;  // file accesses beyond this are split

int count_of(std::size_t bytes, const char* what) {
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error(std::string(what) + ": " + std::to_string(bytes) +
                             " bytes exceed MPI's int count (2^31-1)");
  return static_cast<int>(bytes);
}

}  // namespace

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(msg, static_cast<std::size_t>(len)));
}

std::vector<std::string> host_names(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  check(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                      comm),
        "MPI_Allgather");
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r)
    out.emplace_back(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  return out;
}

std::vector<std::string> canonical_hosts(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const int k : config::host_indices(names)) out.push_back("node" + std::to_string(k));
  return out;
}

MpiProcess::MpiProcess(MPI_Comm comm, std::filesystem::path dir) : dir_(std::move(dir)) {
  check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  host_ = canonical_hosts(host_names(comm_))[static_cast<std::size_t>(rank_)];
}

MpiProcess::~MpiProcess() {
  // A file still open here means the run failed; closing it is collective, so it is left to MPI_Finalize
  // (or MPI_Abort), like pending requests.
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::string MpiProcess::processor_name() const {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<std::size_t>(len));
}

// ---- point-to-point

void MpiProcess::finish(const Pending& p, const MPI_Status& st) const {
  if (!p.is_recv) return;
  int got = 0;
  MPI_Get_count(&st, MPI_BYTE, &got);
  if (static_cast<std::size_t>(got) != p.expected)
    throw std::runtime_error("message of " + std::to_string(got) + " bytes received into a buffer of " +
                             std::to_string(p.expected));
}

void MpiProcess::do_send(int dst, int tag, std::span<const std::byte> buf) {
  check(MPI_Send(buf.data(), count_of(buf.size(), "MPI_Send"), MPI_BYTE, dst, tag, comm_), "MPI_Send");
}

void MpiProcess::do_recv(int src, int tag, std::span<std::byte> buf) {
  MPI_Status st;
  check(MPI_Recv(buf.data(), count_of(buf.size(), "MPI_Recv"), MPI_BYTE, src, tag, comm_, &st), "MPI_Recv");
  finish(Pending{MPI_REQUEST_NULL, buf.size(), true}, st);
}

Request MpiProcess::do_isend(int dst, int tag, std::span<const std::byte> buf) {
  Pending p;
  check(MPI_Isend(buf.data(), count_of(buf.size(), "MPI_Isend"), MPI_BYTE, dst, tag, comm_, &p.req),
        "MPI_Isend");
  const Request r{next_id_++};
  pending_[r.id] = p;
  return r;
}

Request MpiProcess::do_irecv(int src, int tag, std::span<std::byte> buf) {
  Pending p{MPI_REQUEST_NULL, buf.size(), true};
  check(MPI_Irecv(buf.data(), count_of(buf.size(), "MPI_Irecv"), MPI_BYTE, src, tag, comm_, &p.req),
        "MPI_Irecv");
  const Request r{next_id_++};
  pending_[r.id] = p;
  return r;
}

void MpiProcess::do_wait(Request& r) {
  auto it = pending_.find(r.id);
  if (it == pending_.end()) throw std::logic_error("wait on an unknown request");
  MPI_Status st;
  check(MPI_Wait(&it->second.req, &st), "MPI_Wait");
  const Pending p = it->second;
  pending_.erase(it);
  r.id = -1;
  finish(p, st);
}

void MpiProcess::do_waitall(std::vector<Request>& rs) {
  std::vector<MPI_Request> reqs;
  std::vector<Pending> ps;
  for (Request& r : rs) {
    if (r.id < 0) continue;
    auto it = pending_.find(r.id);
    if (it == pending_.end()) throw std::logic_error("waitall on an unknown request");
    reqs.push_back(it->second.req);
    ps.push_back(it->second);
    pending_.erase(it);
    r.id = -1;
  }
  std::vector<MPI_Status> st(reqs.size());
  const int rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), st.data());
  if (rc == MPI_ERR_IN_STATUS) {
    for (const MPI_Status& s : st) check(s.MPI_ERROR, "MPI_Waitall");
  }
  check(rc, "MPI_Waitall");
  for (std::size_t i = 0; i < ps.size(); ++i) finish(ps[i], st[i]);
}

int MpiProcess::do_waitany(std::vector<Request>& rs) {
  std::vector<MPI_Request> reqs;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].id < 0) continue;
    auto it = pending_.find(rs[i].id);
    if (it == pending_.end()) throw std::logic_error("waitany on an unknown request");
    reqs.push_back(it->second.req);
    where.push_back(i);
  }
  if (reqs.empty()) return -1;
  int k = MPI_UNDEFINED;
  MPI_Status st;
  check(MPI_Waitany(static_cast<int>(reqs.size()), reqs.data(), &k, &st), "MPI_Waitany");
  if (k == MPI_UNDEFINED) return -1;
  const std::size_t i = where[static_cast<std::size_t>(k)];
  auto it = pending_.find(rs[i].id);
  const Pending p = it->second;
  pending_.erase(it);
  rs[i].id = -1;
  finish(p, st);
  return static_cast<int>(i);
}

// ---- collectives

void MpiProcess::do_barrier() {
  check(MPI_Barrier(comm_), "MPI_Barrier");
}

void MpiProcess::do_bcast(std::span<std::byte> buf, int root) {
  check(MPI_Bcast(buf.data(), count_of(buf.size(), "MPI_Bcast"), MPI_BYTE, root, comm_), "MPI_Bcast");
}

void MpiProcess::do_gather(std::span<const std::byte> send, std::span<std::byte> recv, int root) {
  const int n = count_of(send.size(), "MPI_Gather");
  if (rank_ == root && recv.size() != send.size() * static_cast<std::size_t>(size_))
    throw std::invalid_argument("gather: the root's receive buffer must hold size() blocks");
  check(MPI_Gather(send.data(), n, MPI_BYTE, recv.data(), n, MPI_BYTE, root, comm_), "MPI_Gather");
}

void MpiProcess::do_gatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                            std::span<const std::int64_t> counts, int root) {
  std::vector<int> cnt, displs;
  if (rank_ == root) {
    if (counts.size() != static_cast<std::size_t>(size_))
      throw std::invalid_argument("gatherv: counts must have size() entries at the root");
    std::int64_t total = 0;
    for (const std::int64_t c : counts) {
      cnt.push_back(count_of(static_cast<std::size_t>(c), "MPI_Gatherv"));
      displs.push_back(count_of(static_cast<std::size_t>(total), "MPI_Gatherv displacement"));
      total += c;
    }
    if (static_cast<std::size_t>(total) != recv.size())
      throw std::invalid_argument("gatherv: the root's receive buffer must hold the sum of counts");
  }
  check(MPI_Gatherv(send.data(), count_of(send.size(), "MPI_Gatherv"), MPI_BYTE, recv.data(), cnt.data(),
                    displs.data(), MPI_BYTE, root, comm_),
        "MPI_Gatherv");
}

void MpiProcess::do_allgather(std::span<const std::byte> send, std::span<std::byte> recv) {
  const int n = count_of(send.size(), "MPI_Allgather");
  if (recv.size() != send.size() * static_cast<std::size_t>(size_))
    throw std::invalid_argument("allgather: the receive buffer must hold size() blocks");
  check(MPI_Allgather(send.data(), n, MPI_BYTE, recv.data(), n, MPI_BYTE, comm_), "MPI_Allgather");
}

void MpiProcess::do_alltoall(std::span<const std::byte> send, std::span<std::byte> recv) {
  const auto P = static_cast<std::size_t>(size_);
  if (send.size() % P != 0 || recv.size() != send.size())
    throw std::invalid_argument("alltoall: send and receive buffers must hold size() equal blocks");
  const int n = count_of(send.size() / P, "MPI_Alltoall");
  check(MPI_Alltoall(send.data(), n, MPI_BYTE, recv.data(), n, MPI_BYTE, comm_), "MPI_Alltoall");
}

void MpiProcess::do_allreduce_max(std::span<std::int64_t> values) {
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), count_of(values.size(), "MPI_Allreduce"), MPI_INT64_T,
                      MPI_MAX, comm_),
        "MPI_Allreduce");
}

// ---- the file

void MpiProcess::do_file_open(const std::string& name) {
  if (file_ != MPI_FILE_NULL) throw std::logic_error("file_open: a file is already open");
  path_ = (dir_ / name).string();
  check(MPI_File_open(comm_, path_.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file_),
        ("MPI_File_open " + path_).c_str());
}

void MpiProcess::do_file_close() {
  if (self_ != MPI_FILE_NULL) check(MPI_File_close(&self_), "MPI_File_close (per-rank handle)");
  check(MPI_File_close(&file_), "MPI_File_close");
}

void MpiProcess::do_write_at(Offset offset, std::span<const std::byte> data) {
  for (std::size_t done = 0; done < data.size();) {
    const std::size_t n = std::min(kMaxPiece, data.size() - done);
    MPI_Status st;
    check(MPI_File_write_at(file_, offset + static_cast<Offset>(done), data.data() + done,
                            static_cast<int>(n), MPI_BYTE, &st),
          "MPI_File_write_at");
    int got = 0;
    MPI_Get_count(&st, MPI_BYTE, &got);
    if (static_cast<std::size_t>(got) != n)
      throw std::runtime_error("MPI_File_write_at wrote " + std::to_string(got) + " of " + std::to_string(n) +
                               " bytes");
    done += n;
  }
}

void MpiProcess::do_read_at(Offset offset, std::span<std::byte> data) {
  for (std::size_t done = 0; done < data.size();) {
    const std::size_t n = std::min(kMaxPiece, data.size() - done);
    MPI_Status st;
    check(MPI_File_read_at(file_, offset + static_cast<Offset>(done), data.data() + done, static_cast<int>(n),
                           MPI_BYTE, &st),
          "MPI_File_read_at");
    done += n;
  }
}

MPI_File MpiProcess::self_handle() {
  if (self_ != MPI_FILE_NULL) return self_;
  if (file_ == MPI_FILE_NULL) throw std::logic_error("list I/O before file_open");
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_ds_write", "disable");
  const int rc = MPI_File_open(MPI_COMM_SELF, path_.c_str(), MPI_MODE_RDWR, info, &self_);
  MPI_Info_free(&info);
  check(rc, "MPI_File_open (per-rank handle for list I/O)");
  return self_;
}

void MpiProcess::list_io(bool write, std::span<const Extent> regions, std::byte* data, std::size_t size) {
  struct Piece {
    Offset file, mem, len;
  };
  std::vector<Piece> pieces;
  Offset mem = 0;
  for (const Extent& e : regions) {
    if (e.offset < 0 || e.length < 0) throw std::invalid_argument("list I/O: negative offset or length");
    if (e.length > 0) pieces.push_back(Piece{e.offset, mem, e.length});
    mem += e.length;
  }
  if (static_cast<std::size_t>(mem) != size)
    throw std::invalid_argument("list I/O: the regions hold " + std::to_string(mem) + " bytes, the buffer " +
                                std::to_string(size));
  if (pieces.empty()) return;
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const Piece& a, const Piece& b) { return a.file < b.file; });
  std::vector<int> lens;
  std::vector<MPI_Aint> fdisp, mdisp;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0 && pieces[i].file < pieces[i - 1].file + pieces[i - 1].len)
      throw std::invalid_argument("list I/O: regions overlap at file offset " +
                                  std::to_string(pieces[i].file));
    lens.push_back(count_of(static_cast<std::size_t>(pieces[i].len), "list I/O region"));
    fdisp.push_back(static_cast<MPI_Aint>(pieces[i].file));
    mdisp.push_back(static_cast<MPI_Aint>(pieces[i].mem));
  }
  const int n = static_cast<int>(pieces.size());
  MPI_Datatype filetype, memtype;
  check(MPI_Type_create_hindexed(n, lens.data(), fdisp.data(), MPI_BYTE, &filetype),
        "MPI_Type_create_hindexed");
  check(MPI_Type_create_hindexed(n, lens.data(), mdisp.data(), MPI_BYTE, &memtype),
        "MPI_Type_create_hindexed");
  MPI_Type_commit(&filetype);
  MPI_Type_commit(&memtype);
  MPI_File fh = self_handle();
  int rc = MPI_File_set_view(fh, 0, MPI_BYTE, filetype, "native", MPI_INFO_NULL);
  MPI_Status st;
  if (rc == MPI_SUCCESS)
    rc = write ? MPI_File_write_at(fh, 0, data, 1, memtype, &st)
               : MPI_File_read_at(fh, 0, data, 1, memtype, &st);
  MPI_Type_free(&filetype);
  MPI_Type_free(&memtype);
  check(rc, write ? "list write (MPI_File_set_view + MPI_File_write_at)"
                  : "list read (MPI_File_set_view + MPI_File_read_at)");
}

void MpiProcess::do_write_list(std::span<const Extent> regions, std::span<const std::byte> data) {
  // MPI_File_write_at takes a non-const buffer pointer only in MPI-2 bindings; MPI-3 has const void*.
  list_io(true, regions, const_cast<std::byte*>(data.data()), data.size());
}

void MpiProcess::do_read_list(std::span<const Extent> regions, std::span<std::byte> data) {
  list_io(false, regions, data.data(), data.size());
}

void MpiProcess::do_file_sync() {
  check(MPI_File_sync(file_), "MPI_File_sync");
  if (self_ != MPI_FILE_NULL) check(MPI_File_sync(self_), "MPI_File_sync (per-rank handle)");
}

void keep_freed_memory() {
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

void spin_cpu(double seconds) {
  if (seconds <= 0) return;
  const auto cpu_now = [] {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  };
  const double until = cpu_now() + seconds;
  while (cpu_now() < until) {
  }
}

void MpiProcess::do_compute(const Work& w) {
  // A technique's own CPU work takes the real time it takes; an application's computation (Work::seconds,
  // an operation sequence's compute) is that much CPU time on this rank's core, as the simulator charges it.
  spin_cpu(w.seconds);
}

void MpiProcess::do_operation(const std::string& name) {
  ops_.emplace_back(name, MPI_Wtime());
}

void MpiProcess::do_phase(const std::string& name) {
  marks_.emplace_back(name, MPI_Wtime());
}

}  // namespace ciosim::mpi
