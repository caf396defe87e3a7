// `ciosim plan SCENARIO` for view-based I/O: what set_view ships, which aggregator owns which file block,
// and what one collective write of the whole view does to the aggregators' pools and at the close, from
// the technique's own functions (algorithms/view_based/view_based.hpp).
// J. García Blas, F. Isaila, D. E. Singh, J. Carretero, "View-based collective I/O for MPI-IO", CCGrid 2008.
#include <algorithm>
#include <set>
#include <sstream>

#include "app/commands.hpp"
#include "app/plan_views.hpp"
#include "app/text_columns.hpp"

namespace ciosim::app {
namespace {

using columns::left;
using columns::num;
using columns::right;

constexpr std::size_t kBlocksListed = 8;  // block numbers listed per aggregator

}  // namespace

std::vector<view_based::ViewMap> view_maps(const Distribution& d, std::int64_t element_size,
                                           std::vector<std::int64_t>* words, std::vector<bool>* ordered) {
  std::vector<view_based::ViewMap> maps;
  for (int r = 0; r < d.nprocs(); ++r) {
    bool in_order = true;
    view_based::View v =
        view_based::make_view(d.per_rank[static_cast<std::size_t>(r)], element_size, 0, in_order);
    if (words) words->push_back(static_cast<std::int64_t>(view_based::serialize(v).size()));
    if (ordered) ordered->push_back(in_order);
    maps.emplace_back(std::move(v));
  }
  return maps;
}

std::string view_based_text(const std::string& title, const Distribution& d, const IoHints& hints,
                            std::int64_t element_size) {
  const int P = d.nprocs();
  const std::vector<int> aggs = view_based::aggregator_ranks(P, hints.vb_aggregators);
  const auto A = static_cast<int>(aggs.size());
  const Offset B = view_based::block_size(hints);
  const int pool = view_based::pool_buffers(hints);
  std::vector<int> agg_index(static_cast<std::size_t>(P), -1);
  for (int k = 0; k < A; ++k) agg_index[static_cast<std::size_t>(aggs[static_cast<std::size_t>(k)])] = k;

  std::vector<std::int64_t> words;
  std::vector<bool> ordered;
  const std::vector<view_based::ViewMap> maps = view_maps(d, element_size, &words, &ordered);
  Offset file_end = 0;
  for (const auto& m : maps) file_end = std::max(file_end, m.file_end());

  std::ostringstream out;
  out << title << "\n\n";
  out << wrap(
             "Step 1 (phase set_view). Each rank builds its view (its entries as offset-length tuples in "
             "file "
             "order, " +
                 num(element_size) +
                 " bytes an entry) and sends it to every aggregator but itself, after one Allgather of the "
                 "views' sizes; the view travels at every open, never with a call. " +
                 num(A) + " aggregator(s) of " + num(P) + " ranks (hints.vb_aggregators; 0 = all).",
             0)
      << "\n";
  out << "  " << left("rank", 6) << right("view bytes", 12) << right("tuples", 10) << right("shipped", 10)
      << right("to", 6) << right("bytes sent", 12) << "  file order\n";
  std::int64_t shipped_total = 0;
  for (int r = 0; r < P; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const int to = A - (agg_index[i] >= 0 ? 1 : 0);
    const std::int64_t bytes = words[i] * 8;
    shipped_total += bytes * to;
    out << "  " << left("P" + num(r), 6) << right(num(maps[i].bytes()), 12)
        << right(num((words[i] - 5) / 2), 10) << right(num(bytes), 10) << right(num(to), 6)
        << right(num(bytes * to), 12) << "  " << (ordered[i] ? "yes" : "no: sorted, the permutation kept")
        << "\n";
  }
  out << "  views shipped in all: " << shipped_total << " bytes\n";

  const std::int64_t blocks = (file_end + B - 1) / B;
  out << "\n"
      << wrap("Step 2. The file (" + num(file_end) + " bytes) is cut into " + num(blocks) + " blocks of " +
                  num(B) +
                  " bytes (hints.vb_buffer_size, else cb_buffer_size); block b belongs to aggregator b mod " +
                  num(A) + " for good. Each aggregator's pool holds " + num(pool) +
                  " buffer(s) (hints.vb_pool_size / block size).",
              0)
      << "\n";

  // One write of every rank's whole view: the blocks each rank touches, and each owner's share.
  std::vector<std::set<std::int64_t>> owned_touched(static_cast<std::size_t>(A));
  std::vector<std::int64_t> received(static_cast<std::size_t>(A), 0);
  std::vector<std::int64_t> received_bytes(static_cast<std::size_t>(A), 0);
  std::ostringstream senders;
  senders << "  " << left("rank", 6) << right("blocks", 8) << right("intervals", 11) << right("messages", 10)
          << right("bytes sent", 12) << right("kept local", 12) << "\n";
  for (int r = 0; r < P; ++r) {
    const auto pieces = view_based::pieces_of(maps[static_cast<std::size_t>(r)], r, B);
    std::vector<std::vector<view_based::Piece>> to(static_cast<std::size_t>(A));
    std::int64_t local = 0, intervals = 0, messages = 0, sent = 0;
    for (const auto& pc : pieces) {
      const int k = view_based::owner_index(pc.block, A);
      owned_touched[static_cast<std::size_t>(k)].insert(pc.block);
      if (aggs[static_cast<std::size_t>(k)] == r)
        local += pc.length;
      else
        to[static_cast<std::size_t>(k)].push_back(pc);
    }
    for (int k = 0; k < A; ++k) {
      const auto& mine = to[static_cast<std::size_t>(k)];
      if (mine.empty()) continue;
      ++intervals;
      const auto msgs = view_based::coalesce(mine, hints.vb_network_buffer);
      messages += static_cast<std::int64_t>(msgs.size());
      received[static_cast<std::size_t>(k)] += static_cast<std::int64_t>(msgs.size());
      for (const auto& m : msgs) {
        sent += view_based::message_bytes(m);
        received_bytes[static_cast<std::size_t>(k)] += view_based::message_bytes(m);
      }
    }
    senders << "  " << left("P" + num(r), 6) << right(num(static_cast<std::int64_t>(pieces.size())), 8)
            << right(num(intervals), 11) << right(num(messages), 10) << right(num(sent), 12)
            << right(num(local), 12) << "\n";
  }
  out << "  " << left("aggregator", 12) << left("rank", 6) << right("blocks", 8) << "  first blocks\n";
  for (int k = 0; k < A; ++k) {
    const auto& set = owned_touched[static_cast<std::size_t>(k)];
    std::string first;
    std::size_t n = 0;
    for (std::int64_t b : set) {
      if (n++ == kBlocksListed) {
        first += " ...";
        break;
      }
      first += " " + num(b);
    }
    out << "  " << left("A" + num(k), 12) << left("P" + num(aggs[static_cast<std::size_t>(k)]), 6)
        << right(num(static_cast<std::int64_t>(set.size())), 8) << " " << first << "\n";
  }

  out << "\n"
      << wrap(
             "Step 3 (phase write), one collective write of every rank's whole view: a rank sends each "
             "aggregator owning blocks its view touches the extremities of the call's view interval (two "
             "numbers), then its pieces of that aggregator's blocks coalesced into network buffers of " +
                 num(hints.vb_network_buffer) +
                 " bytes (hints.vb_network_buffer); its own blocks it scatters itself. The aggregator finds "
                 "each piece's place from the stored view and scatters the messages as they arrive. No "
                 "offset-length list travels.",
             0)
      << "\n"
      << senders.str() << "\n";
  out << "  " << left("aggregator", 12) << right("messages in", 12) << right("bytes in", 12)
      << right("blocks", 8) << right("written back", 14) << right("dirty at close", 16) << "\n";
  for (int k = 0; k < A; ++k) {
    const auto touched = static_cast<std::int64_t>(owned_touched[static_cast<std::size_t>(k)].size());
    // Blocks in increasing order through an LRU pool of `pool` buffers: each block past the first `pool`
    // evicts a dirty one, written back during the call; the last `pool` stay dirty until the close.
    const std::int64_t evicted = std::max<std::int64_t>(0, touched - pool);
    out << "  " << left("A" + num(k), 12) << right(num(received[static_cast<std::size_t>(k)]), 12)
        << right(num(received_bytes[static_cast<std::size_t>(k)]), 12) << right(num(touched), 8)
        << right(num(evicted), 14) << right(num(touched - evicted), 16) << "\n";
  }
  out << "\n"
      << wrap(
             "Step 4 (phase flush, at close). Every aggregator writes its dirty buffers in file order: the "
             "write-on-close. A block written back during the call (a pool too small for the aggregator's "
             "blocks) cost the write call that time instead. A read of the same view finds the blocks still "
             "in the pools when the file was not closed in between, and reads the others from the file.",
             0)
      << "\n";
  return out.str();
}

}  // namespace ciosim::app
