// MPI-Tile-IO's write as an application makes it, for the replay test (tests/test_capture.cpp): a row-major
// 2-D array of TILES_X x TILES_Y tiles of TILE_X x TILE_Y doubles after a header of HEADER doubles; rank r
// owns tile (r mod TILES_X, r div TILES_X). Every rank sets a view of its tile (MPI_Type_create_subarray at
// the header's end) and writes it with one MPI_File_write_all; rank 0's view also holds the header (an
// MPI_Type_indexed of the header and its tile's rows), which it writes in the same call — the file the
// `tile` workload describes (config/workload.cpp), so the two must make the same calls. The MPI C interface
// only. Usage: mpiexec -n P ciosim_capture_tile FILE TILES_X TILES_Y TILE_X TILE_Y HEADER
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 7) {
    std::fprintf(stderr, "usage: tile FILE TILES_X TILES_Y TILE_X TILE_Y HEADER\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int tiles_x = std::atoi(argv[2]), tiles_y = std::atoi(argv[3]);
  const int tile_x = std::atoi(argv[4]), tile_y = std::atoi(argv[5]), header = std::atoi(argv[6]);
  if (tiles_x * tiles_y != size || tile_x < 1 || tile_y < 1 || header < 0) {
    std::fprintf(stderr, "tile: TILES_X x TILES_Y must be the rank count, the tile sizes >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int tx = rank % tiles_x, ty = rank / tiles_x;
  const int row = tiles_x * tile_x;
  MPI_Datatype view;
  MPI_Offset disp = 0;
  int count = tile_x * tile_y;
  if (rank == 0 && header > 0) {
    std::vector<int> lengths{header}, starts{0};
    for (int y = 0; y < tile_y; ++y) {
      lengths.push_back(tile_x);
      starts.push_back(header + (ty * tile_y + y) * row + tx * tile_x);
    }
    MPI_Type_indexed(static_cast<int>(lengths.size()), lengths.data(), starts.data(), MPI_DOUBLE, &view);
    count += header;
  } else {
    const int gsizes[2] = {tiles_y * tile_y, row}, lsizes[2] = {tile_y, tile_x};
    const int starts[2] = {ty * tile_y, tx * tile_x};
    MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &view);
    disp = static_cast<MPI_Offset>(header) * 8;
  }
  MPI_Type_commit(&view);
  std::vector<double> data(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = rank * 1e6 + static_cast<double>(i);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, disp, MPI_DOUBLE, view, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, data.data(), count, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&view);
  MPI_Finalize();
  return 0;
}
