#pragma once
// `bson`: BSON documents through libbson 1.23, the shared format of every language
// (PROTOCOL.md 8.3): real BSON bytes built with bson_t appends (one reused bson_t, then one
// copy into the page), never via JSON text. i8..i32 as int32, i64 as int64, absent
// optionals omitted, enums by name, lists as arrays keyed "0", "1", ... Reading iterates
// the page bytes in place with bson_iter (which checks every length and terminator); depth
// materialize builds native objects, depth access folds the checksum straight from the
// iterator. Any key order; unknown, missing or repeated keys, wrong element types and
// out-of-range integers are errors.
#include <array>
#include <memory>
#include <span>
#include <string_view>

#include "methods/method.h"

namespace serbench {

class Bson {
 public:
  static constexpr std::string_view id = "bson";
  static constexpr std::array depths{Depth::materialize, Depth::access};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/bson.h"),
                                    std::string_view("drivers/cpp/src/methods/bson.cpp")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 1;

  Bson();
  ~Bson();

  template <class M>
  void encode(const M& value, Bytes& out);
  template <class M>
  M decode(std::span<const uint8_t> bytes);
  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace serbench
