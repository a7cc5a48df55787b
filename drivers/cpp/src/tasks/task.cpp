#include "tasks/task.h"

#include <malloc.h>

#include <cstring>
#include <filesystem>
#include <system_error>

#include "tasks/read_rand.h"
#include "tasks/read_seq.h"
#include "tasks/sort_dedup.h"
#include "tasks/write.h"

namespace serbench {

void out_of_range(const std::string& base, const std::string& what, uint64_t count) {
  throw Failure(Kind::out_of_range,
                what + " asked, " + base + " holds " + std::to_string(count) + " objects");
}

void located(const PageReader& reader, uint64_t n, const DecodeError& e) {
  const Entry entry = reader.entry(n);
  throw corrupt(reader.data_path() + ": page " + std::to_string(entry.page) + ", object " +
                std::to_string(n) + " at offset " + std::to_string(entry.offset) + ": " + e.text());
}

Json read_result(Json samples, const ReadOutcome& outcome, std::string_view eviction) {
  return Json::object({{"samples", std::move(samples)},
                       {"counters", Json::object({{"objects", outcome.checksum.count},
                                                  {"pages_read", outcome.pages_read}})},
                       {"checksum", checksum_json(outcome.checksum)},
                       {"eviction", eviction}});
}

std::vector<uint64_t> read_ids(const std::string& path, uint64_t n) {
  IoTimer untimed;
  const std::string bytes = read_whole(path, untimed);
  const uint64_t held = bytes.size() / 8;
  if (held < n) {
    throw bad_request(path + ": holds " + std::to_string(held) + " ids, n = " + std::to_string(n) +
                      " asked");
  }
  std::vector<uint64_t> ids(n);
  std::memcpy(ids.data(), bytes.data(), n * 8);
  return ids;
}

namespace write_detail {

StoredFile::StoredFile(const std::string& base, const Expect& expect) {
  IoTimer untimed;
  Bytes page;
  PageReader reader(base, expect, untimed, page);
  page_size_ = reader.header().page_size;
  model_ = reader.header().model;
  method_ = reader.header().method;
  const uint64_t count = reader.count();
  entries_.reserve(count);
  uint64_t total = 0;
  for (uint64_t n = 0; n < count; ++n) total += reader.entry(n).length;
  bytes_.reserve(total);
  for (uint64_t n = 0; n < count; ++n) {
    entries_.push_back(reader.entry(n));
    const std::span<const uint8_t> object = reader.object(n);
    bytes_.append(object.data(), object.size());
  }
}

WriteCounters StoredFile::write(const std::string& base, IoTimer& timer,
                                const RunStamp& run_stamp) const {
  PageWriter writer(base, page_size_, timer);
  std::size_t n = 0;
  for_each([&](std::span<const uint8_t> object) { writer.place_at(entries_[n++], object); });
  return writer.finish(model_, method_, kWriter, run_stamp);
}

Json write_result(Json samples, const WriteCounters& counters, const SetChecksum& checksum) {
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

}  // namespace write_detail

namespace sort_detail {

namespace {

// Checks params.output: an existing, empty directory.
std::string empty_directory(const Params& params) {
  const std::string dir = params.path("output");
  std::error_code error;
  if (!std::filesystem::exists(dir, error)) {
    throw Failure(Kind::not_found, "params.output: " + dir + " does not exist");
  }
  if (!std::filesystem::is_directory(dir, error) ||
      !std::filesystem::is_empty(dir, error) || error) {
    throw bad_request("params.output must be an empty directory: " + dir);
  }
  return dir;
}

}  // namespace

void remove_paged(const std::string& base, IoTimer& timer) {
  for (const std::string& path : {data_path(base), index_path(base)}) {
    std::error_code error;
    timer.time([&] { std::filesystem::remove(path, error); });
    if (error) throw Failure(Kind::internal, "cannot delete " + path + ": " + error.message());
  }
}

void give_back_free_memory() { malloc_trim(0); }

Plan plan_of(const Params& params, const RunStamp& run_stamp) {
  const auto page_size = params.page_size();
  if (!page_size) throw bad_request("params.page_size is required");
  const uint64_t budget = params.u64("budget_bytes");
  if (budget == 0) throw bad_request("params.budget_bytes must be at least 1");
  const uint64_t pages_in_budget = budget / *page_size;
  const uint64_t fan_in = std::max<uint64_t>(2, pages_in_budget > 1 ? pages_in_budget - 1 : 0);
  return Plan{empty_directory(params), budget, *page_size, fan_in, run_stamp};
}

Json sort_result(Json samples, const Outcome& outcome, const Plan& plan, uint64_t rss_start,
                 Json checksum, std::string_view eviction) {
  const uint64_t peak = peak_rss_bytes();
  return Json::object({{"samples", std::move(samples)},
                       {"counters", Json::object({{"input_objects", outcome.input_objects},
                                                  {"output_objects", outcome.output_objects},
                                                  {"runs", outcome.runs},
                                                  {"merge_passes", outcome.merge_passes},
                                                  {"budget_bytes", plan.budget},
                                                  {"peak_rss_bytes", peak},
                                                  {"rss_start_bytes", rss_start},
                                                  {"run_bytes", outcome.run_bytes},
                                                  {"output_bytes", outcome.output_bytes}})},
                       {"checksum", std::move(checksum)},
                       {"eviction", eviction}});
}

std::string method_of(const std::string& input, std::string_view model) {
  IoTimer untimed;
  Bytes page;
  return PageReader(input, Expect{model, std::nullopt, std::nullopt}, untimed, page)
      .header()
      .method;
}

std::vector<std::string> copy_runs(const std::string& input, std::string_view model,
                                   const CopiedMethod& copied, const Plan& plan, Bytes& page,
                                   IoTimer& timer, Outcome& out) {
  PageReader reader(input, Expect{model, copied.id, std::nullopt}, timer, page);
  const uint64_t count = reader.count();
  Bytes chunk;  // the bytes of objects first .. n, back to back; freed before the merge
  chunk.reserve(std::min<uint64_t>(plan.budget, reader.header().data_len));
  std::vector<std::string> runs;
  uint64_t first = 0;
  auto flush = [&](uint64_t end) {
    runs.push_back(plan.base("run-" + std::to_string(runs.size())));
    PageWriter writer(runs.back(), plan.page_size, timer);
    const uint8_t* at = chunk.data();
    for (uint64_t n = first; n < end; ++n) {
      const uint32_t length = reader.entry(n).length;
      writer.push(copied.alignment, [&](Bytes& to) { to.append(at, length); });
      at += length;
    }
    out.run_bytes += writer.finish(model, copied.id, kWriter, plan.run_stamp).bytes;
    chunk.clear();
    first = end;
  };
  for (uint64_t n = 0; n < count; ++n) {
    const std::span<const uint8_t> object = reader.object(n);
    if (n > first && chunk.size() + object.size() > plan.budget) flush(n);
    chunk.append(object.data(), object.size());
  }
  if (count > first) flush(count);
  out.input_objects = count;
  out.runs = runs.size();
  return runs;
}

std::pair<WriteCounters, uint64_t> interleave(std::span<const std::string> group,
                                              const std::string& base, std::string_view model,
                                              const CopiedMethod& copied, const Plan& plan,
                                              IoTimer& timer) {
  const Expect expect{model, copied.id, plan.page_size};
  std::vector<std::unique_ptr<RunPages>> runs;
  for (const std::string& run : group) {
    runs.push_back(std::make_unique<RunPages>(run, expect, timer));
  }
  std::vector<RunPages*> left;
  for (const auto& run : runs) {
    if (!run->done()) left.push_back(run.get());
  }
  PageWriter writer(base, plan.page_size, timer);
  uint64_t sum = 0;
  while (!left.empty()) {
    for (RunPages* run : left) {
      const std::span<const uint8_t> object = run->reader.object(run->next++);
      writer.push(copied.alignment, [&](Bytes& to) { to.append(object.data(), object.size()); });
      Hasher h;  // as the raw read folds an object (methods/raw.h)
      h.bytes(object.data(), object.size());
      sum += h.finish();
    }
    std::erase_if(left, [](const RunPages* run) { return run->done(); });
  }
  const WriteCounters counters = writer.finish(model, copied.id, kWriter, plan.run_stamp);
  runs.clear();
  give_back_free_memory();
  for (const std::string& run : group) remove_paged(run, timer);
  return {counters, sum};
}

}  // namespace sort_detail

}  // namespace serbench
