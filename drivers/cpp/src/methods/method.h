#pragma once
// The method axis: every physical implementation behind ONE interface, written once per
// method and generic over the model type M (a root type of model/model_id.h). A method is a
// class with
//
//   static constexpr std::string_view id;              // the protocol's method id
//   static constexpr std::array<Depth, N> depths;     // empty: folds bytes without decoding
//   static constexpr std::array<std::string_view, K> variants;  // besides the default ""
//   static constexpr std::array<std::string_view, F> files;     // its own sources (sizes task)
//   static constexpr bool writes;                      // false: reads any method's files
//   static constexpr std::size_t alignment;            // of its objects within a page
//   template <class M> void encode(const M&, Bytes& out);       // appends one object
//   template <class M> M decode(std::span<const uint8_t>);      // into a native object
//   template <class M> void fold(std::span<const uint8_t>, const ReadMode&, Hasher&);
//
// `fold` is the read step of every task: it visits every field of one stored object at the
// mode's depth (and variant) and folds the checksum words into the hasher; a bad object is
// a DecodeError. A method is created once per request, so it may keep reusable state.
// Adding a method is one file here and one line in registry.cpp.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "bytes.h"
#include "model/checksum.h"
#include "model/models.h"
#include "protocol.h"

namespace serbench {

// What one read asks of a method: the depth and the variant, as an index into the method's
// `variants` plus one (0 is the default variant ""); and the request's run stamp, the only
// run whose files a read that trusts its bytes opens (PROTOCOL.md 3).
struct ReadMode {
  Depth depth = Depth::none;
  std::size_t variant = 0;
  RunStamp run_stamp = {};
};

// Why a stored object could not be read: what is wrong, at which byte of the object.
struct DecodeError {
  std::size_t at;
  std::string message;
  std::string text() const { return "byte " + std::to_string(at) + ": " + message; }
};

[[noreturn]] inline void decode_error(std::size_t at, std::string message) {
  throw DecodeError{at, std::move(message)};
}

// A depth the registry does not let through to this method.
[[noreturn]] inline void depth_error(std::string_view method, Depth depth) {
  decode_error(
      0, std::string(method) + " does not read at depth '" + std::string(depth_id(depth)) + "'");
}

// The interface above, checked on one model type (the members are templates).
template <class T>
concept Method = std::default_initializable<T> &&
    requires(T method, const Trade& value, Bytes& out, std::span<const uint8_t> bytes,
             const ReadMode& mode, Hasher& h) {
  { T::id } -> std::convertible_to<std::string_view>;
  T::depths;
  T::variants;
  T::files;
  { T::writes } -> std::convertible_to<bool>;
  { T::alignment } -> std::convertible_to<std::size_t>;
  method.template encode<Trade>(value, out);
  { method.template decode<Trade>(bytes) } -> std::same_as<Trade>;
  method.template fold<Trade>(bytes, mode, h);
};

}  // namespace serbench
