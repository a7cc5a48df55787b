#pragma once
// Shared by the tests: the golden vectors, scratch directories, expected checksums.

#include <cstdint>
#include <filesystem>
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

}  // namespace serbench::test
