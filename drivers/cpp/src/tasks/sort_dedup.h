#pragma once
// `sort_dedup` (PROTOCOL.md 5.2): an external merge sort that removes duplicates, under a
// memory budget, in files of the cell's own method.
//
// Phase 1 decodes the input in order into a chunk until the next object would take the
// objects held past the budget, sorts the chunk by the model's total order and writes it,
// without adjacent duplicates, as the run `<output>/run-<k>`. An object is held at
// sizeof(M) (its slot in the chunk, reserved once) plus the heap bytes its decoding left
// allocated, as the counting allocator (memstat/heap.h) measures them.
//
// Phase 2 merges at most F = max(2, budget / page_size - 1) runs at a time with a binary
// heap of run numbers keyed by each run's head object (ties: the lower run); each run is
// read a page at a time through its own page buffer. An object equal to the last one written
// is dropped. Passes of F-way merges into new runs repeat until at most F runs remain; the
// final merge writes `<output>/sorted`. Merged runs are deleted.
//
// With `raw`, the sort floor (PROTOCOL.md 5.2.1): the same phases at the same budget moving
// bytes only. Phase 1 copies the input's objects' bytes into one buffer until the bytes held
// would pass the budget and writes each chunk as it came as a run; phase 2 takes the objects
// of F runs in turn, one from each run that has any left, in the same passes. The runs and
// `sorted` are files of the input's method (packed at its alignment), written by this driver.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <queue>

#include "cell.h"
#include "memstat/heap.h"
#include "memstat/rss.h"
#include "model/order.h"
#include "tasks/task.h"

namespace serbench {

// Peak RSS may grow past the start RSS + budget_bytes by a fixed part (the input's page
// buffer, the writer's page and 1 MiB staging buffer, malloc's bookkeeping, code and runtime
// pages first touched: 4 MiB) plus the indexes held, which grow with the input: the reader of
// a file holds its index whole (PROTOCOL.md 4.2 checks every entry first) and a writer its
// entries until the end: 64 bytes per input object at most (README: sort_dedup;
// tests/test_sort_budget.py).

namespace sort_detail {

void remove_paged(const std::string& base, IoTimer& timer);
// Returns the pages of freed heap blocks to the kernel (malloc_trim), so the RSS a finished
// chunk or merge leaves behind does not add to the next one's: glibc keeps freed memory
// resident, and the writers' large buffers would otherwise fragment the heap upwards.
void give_back_free_memory();

// Where a sort works and how much it may hold.
struct Plan {
  std::string dir;
  uint64_t budget;
  uint32_t page_size;
  uint64_t fan_in;
  RunStamp run_stamp;  // the request's, in every run's and the output's index
  std::string base(const std::string& name) const { return dir + "/" + name; }
};

// The plan of a sort request: `page_size` and `budget_bytes` required, `output` an existing,
// empty directory.
Plan plan_of(const Params& params, const RunStamp& run_stamp);

// What one repetition produced. Every repetition must produce the same output; the runs
// may differ, as the allocator's block sizes for the same objects depend on its state.
// `sum` is the output's checksum: its sequence checksum (the sort), the sum of its objects'
// raw hashes (the floor).
struct Outcome {
  uint64_t input_objects = 0, output_objects = 0, sum = 0;
  uint64_t runs = 0, merge_passes = 0, run_bytes = 0, output_bytes = 0;
  bool operator==(const Outcome& o) const {
    return input_objects == o.input_objects && output_objects == o.output_objects &&
           sum == o.sum && output_bytes == o.output_bytes;
  }
};

// The repetitions of a sort: `phase1(timer, out)` makes the runs and returns their bases,
// `phase2(runs, timer, out)` merges them into `sorted`; each phase timed on its own.
template <class Phase1, class Phase2>
std::pair<Json, Outcome> repeat(Repetitions& reps, const std::string& input, Phase1&& phase1,
                                Phase2&& phase2) {
  return reps.run(&input, [&](Sample& sample) {
    Outcome out;
    const uint64_t begin = now_ns();
    std::vector<std::string> runs = phase1(sample.io, out);
    const uint64_t middle = now_ns();
    give_back_free_memory();  // what phase 1 held is gone
    phase2(std::move(runs), sample.io, out);
    sample.set("phase1_ns", middle - begin);
    sample.set("phase2_ns", now_ns() - middle);
    sample.set("runs", out.runs);
    return out;
  });
}

// Phase 2's passes: while more than F runs are left, merges them F at a time into new runs
// (`run-<k>`, k counting on from the phase-1 runs; a lone last run waits for the next pass as
// it is), then what is left into `sorted`. `merge(group, base, last)` writes the group's
// objects as the paged file `base`, deletes the group's runs and returns what it wrote.
template <class Merge>
void merge_passes(std::vector<std::string> runs, const Plan& plan, Outcome& out, Merge&& merge) {
  uint64_t next_run = runs.size();
  while (runs.size() > plan.fan_in) {
    std::vector<std::string> merged;
    for (std::size_t i = 0; i < runs.size(); i += plan.fan_in) {
      const std::span<const std::string> group =
          std::span(runs).subspan(i, std::min<std::size_t>(plan.fan_in, runs.size() - i));
      if (group.size() == 1) {
        merged.push_back(group.front());
        continue;
      }
      merged.push_back(plan.base("run-" + std::to_string(next_run++)));
      out.run_bytes += merge(group, merged.back(), false).bytes;
    }
    runs = std::move(merged);
    ++out.merge_passes;
  }
  const WriteCounters counters =
      merge(std::span<const std::string>(runs), plan.base("sorted"), true);
  ++out.merge_passes;
  out.output_objects = counters.objects;
  out.output_bytes = counters.bytes;
}

// A sort's result (PROTOCOL.md 5.2); peak RSS read now.
Json sort_result(Json samples, const Outcome& outcome, const Plan& plan, uint64_t rss_start,
                 Json checksum, std::string_view eviction);

// One run being read a page at a time through its own page buffer.
struct RunPages {
  Bytes page;
  PageReader reader;
  uint64_t next = 0;  // the next object to take

  RunPages(const std::string& base, const Expect& expect, IoTimer& timer)
      : reader(base, expect, timer, page) {}
  bool done() const { return next == reader.count(); }
};

// The method of the file the sort floor copies: the runs and `sorted` are files of it,
// packed as its writers pack them.
struct CopiedMethod {
  std::string id;
  std::size_t alignment;
};
// The method the paged file `input` names (read untimed).
std::string method_of(const std::string& input, std::string_view model);

// The floor's phase 1: the input's objects' bytes copied into one buffer until the bytes held
// would pass the budget (a chunk holds at least one object), each chunk written in input order
// as the run `run-<k>`; their bases.
std::vector<std::string> copy_runs(const std::string& input, std::string_view model,
                                   const CopiedMethod& copied, const Plan& plan, Bytes& page,
                                   IoTimer& timer, Outcome& out);
// The floor's merge of `group` into `base`: their objects taken in turn, one from each run
// that has any left, each folded as the raw read folds it (timed, as the sort's merges fold
// what they merge); the merged runs are deleted. What it wrote and the sum of their hashes.
std::pair<WriteCounters, uint64_t> interleave(std::span<const std::string> group,
                                              const std::string& base, std::string_view model,
                                              const CopiedMethod& copied, const Plan& plan,
                                              IoTimer& timer);

// Writes objects given in total order as a paged file, dropping each one equal to the last
// written; folds the sequence checksum of what it wrote when asked.
template <class M, class Meth>
class DistinctWriter {
 public:
  DistinctWriter(Meth& method, const std::string& base, const Plan& plan, bool hash,
                 IoTimer& timer)
      : method_(method), writer_(base, plan.page_size, timer), run_stamp_(plan.run_stamp),
        hash_(hash) {}

  // Takes the object's value (moves from it) when it is written.
  void push(M& object) {
    if (last_ && total_equal(*last_, object)) return;
    writer_.push(Meth::alignment, [&](Bytes& out) { method_.template encode<M>(object, out); });
    if (hash_) sequence_.word(object_hash(object));
    last_ = std::move(object);
  }

  WriteCounters finish() {
    return writer_.finish(model_name<M>(), Meth::id, kWriter, run_stamp_);
  }
  uint64_t sequence() const { return sequence_.finish(); }

 private:
  Meth& method_;
  PageWriter writer_;
  RunStamp run_stamp_;
  bool hash_;
  Hasher sequence_;
  std::optional<M> last_;
};

// One run being merged: its reader, own page buffer and decoded head object.
template <class M>
struct RunCursor : RunPages {
  M head;

  using RunPages::RunPages;

  // Decodes the run's next object into head; false at the end of the run.
  template <class Meth>
  bool advance(Meth& method) {
    if (done()) return false;
    try {
      head = method.template decode<M>(reader.object(next));
    } catch (const DecodeError& e) {
      located(reader, next, e);
    }
    ++next;
    return true;
  }
};

}  // namespace sort_detail

struct SortDedup {
  static constexpr std::string_view id = "sort_dedup";

  template <class M, class Meth>
  static Json run(Meth& method, const TaskRequest& request) {
    if constexpr (!Meth::writes) {
      return floor<M>(method, request);
    } else {
      return sort<M>(method, request);
    }
  }

 private:
  using Outcome = sort_detail::Outcome;

  template <class M, class Meth>
  static Json sort(Meth& method, const TaskRequest& request) {
    if (request.mode.depth != Depth::materialize) {
      throw unsupported("sort_dedup decodes objects: it runs at depth materialize only");
    }
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string input = params.path("input");
    const sort_detail::Plan plan = sort_detail::plan_of(params, request.mode.run_stamp);
    Bytes page;
    const uint64_t rss_start = start_rss_window();
    auto [samples, outcome] = sort_detail::repeat(
        reps, input,
        [&](IoTimer& timer, Outcome& out) {
          return phase1<M>(method, input, plan, page, timer, out);
        },
        [&](std::vector<std::string> runs, IoTimer& timer, Outcome& out) {
          sort_detail::merge_passes(std::move(runs), plan, out,
                                    [&](std::span<const std::string> group,
                                        const std::string& base, bool last) {
                                      const auto [counters, sequence] =
                                          merge<M>(method, group, base, plan, last, timer);
                                      if (last) out.sum = sequence;
                                      return counters;
                                    });
        });
    verify<M>(method, request.mode, plan, outcome);
    return sort_detail::sort_result(std::move(samples), outcome, plan, rss_start,
                                    Json::object({{"count", outcome.output_objects},
                                                  {"sum", hex64(outcome.sum)}}),
                                    reps.eviction());
  }

  // The sort floor (PROTOCOL.md 5.2.1): nothing decoded, ordered, compared or dropped. Every
  // merge folds the objects it writes as the raw read does (the method is raw); the final
  // merge's set checksum is the result. `sorted` is read back after (untimed) and must give
  // it, and hold every input object.
  template <class M, class Meth>
  static Json floor(Meth& method, const TaskRequest& request) {
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string input = params.path("input");
    const sort_detail::Plan plan = sort_detail::plan_of(params, request.mode.run_stamp);
    const std::string_view model = model_name<M>();
    const std::string copied_id = sort_detail::method_of(input, model);
    // the alignment this driver's method of that id needs; 1 for one it does not have
    const MethodEntry* known = find_method(copied_id);
    const sort_detail::CopiedMethod copied{copied_id, known ? known->alignment : 1};
    Bytes page;
    const uint64_t rss_start = start_rss_window();
    auto [samples, outcome] = sort_detail::repeat(
        reps, input,
        [&](IoTimer& timer, Outcome& out) {
          return sort_detail::copy_runs(input, model, copied, plan, page, timer, out);
        },
        [&](std::vector<std::string> runs, IoTimer& timer, Outcome& out) {
          sort_detail::merge_passes(std::move(runs), plan, out,
                                    [&](std::span<const std::string> group,
                                        const std::string& base, bool last) {
                                      const auto [counters, sum] = sort_detail::interleave(
                                          group, base, model, copied, plan, timer);
                                      if (last) out.sum = sum;
                                      return counters;
                                    });
        });
    const SetChecksum checksum{outcome.output_objects, outcome.sum};
    IoTimer untimed;
    const SetChecksum held = read_objects<M>(method, request.mode, plan.base("sorted"),
                                             Selection{}, plan.page_size, untimed, page)
                                 .checksum;
    if (held != checksum || outcome.output_objects != outcome.input_objects) {
      throw Failure(Kind::checksum_mismatch,
                    plan.base("sorted") + ": " + std::to_string(held.count) +
                        " objects read back (" + std::to_string(outcome.output_objects) +
                        " written) of " + std::to_string(outcome.input_objects) +
                        " input objects" +
                        (held.sum != checksum.sum ? ", other bytes than written" : ""));
    }
    return sort_detail::sort_result(std::move(samples), outcome, plan, rss_start,
                                    checksum_json(checksum), reps.eviction());
  }

  // Budget-sized chunks of the input, sorted and deduplicated, as run files; their bases.
  template <class M, class Meth>
  static std::vector<std::string> phase1(Meth& method, const std::string& input,
                                         const sort_detail::Plan& plan, Bytes& page,
                                         IoTimer& timer, Outcome& out) {
    PageReader reader(input, Expect{model_name<M>(), Meth::id, std::nullopt}, timer, page);
    const uint64_t count = reader.count();
    // its storage is reused by every chunk and freed before the merge
    std::vector<M> chunk;
    chunk.reserve(std::min(plan.budget / sizeof(M) + 1, count));
    std::vector<std::string> runs;
    auto flush = [&] {
      std::sort(chunk.begin(), chunk.end(),
                [](const M& a, const M& b) { return total_compare(a, b) < 0; });
      runs.push_back(plan.base("run-" + std::to_string(runs.size())));
      out.run_bytes += write_sorted<M>(method, chunk, runs.back(), plan, false, timer).bytes;
      chunk.clear();
      sort_detail::give_back_free_memory();
    };
    uint64_t held = 0;
    for (uint64_t n = 0; n < count; ++n) {
      const int64_t before = thread_heap_bytes();
      M object;
      try {
        object = method.template decode<M>(reader.object(n));
      } catch (const DecodeError& e) {
        located(reader, n, e);
      }
      const uint64_t size = sizeof(M) + uint64_t(std::max<int64_t>(0, thread_heap_bytes() - before));
      if (!chunk.empty() && held + size > plan.budget) {
        flush();
        held = 0;
      }
      chunk.push_back(std::move(object));
      held += size;
    }
    if (!chunk.empty()) flush();
    out.input_objects = count;
    out.runs = runs.size();
    return runs;
  }

  // Writes sorted objects without duplicates (moving from them).
  template <class M, class Meth>
  static WriteCounters write_sorted(Meth& method, std::vector<M>& sorted, const std::string& base,
                                    const sort_detail::Plan& plan, bool hash, IoTimer& timer) {
    sort_detail::DistinctWriter<M, Meth> writer(method, base, plan, hash, timer);
    for (M& object : sorted) writer.push(object);
    return writer.finish();
  }

  // One merge of `group` into `base`; the merged runs are deleted.
  template <class M, class Meth>
  static std::pair<WriteCounters, uint64_t> merge(Meth& method,
                                                  std::span<const std::string> group,
                                                  const std::string& base,
                                                  const sort_detail::Plan& plan, bool hash,
                                                  IoTimer& timer) {
    const Expect expect{model_name<M>(), Meth::id, plan.page_size};
    std::vector<std::unique_ptr<sort_detail::RunCursor<M>>> cursors;
    for (const std::string& run : group) {
      cursors.push_back(std::make_unique<sort_detail::RunCursor<M>>(run, expect, timer));
    }
    auto later = [&](std::size_t a, std::size_t b) {
      const int c = total_compare(cursors[a]->head, cursors[b]->head);
      return c != 0 ? c > 0 : a > b;
    };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
    for (std::size_t r = 0; r < cursors.size(); ++r) {
      if (cursors[r]->advance(method)) heap.push(r);
    }
    sort_detail::DistinctWriter<M, Meth> writer(method, base, plan, hash, timer);
    while (!heap.empty()) {
      const std::size_t r = heap.top();
      heap.pop();
      writer.push(cursors[r]->head);
      if (cursors[r]->advance(method)) heap.push(r);
    }
    const WriteCounters counters = writer.finish();
    cursors.clear();
    sort_detail::give_back_free_memory();
    for (const std::string& run : group) sort_detail::remove_paged(run, timer);
    return {counters, writer.sequence()};
  }

  // Reads `sorted` back (untimed) and checks the sequence checksum it was written with.
  template <class M, class Meth>
  static void verify(Meth& method, const ReadMode& mode, const sort_detail::Plan& plan,
                     const Outcome& out) {
    IoTimer untimed;
    Bytes page;
    const std::string base = plan.base("sorted");
    PageReader reader(base, Expect{model_name<M>(), Meth::id, plan.page_size}, untimed, page);
    Hasher sequence;
    for (uint64_t n = 0; n < reader.count(); ++n) {
      Hasher h;
      try {
        method.template fold<M>(reader.object(n), mode, h);
      } catch (const DecodeError& e) {
        located(reader, n, e);
      }
      sequence.word(h.finish());
    }
    if (reader.count() != out.output_objects || sequence.finish() != out.sum) {
      throw Failure(Kind::checksum_mismatch,
                    base + ": reading the output back gives another sequence checksum than "
                           "the objects written");
    }
  }
};

}  // namespace serbench
