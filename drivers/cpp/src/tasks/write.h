#pragma once
// `write`: objects already in memory (loading the JSON Lines is untimed) -> encode each ->
// pack into pages -> write data and index -> fsync both. With `raw`, the write floor
// (PROTOCOL.md 5): the same without the encoding, another method's file written again from
// its objects' bytes, each where that file has it.

#include "tasks/task.h"

namespace serbench {

namespace write_detail {

// A paged file's objects in memory, back to back, with their places: the write floor's
// input, loaded before timing.
class StoredFile {
 public:
  // Reads every object of the file at `base` (untimed).
  StoredFile(const std::string& base, const Expect& expect);

  // Calls f(bytes) for every object, in order.
  template <class F>
  void for_each(F&& f) const {
    std::size_t at = 0;
    for (const Entry& e : entries_) {
      f(std::span<const uint8_t>(bytes_.data() + at, e.length));
      at += e.length;
    }
  }

  // Writes the objects again as the paged file `base`, each at its place, with the file's
  // page size, model and method, this driver as the writer, stamped with `run_stamp`.
  WriteCounters write(const std::string& base, IoTimer& timer, const RunStamp& run_stamp) const;

 private:
  uint32_t page_size_;
  std::string model_, method_;
  std::vector<Entry> entries_;
  Bytes bytes_;
};

Json write_result(Json samples, const WriteCounters& counters, const SetChecksum& checksum);

}  // namespace write_detail

struct Write {
  static constexpr std::string_view id = "write";

  template <class M, class Meth>
  static Json run(Meth& method, const TaskRequest& request) {
    if constexpr (!Meth::writes) {
      return floor<M>(method, request);
    } else {
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
      return write_detail::write_result(std::move(samples), counters, checksum);
    }
  }

 private:
  // The write floor: `input` is another method's paged file of the model (its page size the
  // request's), read before timing; each repetition writes its objects again where it has
  // them and fsyncs data and index. The checksum folds each object's bytes as the raw read
  // does (the method is raw).
  template <class M, class Meth>
  static Json floor(Meth& method, const TaskRequest& request) {
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string output = params.path("output");
    const uint32_t page_size = params.page_size().value_or(kDefaultPageSize);
    const write_detail::StoredFile stored(params.path("input"),
                                          Expect{model_name<M>(), std::nullopt, page_size});
    SetChecksum checksum;
    stored.for_each([&](std::span<const uint8_t> object) {
      Hasher h;
      method.template fold<M>(object, request.mode, h);
      checksum.add(h.finish());
    });
    auto [samples, counters] = reps.run(nullptr, [&](Sample& sample) {
      return stored.write(output, sample.io, request.mode.run_stamp);
    });
    return write_detail::write_result(std::move(samples), counters, checksum);
  }
};

}  // namespace serbench
