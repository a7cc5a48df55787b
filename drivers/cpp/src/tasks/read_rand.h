#pragma once
// `read_rand`: the objects named by the first n ids of the harness's id file (u64
// little-endian, the same list for every method and language): look each up in the index,
// read its page unless it is the current one, decode, visit every field.

#include "tasks/read_seq.h"

namespace serbench {

// The first n ids of the file (untimed: the list is the harness's, not the read's work).
std::vector<uint64_t> read_ids(const std::string& path, uint64_t n);

struct ReadRand {
  static constexpr std::string_view id = "read_rand";

  template <class M, class Meth>
  static Json run(Meth& method, const TaskRequest& request) {
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string base = params.path("input");
    const std::vector<uint64_t> ids = read_ids(params.path("ids"), params.u64("n"));
    Selection selection{Selection::Kind::ids, 0, ids.size(), ids};
    const auto page_size = params.page_size();
    Bytes page;  // reused by every repetition
    auto [samples, outcome] = reps.run(&base, [&](Sample& sample) {
      return read_objects<M>(method, request.mode, base, selection, page_size, sample.io, page);
    });
    return read_result(std::move(samples), outcome, reps.eviction());
  }
};

}  // namespace serbench
