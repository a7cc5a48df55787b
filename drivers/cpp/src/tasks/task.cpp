#include "tasks/task.h"

#include <malloc.h>

#include <cstring>
#include <filesystem>
#include <system_error>

#include "tasks/read_rand.h"
#include "tasks/read_seq.h"
#include "tasks/sort_dedup.h"

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

namespace sort_detail {

void remove_paged(const std::string& base, IoTimer& timer) {
  for (const std::string& path : {data_path(base), index_path(base)}) {
    std::error_code error;
    timer.time([&] { std::filesystem::remove(path, error); });
    if (error) throw Failure(Kind::internal, "cannot delete " + path + ": " + error.message());
  }
}

void give_back_free_memory() { malloc_trim(0); }

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

}  // namespace sort_detail

}  // namespace serbench
