#pragma once
// `msgpack_arrays`: the `msgpack` method (msgpack.h) with every struct an array of its fields
// in schema order, an absent optional nil in its place (PROTOCOL.md 8.2.1): no field names,
// so about half the bytes on tweets. Read as strictly: an array of another length than the
// struct's field count, or nil for a required field, is an error.

#include <array>
#include <memory>
#include <span>
#include <string_view>

#include "methods/method.h"

namespace serbench {

class MsgpackArrays {
 public:
  static constexpr std::string_view id = "msgpack_arrays";
  static constexpr std::array depths{Depth::materialize, Depth::access};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/msgpack_arrays.h"),
                                    std::string_view("drivers/cpp/src/methods/msgpack_arrays.cpp"),
                                    std::string_view("drivers/cpp/src/methods/msgpack_codec.h")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 1;

  MsgpackArrays();
  ~MsgpackArrays();

  template <class M>
  void encode(const M& value, Bytes& out);
  template <class M>
  M decode(std::span<const uint8_t> bytes);
  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h);

  // What changes its results, for `info`.
  static Json settings() { return Json::object({{"structs", "arrays of their fields in schema order"}}); }

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace serbench
