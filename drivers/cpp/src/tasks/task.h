#pragma once
// The task axis: one file per task, each written only against the method interface
// (methods/method.h) and generic over the model type. A task is a class with
//
//   static constexpr std::string_view id;
//   template <class M, class Meth> static Json run(Meth& method, const TaskRequest& request);
//
// Here: what the tasks share (repetitions with cold eviction and timing, reading a selection
// of objects from a paged file, writing one, loading JSON Lines).

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "file.h"
#include "json.h"
#include "methods/method.h"
#include "model/checksum.h"
#include "model/jsonl.h"
#include "model/model_id.h"
#include "paged/reader.h"
#include "paged/writer.h"
#include "protocol.h"
#include "timing.h"

namespace serbench {

// The language id this driver writes into index headers.
inline constexpr std::string_view kWriter = "cpp";

// One `run` request, as a task sees it.
struct TaskRequest {
  ReadMode mode;
  const Params& params;
};

inline Json checksum_json(const SetChecksum& c) {
  return Json::object({{"count", c.count}, {"sum", hex64(c.sum)}});
}

// One repetition as its task sees it: the timer of its I/O calls, the task's own sample
// keys (thread_ns, encode_ns, phase1_ns, ...), and, for a task that times only part of a
// repetition, where its clock stopped.
class Sample {
 public:
  IoTimer io;
  void set(std::string key, Json value) { extra_.emplace_back(std::move(key), std::move(value)); }
  void stop_clock() { stopped_at_ = now_ns(); }

 private:
  friend class Repetitions;
  Json::Object extra_;
  std::optional<uint64_t> stopped_at_;
};

// Warm-ups, repetitions and whether each starts from a cold page cache.
class Repetitions {
 public:
  explicit Repetitions(const Params& params)
      : warmups_(params.u64("warmups")),
        warmup_ns_(params.u64_or("warmup_ms", 0) * 1'000'000),
        repetitions_(params.u64("repetitions")),
        cold_(params.boolean("cold")) {
    if (repetitions_ == 0) throw bad_request("params.repetitions must be at least 1");
  }

  // Runs `once(Sample&)` for every warm-up and repetition, evicting the files of
  // `evict_base` first when cold, and times it. Warm-ups go on past `warmups` until
  // `warmup_ms` has passed since the first began (JMH's time-based warm-up), numbered on.
  // Every repetition must produce the same outcome; returns the samples and that outcome.
  template <class F>
  auto run(const std::string* evict_base, F&& once) {
    using Outcome = decltype(once(std::declval<Sample&>()));
    Json::Array samples;
    std::optional<Outcome> first;
    auto one = [&](uint64_t rep, bool warmup) {
      std::optional<double> cached;
      if (cold_ && evict_base) {
        const Residency data = evict(data_path(*evict_base));
        const Residency index = evict(index_path(*evict_base));
        const uint64_t pages = data.pages + index.pages;
        cached = pages == 0 ? 0.0 : static_cast<double>(data.cached + index.cached) / pages;
      }
      Sample sample;
      const uint64_t start = now_ns();
      Outcome outcome = once(sample);
      const uint64_t total = sample.stopped_at_.value_or(now_ns()) - start;
      const uint64_t io = std::min(sample.io.ns(), total);
      Json json = Json::object({{"rep", rep},
                                {"warmup", warmup},
                                {"total_ns", total},
                                {"cpu_ns", total - io},
                                {"io_ns", io}});
      for (auto& [key, value] : sample.extra_) json.set(std::move(key), std::move(value));
      if (cached) json.set("cached_fraction", *cached);
      samples.push_back(std::move(json));
      if (!first) {
        first = std::move(outcome);
      } else if (!(*first == outcome)) {
        throw Failure(Kind::checksum_mismatch, "repetition " + std::to_string(rep) +
                                                   " (warm-up: " + (warmup ? "true" : "false") +
                                                   ") read something else than the first");
      }
    };
    const uint64_t began = now_ns();
    for (uint64_t rep = 0; rep < warmups_ || now_ns() - began < warmup_ns_; ++rep) one(rep, true);
    for (uint64_t rep = 0; rep < repetitions_; ++rep) one(rep, false);
    return std::pair{Json(std::move(samples)), std::move(*first)};
  }

  // The eviction a task reports.
  std::string_view eviction() const { return cold_ ? kEviction : "none"; }

 private:
  uint64_t warmups_, warmup_ns_, repetitions_;
  bool cold_;
};

// Which objects of a file a read visits.
struct Selection {
  enum class Kind { all, range, ids } kind = Kind::all;
  uint64_t start = 0, n = 0;
  std::span<const uint64_t> ids;
};

// What a read saw.
struct ReadOutcome {
  SetChecksum checksum;
  uint64_t pages_read = 0;
  std::string writer;
  bool operator==(const ReadOutcome&) const = default;
};

[[noreturn]] void out_of_range(const std::string& base, const std::string& what, uint64_t count);
// A DecodeError placed: file, page, object and offset.
[[noreturn]] void located(const PageReader& reader, uint64_t n, const DecodeError& e);

// Whether a read at `mode` trusts its bytes: the default variant of a method that lists
// `validate` (PROTOCOL.md 3).
template <class Meth>
constexpr bool trusts_its_bytes(const ReadMode& mode) {
  return mode.variant == 0 && std::ranges::find(Meth::variants, std::string_view("validate")) !=
                                  Meth::variants.end();
}

// The variant (as ReadMode's) that reads foreign bytes: `validate` where the method lists
// it, else its default, which then checks every byte.
template <class Meth>
constexpr std::size_t validating_variant() {
  const auto at = std::ranges::find(Meth::variants, std::string_view("validate"));
  return at == Meth::variants.end() ? 0 : std::size_t(at - Meth::variants.begin()) + 1;
}

// Opens the paged file at `base`, checks its index, and folds the set checksum of the
// selected objects at the mode's depth, reading each page into `page` only when the page
// changes. A read that trusts its bytes takes only files this driver wrote in this run (the
// mode's run stamp): another language's layout, or damage since, read by a cast is undefined
// behaviour, not an error.
template <class M, class Meth>
ReadOutcome read_objects(Meth& method, const ReadMode& mode, const std::string& base,
                         const Selection& selection, std::optional<uint32_t> page_size,
                         IoTimer& timer, Bytes& page) {
  Expect expect{model_name<M>(), std::nullopt, page_size};
  if (Meth::writes) expect.method = Meth::id;
  if (trusts_its_bytes<Meth>(mode)) expect.own_run = OwnRun{kWriter, mode.run_stamp};
  PageReader reader(base, expect, timer, page);
  const uint64_t count = reader.count();
  ReadOutcome out;
  uint64_t current = 0;
  auto visit = [&](uint64_t n) {
    current = n;
    Hasher h;
    method.template fold<M>(reader.object(n), mode, h);
    out.checksum.add(h.finish());
  };
  try {
    switch (selection.kind) {
      case Selection::Kind::all:
        for (uint64_t n = 0; n < count; ++n) visit(n);
        break;
      case Selection::Kind::range:
        if (selection.start > count || selection.n > count - selection.start) {
          out_of_range(base,
                       "objects " + std::to_string(selection.start) + ".." +
                           std::to_string(selection.start) + "+" + std::to_string(selection.n),
                       count);
        }
        for (uint64_t n = selection.start; n < selection.start + selection.n; ++n) visit(n);
        break;
      case Selection::Kind::ids:
        for (uint64_t id : selection.ids) {
          if (id >= count) out_of_range(base, "object " + std::to_string(id), count);
        }
        for (uint64_t id : selection.ids) visit(id);
        break;
    }
  } catch (const DecodeError& e) {
    located(reader, current, e);
  }
  out.pages_read = reader.pages_read();
  out.writer = reader.header().writer;
  return out;
}

// Writes the objects `each(add)` passes to `add`, one at a time, as the paged file `base`,
// stamped with the run writing it (all zero: none).
template <class M, class Meth, class Each>
WriteCounters write_each(Meth& method, Each&& each, const std::string& base, uint32_t page_size,
                         IoTimer& timer, const RunStamp& run_stamp = {}) {
  PageWriter writer(base, page_size, timer);
  each([&](const M& object) {
    writer.push(Meth::alignment, [&](Bytes& out) { method.template encode<M>(object, out); });
  });
  return writer.finish(model_name<M>(), Meth::id, kWriter, run_stamp);
}

// Writes `objects` as the paged file `base`.
template <class M, class Meth>
WriteCounters write_file(Meth& method, const std::vector<M>& objects, const std::string& base,
                         uint32_t page_size, IoTimer& timer, const RunStamp& run_stamp = {}) {
  return write_each<M>(
      method, [&](auto&& add) { for (const M& object : objects) add(object); }, base, page_size,
      timer, run_stamp);
}

}  // namespace serbench
