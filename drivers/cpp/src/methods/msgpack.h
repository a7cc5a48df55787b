#pragma once
// `msgpack`: MessagePack through msgpack-cxx 4.1.3, the shared format of every language
// (PROTOCOL.md 8.2): one map per struct with the field names as keys, absent optionals
// omitted, integers in their smallest encoding, f64 as float 64, enums by name. Writing packs
// straight into the page buffer. Reading unpacks into msgpack-cxx's object views (strings
// point into the page, the zone is reused from object to object); depth materialize
// converts them into native objects, depth access folds the checksum straight from them.
// Strict as the contract says: any key order, unknown, missing or repeated keys, wrong
// types and out-of-range integers are errors.

#include <array>
#include <memory>
#include <span>
#include <string_view>

#include "methods/method.h"

namespace serbench {

class Msgpack {
 public:
  static constexpr std::string_view id = "msgpack";
  static constexpr std::array depths{Depth::materialize, Depth::access};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/msgpack.h"),
                                    std::string_view("drivers/cpp/src/methods/msgpack.cpp"),
                                    std::string_view("drivers/cpp/src/methods/msgpack_codec.h")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 1;

  Msgpack();
  ~Msgpack();

  template <class M>
  void encode(const M& value, Bytes& out);
  template <class M>
  M decode(std::span<const uint8_t> bytes);
  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h);

  // What changes its results, for `info`.
  static Json settings() { return Json::object({{"structs", "maps with field-name keys"}}); }

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace serbench
