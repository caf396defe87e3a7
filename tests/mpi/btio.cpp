// NPB BT-IO's full MPI-IO mode as the benchmark makes its calls, for the replay test
// (tests/test_capture.cpp): an N^3 grid of 5 doubles a point (Fortran order, x fastest) in BT's
// multi-partition decomposition (q = sqrt(P); rank i + q*j owns the q cells at slab coordinates
// ((i + c) mod q, (j - c) mod q, c), the first N mod q slabs of each direction one point thicker), each cell
// an MPI_Type_create_subarray of the whole array, the q of them one MPI_Type_create_struct. The file is
// opened, the view set once, STEPS time steps written with MPI_File_write_at_all one solution apart (BT's
// solver spun 1 ms between them), closed; opened again, the steps read back with MPI_File_read_at_all and
// compared. The calls the `btio` workload's operation sequence "open (write next)*STEPS close open (read
// next)*STEPS close" makes. The MPI C interface only. Usage: mpiexec -n P ciosim_capture_btio FILE N STEPS
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int q = static_cast<int>(std::lround(std::sqrt(size)));
  if (argc != 4 || q * q != size) {
    std::fprintf(stderr, "usage: btio FILE N STEPS (on a square number of ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = std::atoi(argv[2]), steps = std::atoi(argv[3]);
  const int cell = n / q, excess = n % q;
  std::vector<MPI_Datatype> cells(static_cast<std::size_t>(q));
  std::vector<int> ones(static_cast<std::size_t>(q), 1);
  std::vector<MPI_Aint> zeros(static_cast<std::size_t>(q), 0);
  int points = 0;
  for (int c = 0; c < q; ++c) {
    const int coord[3] = {(rank % q + c) % q, ((rank / q - c) % q + q) % q, c};
    int sizes[4] = {5, n, n, n}, subsizes[4] = {5, 0, 0, 0}, starts[4] = {0, 0, 0, 0};
    int cell_points = 1;
    for (int d = 0; d < 3; ++d) {
      const int k = coord[d];
      subsizes[d + 1] = k < excess ? cell + 1 : cell;
      starts[d + 1] = k < excess ? k * (cell + 1) : excess * (cell + 1) + (k - excess) * cell;
      cell_points *= subsizes[d + 1];
    }
    points += cell_points;
    MPI_Type_create_subarray(4, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE,
                             &cells[static_cast<std::size_t>(c)]);
  }
  MPI_Datatype view;
  MPI_Type_create_struct(q, ones.data(), zeros.data(), cells.data(), &view);
  MPI_Type_commit(&view);
  const int count = 5 * points;
  // An explicit offset counts the view's etypes: a rank's count of them is one whole solution further (the
  // filetype's extent is the whole array).
  const MPI_Offset step = count;
  std::vector<double> u(static_cast<std::size_t>(count)), back(u.size());
  int ok = 1;
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_DOUBLE, view, "native", MPI_INFO_NULL);
  for (int s = 0; s < steps; ++s) {
    const double until = MPI_Wtime() + 0.001;  // the solver's time steps between two outputs
    while (MPI_Wtime() < until) {
    }
    for (std::size_t i = 0; i < u.size(); ++i) u[i] = s * 1e9 + rank * 1e6 + static_cast<double>(i);
    MPI_File_write_at_all(fh, s * step, u.data(), count, MPI_DOUBLE, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&fh);
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_DOUBLE, view, "native", MPI_INFO_NULL);
  for (int s = 0; s < steps; ++s) {
    MPI_File_read_at_all(fh, s * step, back.data(), count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    for (std::size_t i = 0; i < back.size(); ++i)
      if (back[i] != s * 1e9 + rank * 1e6 + static_cast<double>(i)) ok = 0;
  }
  MPI_File_close(&fh);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (MPI_Datatype& t : cells) MPI_Type_free(&t);
  MPI_Type_free(&view);
  MPI_Finalize();
  return ok ? 0 : 1;
}
