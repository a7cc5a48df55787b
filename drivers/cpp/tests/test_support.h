#pragma once
// Shared by the tests: the golden vectors, scratch directories, expected checksums.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/checksum.h"
#include "model/jsonl.h"
#include "model/model_id.h"
#include "protocol.h"

namespace serbench::test {

// `vectors/<model>.jsonl` in the source tree.
std::string vectors_file(std::string_view model);

// What `vectors/<model>.expected.json` says: per-object hashes and the set checksum.
struct Expected {
  std::vector<uint64_t> hashes;
  SetChecksum set;
};
Expected expected(std::string_view model);

// The run stamp of the tests' own files: a read that trusts its bytes opens only these.
inline constexpr RunStamp kTestRun{0x5e, 0x4b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};

template <class M>
std::vector<M> golden() {
  return load_json_lines<M>(vectors_file(model_name<M>()));
}

// The names of the models the golden vectors hold (the built-in ones), in id order.
inline std::vector<std::string_view> builtin_model_names() {
  std::vector<std::string_view> names;
  for_each_type(BuiltinModelTypes{},
                [&](auto m) { names.push_back(model_name<typename decltype(m)::type>()); });
  return names;
}

// A fresh directory, removed with everything in it at the end of the test.
class Scratch {
 public:
  Scratch();
  explicit Scratch(const std::filesystem::path& parent);  // e.g. on a filesystem a test needs
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// A string's words folded into h straight from docs/checksum.md (each chunk copied into a zeroed
// word): the reference the hashers' load tricks are checked against.
void str_by_definition(uint64_t& h, std::string_view s);

std::string read_file(const std::string& path);
void write_bytes(const std::string& path, const std::string& bytes);

// A seed corpus (file name -> bytes): every file of `dir`, and `dir` made to hold exactly these.
std::map<std::string, std::string> read_seeds(const std::filesystem::path& dir);
void rewrite_seeds(const std::filesystem::path& dir,
                   const std::map<std::string, std::string>& seeds);

// Whether the suite runs under CI=true (.ci/run), where every prerequisite must be present.
bool in_ci();

}  // namespace serbench::test

// The one skip policy (README, Testing): a test whose prerequisite is missing is skipped saying
// why, or fails under CI=true. A macro, as GTEST_SKIP and FAIL return from the test body.
#define SERBENCH_REQUIRE(present, reason)                                   \
  do {                                                                      \
    if (!(present)) {                                                       \
      if (::serbench::test::in_ci()) {                                      \
        FAIL() << "missing prerequisite under CI=true: " << (reason);       \
      }                                                                     \
      GTEST_SKIP() << (reason);                                             \
    }                                                                       \
  } while (false)
