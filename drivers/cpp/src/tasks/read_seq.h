#pragma once
// `read_seq`: n consecutive objects from `start`: open and check the index (timed: it is
// part of the work), read pages only when the page changes, decode, visit every field.

#include "tasks/task.h"

namespace serbench {

Json read_result(Json samples, const ReadOutcome& outcome, std::string_view eviction);

struct ReadSeq {
  static constexpr std::string_view id = "read_seq";

  template <class M, class Meth>
  static Json run(Meth& method, const TaskRequest& request) {
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string base = params.path("input");
    Selection selection{Selection::Kind::range, params.u64("start"), params.u64("n"), {}};
    const auto page_size = params.page_size();
    Bytes page;  // reused by every repetition
    auto [samples, outcome] = reps.run(&base, [&](Sample& sample) {
      return read_objects<M>(method, request.mode, base, selection, page_size, sample.io, page);
    });
    return read_result(std::move(samples), outcome, reps.eviction());
  }
};

}  // namespace serbench
