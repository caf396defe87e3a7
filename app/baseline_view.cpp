// `ciosim plan` for the baselines the collective techniques are compared with: Block I/O (the reference
// of Singh, Isaila, Pichel, Carretero, J. Supercomputing 47(1):53-75, 2009, §4.2), independent I/O and
// gathered I/O (Thakur, Gropp, Lusk, "Data Sieving and Collective I/O in ROMIO", Frontiers '99, §1-2),
// List I/O (Ching, Choudhary, Liao, Ross, Gropp, "Noncontiguous I/O through PVFS", Cluster 2002) and the
// sequential gather-and-write (Singh et al., "Multiple-Phase Collective I/O", PDP 2007, §5): which calls
// each rank makes and which file bytes they carry, from the same piece walk the techniques use.
#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

#include "algorithms/baselines/block_io.hpp"
#include "algorithms/common/access_list.hpp"
#include "app/commands.hpp"
#include "app/plan_views.hpp"

namespace ciosim::app {
namespace {

constexpr int kRanksShown = 16;  // rows of a per-rank table
constexpr int kPiecesShown = 4;  // pieces listed per rank
constexpr int kChunksShown = 8;  // gathered I/O's chunks listed

/// One rank's contiguous file pieces (storage order, adjacent ones merged: what the techniques issue).
struct Pieces {
  std::int64_t count = 0, bytes = 0, smallest = 0, largest = 0;
  std::vector<std::pair<Offset, Offset>> first;  ///< the first kPiecesShown (offset, length)
};

Pieces pieces_of(const Datatype& dt, std::int64_t es) {
  Pieces p;
  for_each_storage_piece(dt, es, [&](Offset off, Offset len) {
    if (p.count == 0 || len < p.smallest) p.smallest = len;
    p.largest = std::max(p.largest, len);
    if (p.count < kPiecesShown) p.first.emplace_back(off, len);
    ++p.count;
    p.bytes += len;
  });
  return p;
}

std::string first_pieces(const Pieces& p) {
  std::string s;
  for (const auto& [off, len] : p.first)
    s += (s.empty() ? "" : " ") + std::to_string(off) + "+" + std::to_string(len);
  return s + (p.count > static_cast<std::int64_t>(p.first.size()) ? " ..." : "");
}

/// A paragraph, wrapped at 100 columns, and an empty line.
void para(std::ostringstream& o, const std::string& text) {
  o << wrap(text, 0) << "\n\n";
}

/// "1 write_at call", "3 write_at calls".
std::string count(std::int64_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

/// "... (N more ranks)" after the shown rows, when there are more.
void more_ranks(std::ostringstream& o, int ranks) {
  if (ranks > kRanksShown) o << "  ... (" << ranks - kRanksShown << " more ranks)\n";
}

const Datatype& rank_type(const Distribution& d, int rank) {
  return d.per_rank[static_cast<std::size_t>(rank)];
}

/// Block I/O's rank-major ranges.
void block_text(std::ostringstream& o, const Distribution& d, const IoHints&, std::int64_t es) {
  const int P = d.nprocs();
  para(o,
       "Block I/O: every rank writes its entries, in the order it holds them, with one write_at right "
       "after the lower ranks' (the file is laid out rank by rank, not in x's order: the reference of the "
       "IEC comparison, not a collective write). No messages.");
  o << "  rank       entries          bytes  file bytes\n";
  for (int r = 0; r < std::min(P, kRanksShown); ++r) {
    const std::int64_t at = block_io::rank_offset(d, r) * es, n = rank_type(d, r).size();
    o << "  " << std::left << std::setw(6) << r << std::right << std::setw(12) << n << std::setw(15) << n * es
      << "  [" << at << ", " << at + n * es << ")\n";
  }
  more_ranks(o, P);
  o << "\n" << count(P, "write_at call") << " in all, one per rank.\n";
}

/// Independent I/O's pieces (list = false) or List I/O's batches of them.
void pieces_text(std::ostringstream& o, const Distribution& d, const IoHints& hints, std::int64_t es,
                 bool list) {
  const int P = d.nprocs();
  para(o, list
              ? "List I/O: each rank writes its own pieces of the file (storage order, adjacent ones merged) "
                "with write_list calls of at most hints.listio_batch = " +
                    std::to_string(hints.listio_batch) +
                    " regions each (ROMIO's PVFS2 driver's MAX_ARRAY_SIZE). No messages."
              : "Independent I/O: each rank writes each contiguous piece of its data in the file (storage "
                "order, adjacent ones merged) with a write_at of its own. No messages.");
  o << "  rank        pieces          bytes  piece sizes (B)      " << (list ? "write_list calls  " : "")
    << "first pieces (file offset+length, B)\n";
  std::int64_t calls = 0;
  for (int r = 0; r < P; ++r) {
    const Pieces p = pieces_of(rank_type(d, r), es);
    const std::int64_t rank_calls = list ? (p.count + hints.listio_batch - 1) / hints.listio_batch : p.count;
    calls += rank_calls;
    if (r >= kRanksShown) continue;
    o << "  " << std::left << std::setw(6) << r << std::right << std::setw(12) << p.count << std::setw(15)
      << p.bytes << "  " << std::left << std::setw(20)
      << (p.count == 0 ? "-" : std::to_string(p.smallest) + " .. " + std::to_string(p.largest)) << std::right;
    if (list) o << std::setw(16) << rank_calls << "  ";
    o << " " << first_pieces(p) << "\n";
  }
  more_ranks(o, P);
  o << "\n" << count(calls, list ? "write_list call" : "write_at call") << " in all.\n";
}

/// Gathered I/O's chunks and who sends what into each.
void gathered_text(std::ostringstream& o, const Distribution& d, const IoHints& hints, std::int64_t es) {
  const int P = d.nprocs();
  const Offset B = hints.cb_buffer_size;
  // Bytes of each chunk [k B, (k + 1) B) that each rank holds, from the same pieces.
  std::map<Offset, std::map<int, Offset>> chunks;
  Offset end = 0;
  for (int r = 0; r < P; ++r)
    for_each_storage_piece(rank_type(d, r), es, [&](Offset off, Offset len) {
      end = std::max(end, off + len);
      for (Offset at = off; at < off + len;) {
        const Offset k = at / B, upto = std::min(off + len, (k + 1) * B);
        chunks[k][r] += upto - at;
        at = upto;
      }
    });
  std::int64_t messages = 0;
  for (const auto& [k, from] : chunks) messages += static_cast<std::int64_t>(from.size() - from.count(0));
  para(o, "Gathered I/O: rank 0 alone writes the file, in file order, in chunks of hints.cb_buffer_size = " +
              std::to_string(B) +
              " bytes. First every other rank sends rank 0 its offset/length list (a Gather of the counts, "
              "then one message each); then, for every chunk, each other rank with bytes in it sends them in "
              "one message, and rank 0 places them and writes the chunk with one write_at.");
  o << "  chunk  file bytes                bytes from each rank (rank: bytes)\n";
  int shown = 0;
  for (const auto& [k, from] : chunks) {
    if (shown++ == kChunksShown) {
      o << "  ... (" << chunks.size() - kChunksShown << " more chunks)\n";
      break;
    }
    std::ostringstream who;
    int listed = 0;
    for (const auto& [r, bytes] : from) {
      if (listed++ == kRanksShown) {
        who << " ... (" << from.size() - kRanksShown << " more)";
        break;
      }
      who << (listed > 1 ? ", " : "") << r << ": " << bytes;
    }
    std::ostringstream span;
    span << "[" << k * B << ", " << std::min(end, (k + 1) * B) << ")";
    o << "  " << std::left << std::setw(7) << k << std::setw(26) << span.str() << who.str() << std::right
      << "\n";
  }
  o << "\n"
    << count(static_cast<std::int64_t>(chunks.size()), "write_at call") << ", all by rank 0; " << P - 1
    << " offset/length lists and " << messages << " data messages to rank 0.\n";
}

/// The sequential gather's bytes per rank and rank 0's one write.
void sequential_text(std::ostringstream& o, const Distribution& d, const IoHints&, std::int64_t es) {
  const int P = d.nprocs();
  para(o,
       "Sequential: every rank's entries are gathered at rank 0 (one MPI_Gatherv, in the order each rank "
       "holds them), rank 0 puts them in x's order and writes the whole file with one write_at of " +
           std::to_string(d.nx * es) + " bytes.");
  o << "  rank       entries   bytes to rank 0\n";
  for (int r = 0; r < std::min(P, kRanksShown); ++r)
    o << "  " << std::left << std::setw(6) << r << std::right << std::setw(12) << rank_type(d, r).size()
      << std::setw(18) << (r == 0 ? 0 : rank_type(d, r).size() * es) << "\n";
  more_ranks(o, P);
  o << "\n1 write_at call, by rank 0.\n";
}

struct BaselineView {
  const char* algorithm;
  void (*text)(std::ostringstream&, const Distribution&, const IoHints&, std::int64_t);
};

const BaselineView kViews[] = {
    {"block", block_text},
    {"independent", [](std::ostringstream& o, const Distribution& d, const IoHints& h,
                       std::int64_t es) { pieces_text(o, d, h, es, false); }},
    {"list-io", [](std::ostringstream& o, const Distribution& d, const IoHints& h,
                   std::int64_t es) { pieces_text(o, d, h, es, true); }},
    {"gathered", gathered_text},
    {"sequential", sequential_text},
};

const BaselineView* view_of(const std::string& algorithm) {
  for (const BaselineView& v : kViews)
    if (algorithm == v.algorithm) return &v;
  return nullptr;
}

}  // namespace

bool has_baseline_view(const std::string& algorithm) {
  return view_of(algorithm) != nullptr;
}

std::string baseline_text(const std::string& title, const Distribution& d, const std::string& algorithm,
                          const IoHints& hints, std::int64_t es) {
  const BaselineView* view = view_of(algorithm);
  if (view == nullptr) throw std::logic_error("baseline_text: no view of " + algorithm);
  std::ostringstream o;
  o << title << "\n\n";
  view->text(o, d, hints, es);
  return o.str();
}

}  // namespace ciosim::app
