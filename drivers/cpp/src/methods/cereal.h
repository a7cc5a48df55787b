#pragma once
// `cereal`: cereal 1.3.2 binary archives, one archive per object, written
// straight into the page buffer and read from the page bytes in place (streambufs reused
// from object to object). Depth materialize.

#include <array>
#include <memory>
#include <span>
#include <string_view>

#include "methods/method.h"

namespace serbench {

class Cereal {
 public:
  static constexpr std::string_view id = "cereal";
  static constexpr std::array depths{Depth::materialize};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/cereal.h"),
                                    std::string_view("drivers/cpp/src/methods/cereal.cpp"),
                                    std::string_view("drivers/cpp/src/methods/archive_walk.h"),
                                    std::string_view("drivers/cpp/src/methods/streams.h")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 1;

  Cereal();
  ~Cereal();

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
