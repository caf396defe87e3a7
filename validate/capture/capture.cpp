// libciosim-capture.so: records an MPI application's MPI-IO calls through the MPI profiling interface
// (PMPI), preloaded into its ranks:
//
//   mpiexec -n 4 -x LD_PRELOAD=build/libciosim-capture.so -x CIOSIM_CAPTURE_DIR=cap ./app   (Open MPI)
//   mpiexec -n 4 -genv LD_PRELOAD build/libciosim-capture.so -genv CIOSIM_CAPTURE_DIR cap ./app (MPICH)
//
// Each wrapper calls the library's PMPI_ function and notes the call: its start and end on the rank's
// clock (seconds since MPI_Init), and for a data call the file bytes it accessed — the file view
// (displacement, filetype flattened with MPI_Type_get_envelope/get_contents) applied to the individual
// file pointer or the explicit offset. MPI_Finalize writes the folder: trace.json (rank 0) and rank-R.txt
// (config/capture_trace.hpp has the format). Calls ciosim cannot replay (non-blocking, split collective,
// shared file pointer, set_size, preallocate) are noted as `unsupported` by name. C bindings only: a
// Fortran application's calls go through other symbols and are not seen.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/capture_trace.hpp"

using ciosim::config::ByteRun;

namespace {

/// Whether `t` is a predefined datatype (MPI_DOUBLE ...), which get_contents does not return copies of.
bool named(MPI_Datatype t) {
  int ni = 0, na = 0, nd = 0, comb = 0;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  return comb == MPI_COMBINER_NAMED;
}

/// The datatypes MPI_Type_get_contents returned: the derived ones are copies the caller must free.
struct ContentTypes {
  std::vector<MPI_Datatype> types;
  explicit ContentTypes(std::size_t n) : types(n) {}
  ContentTypes(const ContentTypes&) = delete;
  ContentTypes& operator=(const ContentTypes&) = delete;
  ~ContentTypes() {
    for (MPI_Datatype& d : types)
      if (!named(d)) PMPI_Type_free(&d);
  }
};

/// The runs of one instance of `t` placed at `base`, in typemap order, appended to `out` (joined where
/// one continues the last). Throws std::runtime_error naming a constructor it cannot flatten.
void flatten(MPI_Datatype t, std::int64_t base, std::vector<ByteRun>& out) {
  int ni = 0, na = 0, nd = 0, comb = 0;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  const auto add = [&](std::int64_t off, std::int64_t len) {
    if (len <= 0) return;
    if (!out.empty() && out.back().offset + out.back().length == off)
      out.back().length += len;
    else
      out.push_back({off, len});
  };
  if (comb == MPI_COMBINER_NAMED) {
    int size = 0;
    PMPI_Type_size(t, &size);
    add(base, size);
    return;
  }
  std::vector<int> ints(static_cast<std::size_t>(ni));
  std::vector<MPI_Aint> aints(static_cast<std::size_t>(na));
  ContentTypes contents(static_cast<std::size_t>(nd));  // freed however this returns
  const std::vector<MPI_Datatype>& types = contents.types;
  PMPI_Type_get_contents(t, ni, na, nd, ints.data(), aints.data(), contents.types.data());
  const auto extent = [](MPI_Datatype d) {
    MPI_Aint lb = 0, ext = 0;
    PMPI_Type_get_extent(d, &lb, &ext);
    return static_cast<std::int64_t>(ext);
  };
  // One element of `d` at `at`: a named contiguous type as one run, else flattened.
  const auto element = [&](MPI_Datatype d, std::int64_t at, std::int64_t n) {
    if (named(d)) {
      int size = 0;
      PMPI_Type_size(d, &size);
      if (size == extent(d)) return add(at, size * n);
    }
    const std::int64_t e = extent(d);
    for (std::int64_t k = 0; k < n; ++k) flatten(d, at + k * e, out);
  };
  const MPI_Datatype old = nd > 0 ? types[0] : MPI_DATATYPE_NULL;
  switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:  // lb and extent change the tiling, not the bytes of one instance
      element(old, base, 1);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      element(old, base, ints[0]);
      break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
      const std::int64_t stride = comb == MPI_COMBINER_VECTOR ? ints[2] * extent(old) : aints[0];
      for (int i = 0; i < ints[0]; ++i) element(old, base + i * stride, ints[1]);
      break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: {
      const int n = ints[0];
      for (int i = 0; i < n; ++i) {
        const std::int64_t d = comb == MPI_COMBINER_INDEXED ? ints[1 + n + i] * extent(old) : aints[i];
        element(old, base + d, ints[1 + i]);
      }
      break;
    }
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
      const int n = ints[0];
      for (int i = 0; i < n; ++i) {
        const std::int64_t d = comb == MPI_COMBINER_INDEXED_BLOCK ? ints[2 + i] * extent(old) : aints[i];
        element(old, base + d, ints[1]);
      }
      break;
    }
    case MPI_COMBINER_STRUCT: {
      const int n = ints[0];
      for (int i = 0; i < n; ++i) element(types[static_cast<std::size_t>(i)], base + aints[i], ints[1 + i]);
      break;
    }
    case MPI_COMBINER_SUBARRAY: {
      const int dims = ints[0];
      const int* sizes = &ints[1];
      const int* sub = &ints[1 + dims];
      const int* starts = &ints[1 + 2 * dims];
      const bool c_order = ints[1 + 3 * dims] == MPI_ORDER_C;
      const std::int64_t e = extent(old);
      // Dimensions from the slowest to the fastest varying.
      std::vector<int> order(static_cast<std::size_t>(dims));
      for (int d = 0; d < dims; ++d) order[static_cast<std::size_t>(d)] = c_order ? d : dims - 1 - d;
      std::vector<std::int64_t> step(static_cast<std::size_t>(dims));  // elements per index of a dimension
      std::int64_t s = 1;
      for (int k = dims - 1; k >= 0; --k) {
        step[static_cast<std::size_t>(k)] = s;
        s *= sizes[order[static_cast<std::size_t>(k)]];
      }
      std::vector<int> idx(static_cast<std::size_t>(dims), 0);
      const int fast = order[static_cast<std::size_t>(dims - 1)];
      for (bool more = dims > 0; more;) {
        std::int64_t at = 0;
        for (int k = 0; k < dims - 1; ++k) {
          const int d = order[static_cast<std::size_t>(k)];
          at += (starts[d] + idx[static_cast<std::size_t>(k)]) * step[static_cast<std::size_t>(k)];
        }
        at += starts[fast];
        element(old, base + at * e, sub[fast]);  // a row along the fastest dimension
        more = false;
        for (int k = dims - 2; k >= 0; --k) {
          if (++idx[static_cast<std::size_t>(k)] < sub[order[static_cast<std::size_t>(k)]]) {
            more = true;
            break;
          }
          idx[static_cast<std::size_t>(k)] = 0;
        }
      }
      break;
    }
    default:
      throw std::runtime_error("a filetype built with combiner " + std::to_string(comb) +
                               " (darray, or an F90 type), which the capture cannot flatten");
  }
}

struct FileState {
  int id = 0;
  std::int64_t disp = 0;
  std::int64_t etype = 1;
  std::int64_t extent = 1;
  std::int64_t tile_bytes = 1;               ///< bytes of one filetype instance
  std::vector<ByteRun> runs{ByteRun{0, 1}};  ///< the filetype's runs
  bool view_ok = true;                       ///< false after a view the capture could not flatten
};

struct Capture {
  double t0 = 0;
  bool started = false;
  int next_id = 1;
  std::map<MPI_File, FileState> files;
  std::ostringstream lines;
} cap;

double now() {
  return PMPI_Wtime() - cap.t0;
}

void note(const char* kind, double start, double end, const std::string& rest) {
  char times[64];
  std::snprintf(times, sizeof times, " %.9f %.9f", start, end);
  cap.lines << kind << times << (rest.empty() ? "" : " ") << rest << "\n";
}

std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

/// The file bytes of `bytes` bytes of data starting `pos` bytes into the view's data.
std::vector<ByteRun> regions(const FileState& f, std::int64_t pos, std::int64_t bytes) {
  std::vector<ByteRun> out;
  if (bytes <= 0 || f.tile_bytes <= 0) return out;
  std::int64_t tile = pos / f.tile_bytes;
  std::int64_t within = pos % f.tile_bytes;
  while (bytes > 0) {
    for (const ByteRun& r : f.runs) {
      if (bytes <= 0) break;
      if (within >= r.length) {
        within -= r.length;
        continue;
      }
      const std::int64_t take = std::min(r.length - within, bytes);
      const std::int64_t at = f.disp + tile * f.extent + r.offset + within;
      if (!out.empty() && out.back().offset + out.back().length == at)
        out.back().length += take;
      else
        out.push_back({at, take});
      bytes -= take;
      within = 0;
    }
    ++tile;
  }
  return out;
}

std::int64_t bytes_of(int count, MPI_Datatype t) {
  int size = 0;
  PMPI_Type_size(t, &size);
  return static_cast<std::int64_t>(count) * size;
}

/// A data call: `pointer` for the individual file pointer's calls (read before the call), else `offset`.
template <class Call>
int data_call(const char* kind, MPI_File fh, bool explicit_offset, MPI_Offset offset, int count,
              MPI_Datatype type, Call call) {
  if (!cap.started) return call();
  const auto it = cap.files.find(fh);
  MPI_Offset at = offset;
  if (!explicit_offset) PMPI_File_get_position(fh, &at);
  const double start = now();
  const int rc = call();
  const double end = now();
  if (it == cap.files.end() || !it->second.view_ok) {
    note("unsupported", start, end,
         std::string("call=MPI_File_") + kind + "(a view the capture could not flatten)");
    return rc;
  }
  const FileState& f = it->second;
  const std::int64_t n = bytes_of(count, type);
  std::string rest = "fh=" + std::to_string(f.id);
  if (explicit_offset) rest += " offset=" + std::to_string(offset);
  rest += " bytes=" + std::to_string(n) + " regions=" +
          ciosim::config::format_regions(regions(f, static_cast<std::int64_t>(at) * f.etype, n));
  note(kind, start, end, rest);
  return rc;
}

/// A call a replay cannot reproduce: `call` (the PMPI function) run, and noted by name.
template <class Call>
int unsupported(const char* name, Call call) {
  const double start = cap.started ? now() : 0;
  const int rc = call();
  if (cap.started) note("unsupported", start, now(), std::string("call=") + name);
  return rc;
}

std::string program() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : all)
    if (c == '\0') c = ' ';
  while (!all.empty() && all.back() == ' ') all.pop_back();
  return all;
}

void write_capture() {
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  PMPI_Get_processor_name(name, &len);
  std::vector<char> names(rank == 0 ? static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME : 1);
  PMPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
              MPI_COMM_WORLD);
  const char* env = std::getenv("CIOSIM_CAPTURE_DIR");
  const std::filesystem::path dir = env && *env ? env : "ciosim-capture";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  {
    std::ofstream out(dir / ("rank-" + std::to_string(rank) + ".txt"), std::ios::binary);
    out << "# ciosim-trace 1: rank " << rank << "'s MPI-IO calls (config/capture_trace.hpp)\n"
        << cap.lines.str();
    if (!out)
      std::fprintf(stderr, "ciosim capture: cannot write %s\n",
                   (dir / ("rank-" + std::to_string(rank) + ".txt")).c_str());
  }
  if (rank == 0) {
    nlohmann::ordered_json h;
    h["format"] = "ciosim-trace";
    h["version"] = 1;
    h["ranks"] = size;
    std::vector<std::string> hosts;
    for (int r = 0; r < size; ++r)
      hosts.emplace_back(&names[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    h["hosts"] = hosts;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int ll = 0;
    PMPI_Get_library_version(lib, &ll);
    std::string l(lib, static_cast<std::size_t>(ll));
    l = l.substr(0, l.find_first_of("\n,"));  // the first line: "Open MPI v4.1.4", "MPICH Version:\t4.0.2"
    std::replace(l.begin(), l.end(), '\t', ' ');
    h["mpi_library"] = l;
    h["program"] = program();
    std::ofstream out(dir / "trace.json", std::ios::binary);
    out << h.dump(2) << "\n";
  }
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  cap.t0 = PMPI_Wtime();
  cap.started = true;
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  cap.t0 = PMPI_Wtime();
  cap.started = true;
  return rc;
}

int MPI_Finalize(void) {
  if (cap.started) write_capture();
  cap.started = false;
  return PMPI_Finalize();
}

int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  const double start = cap.started ? now() : 0;
  const int rc = PMPI_File_open(comm, filename, amode, info, fh);
  if (!cap.started || rc != MPI_SUCCESS) return rc;
  int size = 0;
  PMPI_Comm_size(comm, &size);
  FileState f;
  f.id = cap.next_id++;
  cap.files[*fh] = f;
  note("open", start, now(),
       "fh=" + std::to_string(f.id) + " comm=" + std::to_string(size) + " amode=" + std::to_string(amode) +
           " path=" + quoted(filename));
  return rc;
}

int MPI_File_close(MPI_File* fh) {
  const MPI_File h = *fh;
  const double start = cap.started ? now() : 0;
  const int rc = PMPI_File_close(fh);
  const auto it = cap.files.find(h);
  if (!cap.started || it == cap.files.end()) return rc;
  note("close", start, now(), "fh=" + std::to_string(it->second.id));
  cap.files.erase(it);
  return rc;
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char* datarep, MPI_Info info) {
  const double start = cap.started ? now() : 0;
  const int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
  const auto it = cap.files.find(fh);
  if (!cap.started || it == cap.files.end()) return rc;
  FileState& f = it->second;
  f.disp = disp;
  int es = 0, ts = 0;
  PMPI_Type_size(etype, &es);
  PMPI_Type_size(filetype, &ts);
  MPI_Aint lb = 0, ext = 0;
  PMPI_Type_get_extent(filetype, &lb, &ext);
  f.etype = es;
  f.extent = ext;
  f.tile_bytes = ts;
  f.runs.clear();
  try {
    flatten(filetype, 0, f.runs);
    f.view_ok = true;
    note("view", start, now(),
         "fh=" + std::to_string(f.id) + " disp=" + std::to_string(disp) + " etype=" + std::to_string(es) +
             " extent=" + std::to_string(ext) + " runs=" + ciosim::config::format_regions(f.runs));
  } catch (const std::exception& e) {
    f.view_ok = false;
    note("unsupported", start, now(), std::string("call=MPI_File_set_view(") + e.what() + ")");
  }
  return rc;
}

#define CIOSIM_DATA(NAME, KIND, PTR_T, EXPLICIT)                                                      \
  int MPI_File_##NAME(MPI_File fh, PTR_T buf, int count, MPI_Datatype datatype, MPI_Status* status) { \
    return data_call(KIND, fh, false, 0, count, datatype,                                             \
                     [&] { return PMPI_File_##NAME(fh, buf, count, datatype, status); });             \
  }
#define CIOSIM_DATA_AT(NAME, KIND, PTR_T)                                                          \
  int MPI_File_##NAME(MPI_File fh, MPI_Offset offset, PTR_T buf, int count, MPI_Datatype datatype, \
                      MPI_Status* status) {                                                        \
    return data_call(KIND, fh, true, offset, count, datatype,                                      \
                     [&] { return PMPI_File_##NAME(fh, offset, buf, count, datatype, status); });  \
  }
CIOSIM_DATA(write, "write", const void*, false)
CIOSIM_DATA(write_all, "write_all", const void*, false)
CIOSIM_DATA(read, "read", void*, false)
CIOSIM_DATA(read_all, "read_all", void*, false)
CIOSIM_DATA_AT(write_at, "write_at", const void*)
CIOSIM_DATA_AT(write_at_all, "write_at_all", const void*)
CIOSIM_DATA_AT(read_at, "read_at", void*)
CIOSIM_DATA_AT(read_at_all, "read_at_all", void*)
#undef CIOSIM_DATA
#undef CIOSIM_DATA_AT

int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  const double start = cap.started ? now() : 0;
  const int rc = PMPI_File_seek(fh, offset, whence);
  const auto it = cap.files.find(fh);
  if (!cap.started || it == cap.files.end()) return rc;
  MPI_Offset pos = 0;
  PMPI_File_get_position(fh, &pos);
  note("seek", start, now(), "fh=" + std::to_string(it->second.id) + " offset=" + std::to_string(pos));
  return rc;
}

int MPI_File_sync(MPI_File fh) {
  const double start = cap.started ? now() : 0;
  const int rc = PMPI_File_sync(fh);
  const auto it = cap.files.find(fh);
  if (cap.started && it != cap.files.end()) note("sync", start, now(), "fh=" + std::to_string(it->second.id));
  return rc;
}

// Calls a replay cannot reproduce: noted by name, passed through.
int MPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype t, MPI_Request* r) {
  return unsupported("MPI_File_iwrite", [&] { return PMPI_File_iwrite(fh, buf, count, t, r); });
}
int MPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype t, MPI_Request* r) {
  return unsupported("MPI_File_iread", [&] { return PMPI_File_iread(fh, buf, count, t, r); });
}
int MPI_File_iwrite_at(MPI_File fh, MPI_Offset o, const void* buf, int count, MPI_Datatype t,
                       MPI_Request* r) {
  return unsupported("MPI_File_iwrite_at", [&] { return PMPI_File_iwrite_at(fh, o, buf, count, t, r); });
}
int MPI_File_iread_at(MPI_File fh, MPI_Offset o, void* buf, int count, MPI_Datatype t, MPI_Request* r) {
  return unsupported("MPI_File_iread_at", [&] { return PMPI_File_iread_at(fh, o, buf, count, t, r); });
}
int MPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype t, MPI_Status* st) {
  return unsupported("MPI_File_write_shared", [&] { return PMPI_File_write_shared(fh, buf, count, t, st); });
}
int MPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype t, MPI_Status* st) {
  return unsupported("MPI_File_read_shared", [&] { return PMPI_File_read_shared(fh, buf, count, t, st); });
}
int MPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype t, MPI_Status* st) {
  return unsupported("MPI_File_write_ordered",
                     [&] { return PMPI_File_write_ordered(fh, buf, count, t, st); });
}
int MPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype t, MPI_Status* st) {
  return unsupported("MPI_File_read_ordered", [&] { return PMPI_File_read_ordered(fh, buf, count, t, st); });
}
int MPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype t) {
  return unsupported("MPI_File_write_all_begin",
                     [&] { return PMPI_File_write_all_begin(fh, buf, count, t); });
}
int MPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype t) {
  return unsupported("MPI_File_read_all_begin", [&] { return PMPI_File_read_all_begin(fh, buf, count, t); });
}
int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  return unsupported("MPI_File_set_size", [&] { return PMPI_File_set_size(fh, size); });
}
int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  return unsupported("MPI_File_preallocate", [&] { return PMPI_File_preallocate(fh, size); });
}

}  // extern "C"
