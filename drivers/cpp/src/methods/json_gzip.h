#pragma once
// `json_gzip`: the `json` method's text, each object one complete gzip member (RFC 1952) at
// zlib's default level 6, the shared format of every language. One z_stream each way is
// reused from object to object (deflateReset / inflateReset); zlib checks the member's
// header, CRC-32 and size. Depths as `json` (the DOM after inflating).

#include <array>
#include <memory>
#include <span>
#include <string_view>

#include "methods/json.h"
#include "methods/method.h"

namespace serbench {

class JsonGzip {
 public:
  static constexpr std::string_view id = "json_gzip";
  static constexpr int kLevel = 6;
  static constexpr std::array depths{Depth::materialize, Depth::access};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/json_gzip.h"),
                                    std::string_view("drivers/cpp/src/methods/json_gzip.cpp")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 1;

  JsonGzip();
  ~JsonGzip();

  template <class M>
  void encode(const M& value, Bytes& out);
  template <class M>
  M decode(std::span<const uint8_t> bytes);
  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h);

  // What changes its results, for `info`.
  static Json settings();

 private:
  // Inflates one member into text_; a bad member is a DecodeError.
  std::span<const uint8_t> inflate(std::span<const uint8_t> bytes);

  struct Streams;
  std::unique_ptr<Streams> streams_;
  JsonMethod json_;
  Bytes text_;
};

}  // namespace serbench
