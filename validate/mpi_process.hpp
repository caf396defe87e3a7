// The MPI implementation of Process (docs/architecture.md, the Process seam; docs/validation.md): the
// same compiled techniques run on a real MPI library and a real file. The only layer that includes mpi.h,
// with validate/*.cpp.
//
//  - point-to-point: MPI_Send/Recv/Isend/Irecv/Wait/Waitall/Waitany of MPI_BYTE with the technique's tags, on
//  a
//    duplicate of MPI_COMM_WORLD (so nothing else can match them); a receive must get exactly the buffer's
//    size, as in the simulator;
//  - collectives: the MPI calls themselves (MPI_Barrier, MPI_Bcast, MPI_Gather(v), MPI_Allgather,
//    MPI_Alltoall; allreduce_max is MPI_Allreduce(MPI_INT64_T, MPI_MAX) in place), whatever algorithms the
//    library selects;
//  - compute(): nothing for a technique's own work (real time passes anyway); an application's
//    computation (Work::seconds) spins until it has used that much CPU time;
//  - the file: MPI_File_open(communicator, DIR/name, CREATE|RDWR) collectively; write_at/read_at are the
//    independent MPI_File_write_at/read_at (split into 1 GiB pieces beyond int counts);
//  - write_list/read_list: one independent MPI-IO call through the library's noncontiguous path: the
//    regions, sorted by offset, become an MPI_Type_create_hindexed filetype set with MPI_File_set_view on
//    a second handle of the same file opened on MPI_COMM_SELF (set_view is collective over the handle's
//    communicator, so a per-rank handle keeps list I/O independent), and the data is described by a
//    matching hindexed memory type (the regions' data in list order, permuted to file order), written
//    with one MPI_File_write_at(handle, 0, data, 1, memtype). ROMIO's write data sieving is disabled on
//    that handle (hint romio_ds_write=disable): its read-modify-write would race with other ranks'
//    contiguous writes through the shared handle. Overlapping regions are an error;
//  - file_sync: MPI_File_sync (collective) on the shared handle, and on the per-rank handle if open;
//  - phase marks: MPI_Wtime on this rank;
//  - host(): "node<k>", k the index of this rank's processor name among the distinct names in rank order,
//    as the simulator names the hosts of a platform (config/placement.hpp: host_indices, node_of).
//    Techniques that group ranks by host (cb_config_list) thus see the same names, and send the same bytes,
//    on both backends when the placements agree; processor_name() is the real name.
// MPI errors are returned (MPI_ERRORS_RETURN) and thrown as std::runtime_error naming the call.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/common/process.hpp"

namespace ciosim::mpi {

/// Throws std::runtime_error "WHAT: <MPI error string>" when rc is not MPI_SUCCESS.
void check(int rc, const char* what);

/// MPI_Get_processor_name of every rank of `comm`, in rank order (collective).
std::vector<std::string> host_names(MPI_Comm comm);
/// "node<k>" for every rank: k numbers the distinct names of `names` in order of first appearance.
std::vector<std::string> canonical_hosts(const std::vector<std::string>& names);

/// Busy for `seconds` of this thread's CPU time (not wall time: on a shared core it takes longer, as an
/// application's computation does and as the simulator charges it).
void spin_cpu(double seconds);

/// Keep freed memory in the process: every allocation from the heap, the heap never trimmed (glibc
/// mallopt), so that a timed run reuses pages instead of faulting in fresh ones (ciosim-mpi run's --memory
/// warm, the steady state the model predicts).
void keep_freed_memory();

class MpiProcess final : public Process {
 public:
  /// `comm` is duplicated (and freed by the destructor); file_open(name) opens `dir`/name.
  MpiProcess(MPI_Comm comm, std::filesystem::path dir);
  ~MpiProcess() override;
  MpiProcess(const MpiProcess&) = delete;
  MpiProcess& operator=(const MpiProcess&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string host() const override { return host_; }
  /// MPI_Get_processor_name.
  std::string processor_name() const;
  /// Phase name and MPI_Wtime() at its start, in call order.
  const std::vector<std::pair<std::string, double>>& marks() const { return marks_; }
  const std::vector<std::pair<std::string, double>>& ops() const { return ops_; }

 protected:
  void do_send(int dst, int tag, std::span<const std::byte> buf) override;
  void do_recv(int src, int tag, std::span<std::byte> buf) override;
  Request do_isend(int dst, int tag, std::span<const std::byte> buf) override;
  Request do_irecv(int src, int tag, std::span<std::byte> buf) override;
  void do_wait(Request& r) override;
  void do_waitall(std::vector<Request>& rs) override;
  int do_waitany(std::vector<Request>& rs) override;
  void do_barrier() override;
  void do_bcast(std::span<std::byte> buf, int root) override;
  void do_gather(std::span<const std::byte> send, std::span<std::byte> recv, int root) override;
  void do_gatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                  std::span<const std::int64_t> counts, int root) override;
  void do_allgather(std::span<const std::byte> send, std::span<std::byte> recv) override;
  void do_alltoall(std::span<const std::byte> send, std::span<std::byte> recv) override;
  void do_allreduce_max(std::span<std::int64_t> values) override;
  void do_compute(const Work& w) override;
  void do_file_open(const std::string& name) override;
  void do_file_close() override;
  void do_write_at(Offset offset, std::span<const std::byte> data) override;
  void do_read_at(Offset offset, std::span<std::byte> data) override;
  void do_write_list(std::span<const Extent> regions, std::span<const std::byte> data) override;
  void do_read_list(std::span<const Extent> regions, std::span<std::byte> data) override;
  void do_file_sync() override;
  void do_phase(const std::string& name) override;
  void do_operation(const std::string& name) override;

 private:
  struct Pending {
    MPI_Request req = MPI_REQUEST_NULL;
    std::size_t expected = 0;  ///< receive: bytes the buffer holds
    bool is_recv = false;
  };
  void finish(const Pending& p, const MPI_Status& st) const;
  void list_io(bool write, std::span<const Extent> regions, std::byte* data, std::size_t size);
  MPI_File self_handle();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
  std::filesystem::path dir_;
  std::string path_;  ///< the open file
  MPI_File file_ = MPI_FILE_NULL;
  MPI_File self_ = MPI_FILE_NULL;  ///< per-rank handle for list I/O, opened at the first list call
  std::map<std::int64_t, Pending> pending_;
  std::int64_t next_id_ = 0;
  std::vector<std::pair<std::string, double>> marks_;
  std::vector<std::pair<std::string, double>> ops_;
};

}  // namespace ciosim::mpi
