#pragma once
// The generic body of every cell: the protocol's roundtrip, encode, scan and run for one
// method and one model type. registry.cpp compiles it for every pair.

#include <optional>

#include "cell.h"
#include "model/order.h"
#include "tasks/task.h"

namespace serbench::cell {

// Every object encoded and read back in memory at the mode's depth; a mismatch is an object
// whose hash (and, when materialized, whose value) differs from the original.
template <class Meth, class M>
Json roundtrip(const Request& req, const ReadMode& mode) {
  Meth method;
  Bytes buf;
  SetChecksum checksum;
  uint64_t mismatches = 0;
  Json first_mismatch;
  uint64_t line = 0;
  for_each_json_line<M>(req.params.path("input"), [&](M&& object) {
    ++line;
    buf.clear();
    method.template encode<M>(object, buf);
    const std::span<const uint8_t> bytes(buf.data(), buf.size());
    Hasher h;
    bool same;
    try {
      method.template fold<M>(bytes, mode, h);
      same = h.finish() == object_hash(object);
      if (mode.depth == Depth::materialize) {
        same = same && total_equal(method.template decode<M>(bytes), object);
      }
    } catch (const DecodeError& e) {
      throw Failure(
          Kind::checksum_mismatch,
          "line " + std::to_string(line) + ": reading back its own encoding failed: " + e.text());
    }
    if (!same && mismatches++ == 0) first_mismatch = line;
    checksum.add(h.finish());
  });
  return Json::object({{"checksum", checksum_json(checksum)},
                       {"mismatches", mismatches},
                       {"first_mismatch", std::move(first_mismatch)}});
}

// Writes the paged file, untimed, streaming its input.
template <class Meth, class M>
Json encode(const Request& req) {
  const uint32_t page_size = req.params.page_size().value_or(kDefaultPageSize);
  Meth method;
  IoTimer timer;
  const std::string input = req.params.path("input");
  const WriteCounters c = write_each<M>(
      method, [&](auto&& add) { for_each_json_line<M>(input, add); },
      req.params.path("output"), page_size, timer, req.params.run_stamp());
  return Json::object(
      {{"counters",
        Json::object({{"objects", c.objects}, {"bytes", c.bytes}, {"pages", c.pages}})}});
}

// Every object of any writer's file, and who wrote it.
template <class Meth, class M>
Json scan(const Request& req, const ReadMode& mode) {
  Meth method;
  IoTimer timer;
  Bytes page;
  const ReadOutcome outcome = read_objects<M>(method, mode, req.params.path("input"), Selection{},
                                              req.params.page_size(), timer, page);
  return Json::object({{"checksum", checksum_json(outcome.checksum)}, {"writer", outcome.writer}});
}

template <class Tasks, class Meth, class M>
Json run(std::string_view task, const Request& req, const ReadMode& mode) {
  Meth method;
  const TaskRequest request{mode, req.params};
  std::optional<Json> result;
  for_each_type(Tasks{}, [&](auto t) {
    using T = typename decltype(t)::type;
    if (!result && task == T::id) result = T::template run<M>(method, request);
  });
  if (!result) throw bad_request("unknown task '" + std::string(task) + "'");
  return std::move(*result);
}

template <class Meth, class Tasks>
MethodEntry make_entry() {
  static_assert(Method<Meth>);
  MethodEntry entry{
      Meth::id, Meth::depths, Meth::variants, Meth::files, Meth::writes, Meth::alignment, {}};
  if constexpr (requires { Meth::settings(); }) entry.settings = &Meth::settings;
  for_each_type(ModelTypes{}, [&](auto t) {
    using M = typename decltype(t)::type;
    entry.cells[std::size_t(Model<M>::id)] =
        CellOps{&roundtrip<Meth, M>, &encode<Meth, M>, &scan<Meth, M>, &run<Tasks, Meth, M>};
  });
  return entry;
}

}  // namespace serbench::cell
