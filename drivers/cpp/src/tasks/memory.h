#pragma once
// `memory` (PROTOCOL.md 5.3): the heap bytes n materialized objects retain. Each repetition
// reads the live heap (the counting allocator, memstat/heap.h), opens the file, decodes
// objects 0..n into a vector reserved for n, closes the file (index and page buffer freed)
// and reads the live heap again; the difference includes the vector's own bytes. The
// checksum of the kept objects is folded after the clock stops.

#include "memstat/heap.h"
#include "memstat/rss.h"
#include "tasks/task.h"

namespace serbench {

struct Memory {
  static constexpr std::string_view id = "memory";

  template <class M, class Meth>
  static Json run(Meth& method, const TaskRequest& request) {
    if (request.mode.depth != Depth::materialize) {
      throw unsupported("memory keeps native objects: it runs at depth materialize only");
    }
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string input = params.path("input");
    const uint64_t n = params.u64("n");
    if (n == 0) throw bad_request("params.n must be at least 1");
    const auto page_size = params.page_size();
    int64_t retained = 0;  // of the last repetition
    const uint64_t rss_start = start_rss_window();
    auto [samples, checksum] = reps.run(&input, [&](Sample& sample) {
      const int64_t before = thread_heap_bytes();
      const std::vector<M> kept = materialize<M>(method, input, n, page_size, sample.io);
      retained = thread_heap_bytes() - before;
      sample.stop_clock();
      SetChecksum checksum;
      for (const M& object : kept) checksum.add(object_hash(object));
      return checksum;
    });
    const uint64_t peak = peak_rss_bytes();
    return Json::object(
        {{"samples", std::move(samples)},
         {"counters", Json::object({{"objects", n},
                                    {"retained_bytes", retained},
                                    {"retained_bytes_per_object", double(retained) / double(n)},
                                    {"peak_rss_bytes", peak},
                                    {"rss_start_bytes", rss_start},
                                    {"accounting", kHeapAccounting}})},
         {"checksum", checksum_json(checksum)},
         {"eviction", reps.eviction()}});
  }

 private:
  // Objects 0..n of the file as native objects; the reader and its page are gone on return.
  template <class M, class Meth>
  static std::vector<M> materialize(Meth& method, const std::string& input, uint64_t n,
                                    std::optional<uint32_t> page_size, IoTimer& timer) {
    Bytes page;
    PageReader reader(input, Expect{model_name<M>(), Meth::id, page_size}, timer, page);
    if (n > reader.count()) out_of_range(input, "objects 0.." + std::to_string(n), reader.count());
    std::vector<M> kept;
    kept.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      try {
        kept.push_back(method.template decode<M>(reader.object(i)));
      } catch (const DecodeError& e) {
        located(reader, i, e);
      }
    }
    return kept;
  }
};

}  // namespace serbench
