// A checkpoint as applications write one, for the capture test (tests/test_capture.cpp): a 2-D array of
// doubles distributed over a grid of ranks (MPI_Dims_create), each rank's block written with
// MPI_File_write_all through a subarray view after a 64-byte header that rank 0 writes with
// MPI_File_write_at; then every rank reads its block back with MPI_File_read_at_all and, given `iwrite`,
// writes one more record with MPI_File_iwrite_at (a call a replay cannot reproduce). The MPI C interface
// only. Usage: mpiexec -n P ciosim_capture_checkpoint FILE ROWS_PER_RANK COLS_PER_RANK [iwrite]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: checkpoint FILE ROWS_PER_RANK COLS_PER_RANK [iwrite]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rows = std::atoi(argv[2]), cols = std::atoi(argv[3]);
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int pr = rank / dims[1], pc = rank % dims[1];
  const int gsizes[2] = {rows * dims[0], cols * dims[1]};
  const int lsizes[2] = {rows, cols};
  const int starts[2] = {pr * rows, pc * cols};
  MPI_Datatype sub;
  MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
  MPI_Type_commit(&sub);
  std::vector<double> block(static_cast<std::size_t>(rows) * cols);
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = rank * 1e6 + static_cast<double>(i);

  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  char header[64] = "ciosim checkpoint";
  if (rank == 0) MPI_File_write_at(fh, 0, header, 64, MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_set_view(fh, 64, MPI_DOUBLE, sub, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, block.data(), rows * cols, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);
  std::vector<double> back(block.size());
  MPI_File_read_at_all(fh, 0, back.data(), rows * cols, MPI_DOUBLE, MPI_STATUS_IGNORE);
  int ok = back == block ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (argc == 5) {
    MPI_Request req;
    double extra = rank;
    MPI_File_iwrite_at(fh, static_cast<MPI_Offset>(rows) * cols, &extra, 1, MPI_DOUBLE, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&fh);
  MPI_Type_free(&sub);
  MPI_Finalize();
  return ok ? 0 : 1;
}
