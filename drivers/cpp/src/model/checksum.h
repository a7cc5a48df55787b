#pragma once
// The logical checksum (docs/checksum.md): a value becomes a stream of u64 words folded FNV-1a
// style. `Hasher` is the word-level API, usable straight from bytes; `fold` walks any value
// whose parts have a Shape (native objects and in-place ones alike).

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "model/record.h"

namespace serbench {

static_assert(std::endian::native == std::endian::little,
              "the shared layouts are little-endian and read with plain loads");

inline constexpr uint64_t kSeed = 0xcbf29ce484222325ULL;
inline constexpr uint64_t kPrime = 0x100000001b3ULL;

inline uint64_t load_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// The n (1..7) bytes at p as a little-endian word, zero-padded, without reading past them.
inline uint64_t load_tail(const uint8_t* p, std::size_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | (uint64_t(hi) << ((n - 4) * 8));
  }
  if (n >= 2) {
    uint16_t lo, hi;
    std::memcpy(&lo, p, 2);
    std::memcpy(&hi, p + n - 2, 2);
    return lo | (uint64_t(hi) << ((n - 2) * 8));
  }
  return p[0];
}

class Hasher {
 public:
  void word(uint64_t w) { h_ = (h_ ^ w) * kPrime; }
  // Integers of any width and enum ordinals: sign-extended to 64 bits.
  void integer(int64_t v) { word(uint64_t(v)); }
  void f64(double v) { word(std::bit_cast<uint64_t>(v)); }
  // Byte length, then 8-byte little-endian chunks, the last one zero-padded.
  void bytes(const void* data, std::size_t n) {
    auto* p = static_cast<const uint8_t*>(data);
    word(n);
    std::size_t full = n & ~std::size_t(7);
    for (std::size_t i = 0; i < full; i += 8) word(load_u64(p + i));
    if (std::size_t rest = n - full) {
      // after a full chunk, the tail is the top of the string's last 8 bytes: one load
      word(n >= 8 ? load_u64(p + n - 8) >> (64 - 8 * rest) : load_tail(p, n));
    }
  }
  void str(std::string_view s) { bytes(s.data(), s.size()); }
  uint64_t finish() const { return h_; }

 private:
  uint64_t h_ = kSeed;
};

// The walk behind fold().
template <class T>
void fold_value(Hasher& h, const T& v) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    h.word(v ? 1 : 0);
  } else if constexpr (shape == Shape::integer) {
    h.integer(int64_t(v));
  } else if constexpr (shape == Shape::f64) {
    h.f64(v);
  } else if constexpr (shape == Shape::enumeration) {
    h.integer(int64_t(v));
  } else if constexpr (shape == Shape::str) {
    h.str(std::string_view(v));
  } else if constexpr (shape == Shape::list) {
    h.word(v.size());
    for (const auto& e : v) fold_value(h, e);
  } else if constexpr (shape == Shape::optional) {
    if (v) {
      h.word(1);
      fold_value(h, *v);
    } else {
      h.word(0);
    }
  } else {
    for_each_field<T>([&](auto f) { fold_value(h, v.*f.member); });
  }
}

// Folds the words of any value, depth-first in canonical field order, as one function:
// everything the walk calls is inlined (up to a recursive tweet), so the hash stays in a
// register; a call per string or record would pass it through memory on its serial chain.
template <class T>
[[gnu::flatten]] void fold(Hasher& h, const T& v) {
  fold_value(h, v);
}

template <class T>
uint64_t object_hash(const T& v) {
  Hasher h;
  fold(h, v);
  return h.finish();
}

// Count and wrapping sum of object hashes: independent of order.
struct SetChecksum {
  uint64_t count = 0;
  uint64_t sum = 0;
  void add(uint64_t hash) {
    ++count;
    sum += hash;
  }
  bool operator==(const SetChecksum&) const = default;
};

// u64 values travel as 16 lowercase hex digits.
inline std::string hex64(uint64_t v) {
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[i] = "0123456789abcdef"[v & 15];
  return out;
}

}  // namespace serbench
