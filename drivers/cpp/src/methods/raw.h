#pragma once
// `raw`: the floor every read is compared with. It reads the same pages in the same order as
// the methods do, but folds each object's bytes as checksum words (the byte length, then
// 8-byte little-endian chunks, as a string is folded) without decoding anything. It reads
// any method's file and encodes nothing; its `write` and `sort_dedup` copy another method's
// objects' bytes instead (the write and sort floors: tasks/write.h, tasks/sort_dedup.h).

#include <array>
#include <span>
#include <string_view>

#include "methods/method.h"

namespace serbench {

struct Raw {
  static constexpr std::string_view id = "raw";
  static constexpr std::array<Depth, 0> depths{};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/raw.h")};
  static constexpr bool writes = false;
  static constexpr std::size_t alignment = 1;

  template <class M>
  void encode(const M&, Bytes&) {
    throw Failure(Kind::internal, "raw writes nothing");
  }

  template <class M>
  M decode(std::span<const uint8_t>) {
    decode_error(0, "raw does not decode");
  }

  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
    if (mode.depth != Depth::none) depth_error(id, mode.depth);
    h.bytes(bytes.data(), bytes.size());
  }
};

}  // namespace serbench
