// The step-by-step explanations `ciosim list` prints under each technique. Sources: the papers each
// technique cites in the registry (algorithms/technique.cpp); docs/techniques.md expands every step.
#include "app/technique_steps.hpp"

#include <map>

namespace ciosim::app {

const std::vector<std::string>& technique_steps(const std::string& name) {
  static const std::map<std::string, std::vector<std::string>> steps = {
      {"iec",
       {"Inspector (once): every rank lists the logical index of each entry it holds and allocates Nx/Np + "
        "log2(Np) * Nx/(2Np) memory slots; its own entries go to slot alloc_offset = popcount(r) * Nx/(2Np).",
        "Phase k (k = 1..log2 Np): rank r pairs with r XOR 2^(k-1); the pair splits its common file range in "
        "two halves, and each rank sends the Nx/(2Np) entries that lie in the partner's half as one "
        "offset-length datatype, receiving the partner's into slots recv_offset onwards.",
        "The inspector only exchanges these datatypes (recursively, so that each rank knows where its "
        "partner's "
        "entries sit), never data; the plan is reused by every later write.",
        "Executor (every write): the same exchanges with real data, phase after phase.",
        "Pack: each rank now holds the contiguous chunk bitreverse(r) of x; it packs it in logical order and "
        "writes it with one contiguous request at file_offset = bitreverse(r) * Nx/Np.",
        "See it: ciosim plan --nx 16 --np 4 (the paper's worked example)."}},
      {"iec-parametric",
       {"Plan (once, no messages): every rank derives IEC's plan from Nx, Np and Bx alone. What it holds of "
        "each origin rank is one block of that rank's entries, and its memory holds them in ascending origin "
        "order (Fig. 4 orders the receive regions by partner); the receive region of phase k holds the "
        "partner's blocks of the rank's new half, origin by origin.",
        "The send datatype of phase k: the blocks' entries in the partner's half, in ascending memory order; "
        "the packing datatype: the chunk's entries in logical order. Both equal the inspector's; the rank is "
        "charged the steps of that computation (or, with run.cpu_charge = paper, the tuples they have).",
        "Executor (every write): IEC's exchanges, pack and contiguous write.",
        "Compare: ciosim run scenarios/quickstart.toml --set run.algorithm=[iec,iec-parametric]."}},
      {"block",
       {"No communication: every rank writes its own entries, in the order it stores them, as one contiguous "
        "request.",
        "Rank r writes at the byte after rank r-1's entries, so the file is rank-major, not x in order: a "
        "lower bound for what any collective technique can achieve."}},
      {"two-phase",
       {"Each rank flattens its file view into offset-length pieces; two Allgathers share every rank's first "
        "and last byte.",
        "Interleave test: unless some rank's range starts before its neighbour's ends (or romio_cb_write = "
        "enable), every rank writes independently and nothing else happens.",
        "Aggregators (cb_config_list, cb_nodes; one per host by default) each get a file domain: the "
        "accessed "
        "range split evenly, aligned to striping_unit when given.",
        "Each rank cuts its pieces at domain boundaries and tells each aggregator which pieces it will send "
        "(Alltoall of counts, then the lists).",
        "Rounds: each aggregator takes its domain cb_buffer_size bytes at a time; the ranks send it their "
        "bytes "
        "of the window, it reads the window first if the data leave holes, then writes it contiguously.",
        "With hints.lap = acn or avn, the aggregator of each domain is first chosen by a linear assignment "
        "that maximises the data (avn) or pieces (acn) each host already holds in it (LAP).",
        "See it: ciosim plan SCENARIO --set run.algorithm=two-phase --point K."}},
      {"list-io",
       {"No communication: every rank sends the file system its pieces as lists of up to hints.listio_batch "
        "offset-length regions per request, one request after the other.",
        "The client splits each request by stripe; each I/O server handles its regions one by one, so many "
        "small regions cost a per-region overhead."}},
      {"independent",
       {"No communication: every rank writes each contiguous piece of its data with its own request, in the "
        "order it stores them.",
        "One file-system request per piece: cheap for large pieces, ruinous for small ones."}},
      {"gathered",
       {"Rank 0 collects every rank's offset-length list.",
        "The file is taken cb_buffer_size bytes at a time in file order: each rank sends rank 0 its bytes of "
        "the chunk, and rank 0 writes the chunk with one contiguous request.",
        "Only rank 0 touches the file (reads: rank 0 reads each chunk and sends every rank its part)."}},
      {"multiple-phase",
       {"Every rank keeps the whole array's memory; its own block of rows is its initial data.",
        "Phase k (k = 1..run.phases): rank r pairs with its butterfly partner r XOR 2^(k-1), keeps half of "
        "its current range of planes and swaps the other half with the partner; the datatypes are closed "
        "forms of the regular distribution (no inspector).",
        "After the phases every rank writes what it holds with one access through a file view: a list of "
        "pieces, or one contiguous block after log2 Np phases.",
        "Fewer phases: less communication, more and smaller pieces to write."}},
      {"sequential",
       {"One Gatherv brings every rank's entries to rank 0.",
        "Rank 0 puts them in the array's order and writes the whole file with one contiguous request; no "
        "other "
        "rank touches the file."}},
      {"view-based",
       {"At set_view (once per open) every rank sends its view (displacement, element size, flattened "
        "filetype) to every aggregator, which keeps all of them; nothing about the view travels again.",
        "The file is cut into blocks of hints.vb_buffer_size bytes, owned round-robin by the aggregators: "
        "a static mapping, no per-call file domains and no offset-length lists.",
        "A write sends, for each block the rank's view touches, one message (its interval in view space and "
        "the bytes) to the block's owner, which scatters it through the stored view into a cached buffer.",
        "Each aggregator keeps up to hints.vb_pool_size bytes of buffers (LRU): a dirty buffer is written "
        "when it is evicted, at sync and at close (write-on-close), so the file-system time appears there.",
        "A read is served from the cache on a hit; a miss reads the block's bytes from the file first.",
        "See it: a sequence with several writes (run.sequence) shows the writes cheap and the close dear."}},
  };
  static const std::vector<std::string> none;
  const auto it = steps.find(name);
  return it == steps.end() ? none : it->second;
}

}  // namespace ciosim::app
