// The BIPS3D I/O kernel's write as the application makes it (Filgueira, Singh, Pichel, Isaila, Carretero,
// VECPAR 2008: each rank writes its mesh nodes through an MPI_Type_indexed file view), for the replay test
// (tests/test_capture.cpp): an unstructured indexed view. The partition file holds one owner rank per mesh
// node and line (METIS's asignacionP format); every node carries LOAD floats; rank r's view is one block per
// run of consecutive nodes it owns, and it writes them with one MPI_File_write_all — the file the `mesh`
// workload describes. The MPI C interface only. Usage: mpiexec -n P ciosim_capture_mesh FILE PARTITION LOAD
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    std::fprintf(stderr, "usage: mesh FILE PARTITION LOAD\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int load = std::atoi(argv[3]);
  std::ifstream part(argv[2]);
  std::vector<int> owner;
  for (int o; part >> o;) owner.push_back(o);
  if (owner.empty() || load < 1) {
    std::fprintf(stderr, "mesh: cannot read the partition %s, or LOAD < 1\n", argv[2]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::vector<int> lengths, starts;  // in floats
  for (int i = 0; i < static_cast<int>(owner.size()); ++i) {
    if (owner[static_cast<std::size_t>(i)] != rank) continue;
    if (!starts.empty() && starts.back() + lengths.back() == i * load)
      lengths.back() += load;
    else
      starts.push_back(i * load), lengths.push_back(load);
  }
  int count = 0;
  for (const int l : lengths) count += l;
  MPI_Datatype view;
  MPI_Type_indexed(static_cast<int>(lengths.size()), lengths.data(), starts.data(), MPI_FLOAT, &view);
  MPI_Type_commit(&view);
  std::vector<float> data(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(rank * 1000 + i);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_FLOAT, view, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, data.data(), count, MPI_FLOAT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&view);
  MPI_Finalize();
  return 0;
}
