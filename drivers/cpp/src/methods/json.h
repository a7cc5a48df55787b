#pragma once
// `json`: compact canonical JSON (the text of vectors/*.jsonl: fields in canonical order,
// absent optionals omitted, enums by name) through RapidJSON 1.1.0, the shared JSON format
// of every language. Writing uses RapidJSON's Writer into a reused buffer; reading parses
// into a DOM whose memory pool is reused from object to object (full-precision doubles,
// iterative parser). Depth materialize converts the DOM into native objects (strict: unknown
// or missing fields, wrong types, out-of-range integers, invalid UTF-8 are errors); depth
// access folds the checksum straight from the DOM, building no native objects.

#include <array>
#include <memory>
#include <span>
#include <string_view>

#include "methods/method.h"

namespace serbench {

class JsonMethod {
 public:
  static constexpr std::string_view id = "json";
  static constexpr std::array depths{Depth::materialize, Depth::access};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/json.h"),
                                    std::string_view("drivers/cpp/src/methods/json.cpp")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 1;

  JsonMethod();
  ~JsonMethod();

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
