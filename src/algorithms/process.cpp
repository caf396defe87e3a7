#include "algorithms/process.hpp"

#include <numeric>

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
    case Call::Barrier:
      return "barrier";
    case Call::Bcast:
      return "bcast";
    case Call::Gather:
      return "gather";
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

void Process::send(int dst, int tag, std::span<const std::byte> buf) {
  count(Call::Send);
  counters_.bytes_sent += static_cast<std::int64_t>(buf.size());
  do_send(dst, tag, buf);
}
void Process::recv(int src, int tag, std::span<std::byte> buf) {
  count(Call::Recv);
  do_recv(src, tag, buf);
}
Request Process::isend(int dst, int tag, std::span<const std::byte> buf) {
  count(Call::Isend);
  counters_.bytes_sent += static_cast<std::int64_t>(buf.size());
  return do_isend(dst, tag, buf);
}
Request Process::irecv(int src, int tag, std::span<std::byte> buf) {
  count(Call::Irecv);
  return do_irecv(src, tag, buf);
}
void Process::wait(Request& r) {
  count(Call::Wait);
  do_wait(r);
}
void Process::waitall(std::vector<Request>& rs) {
  count(Call::Waitall);
  do_waitall(rs);
}
void Process::barrier() {
  count(Call::Barrier);
  do_barrier();
}
void Process::bcast(std::span<std::byte> buf, int root) {
  count(Call::Bcast);
  if (rank() == root) counters_.bytes_sent += static_cast<std::int64_t>(buf.size());
  do_bcast(buf, root);
}
void Process::gather(std::span<const std::byte> send, std::span<std::byte> recv, int root) {
  count(Call::Gather);
  counters_.bytes_sent += static_cast<std::int64_t>(send.size());
  do_gather(send, recv, root);
}
void Process::allgather(std::span<const std::byte> send, std::span<std::byte> recv) {
  count(Call::Allgather);
  counters_.bytes_sent += static_cast<std::int64_t>(send.size());
  do_allgather(send, recv);
}
void Process::alltoall(std::span<const std::byte> send, std::span<std::byte> recv) {
  count(Call::Alltoall);
  counters_.bytes_sent += static_cast<std::int64_t>(send.size());
  do_alltoall(send, recv);
}
void Process::allreduce_max(std::span<std::int64_t> values) {
  count(Call::Allreduce);
  counters_.bytes_sent += static_cast<std::int64_t>(values.size_bytes());
  do_allreduce_max(values);
}
void Process::file_open(const std::string& name) {
  count(Call::FileOpen);
  do_file_open(name);
}
void Process::file_close() {
  count(Call::FileClose);
  do_file_close();
}
void Process::write_at(Offset offset, std::span<const std::byte> data) {
  count(Call::FileWrite);
  counters_.bytes_written += static_cast<std::int64_t>(data.size());
  do_write_at(offset, data);
}
void Process::read_at(Offset offset, std::span<std::byte> data) {
  count(Call::FileRead);
  counters_.bytes_read += static_cast<std::int64_t>(data.size());
  do_read_at(offset, data);
}
void Process::write_list(std::span<const Extent> regions, std::span<const std::byte> data) {
  count(Call::FileListWrite);
  counters_.bytes_written += static_cast<std::int64_t>(data.size());
  do_write_list(regions, data);
}
void Process::read_list(std::span<const Extent> regions, std::span<std::byte> data) {
  count(Call::FileListRead);
  counters_.bytes_read += static_cast<std::int64_t>(data.size());
  do_read_list(regions, data);
}
void Process::file_sync() {
  count(Call::FileSync);
  do_file_sync();
}

}  // namespace ciosim
