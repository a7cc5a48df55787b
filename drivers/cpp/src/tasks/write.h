#pragma once
// `write`: objects already in memory (loading the JSON Lines is untimed) -> encode each ->
// pack into pages -> write data and index -> fsync both.

#include "tasks/task.h"

namespace serbench {

struct Write {
  static constexpr std::string_view id = "write";

  template <class M, class Meth>
  static Json run(Meth& method, const TaskRequest& request) {
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string output = params.path("output");
    const uint32_t page_size = params.page_size().value_or(kDefaultPageSize);
    const std::vector<M> objects = load_json_lines<M>(params.path("input"));
    SetChecksum checksum;
    for (const M& object : objects) checksum.add(object_hash(object));
    // nothing is cached before a write, so there is nothing to evict
    auto [samples, counters] = reps.run(nullptr, [&](Sample& sample) {
      return write_file(method, objects, output, page_size, sample.io, request.mode.run_stamp);
    });
    const double average =
        double(counters.object_bytes) / double(std::max<uint64_t>(counters.objects, 1));
    return Json::object({{"samples", std::move(samples)},
                         {"counters", Json::object({{"objects", counters.objects},
                                                    {"bytes", counters.bytes},
                                                    {"pages", counters.pages},
                                                    {"avg_object_bytes", average}})},
                         {"checksum", checksum_json(checksum)},
                         {"eviction", "none"}});
  }
};

}  // namespace serbench
