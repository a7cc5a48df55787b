#pragma once
// UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace serbench {

// Index of the first byte of the first invalid sequence, or n when all is valid.
std::size_t utf8_error_at(const uint8_t* p, std::size_t n, std::size_t from);

inline bool is_ascii8(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return (w & 0x8080808080808080ULL) == 0;
}

// Same contract as utf8_error_at, with the all-ASCII common case inline: whole words, the
// tail of a string of 8 bytes or more as its last word (no loop over single bytes).
inline std::size_t utf8_check(const uint8_t* p, std::size_t n) {
  if (n < 8) {
    for (std::size_t i = 0; i < n; ++i) {
      if (p[i] >= 0x80) return utf8_error_at(p, n, i);
    }
    return n;
  }
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    if (!is_ascii8(p + i)) return utf8_error_at(p, n, i);
  }
  return i == n || is_ascii8(p + n - 8) ? n : utf8_error_at(p, n, i);
}

inline bool valid_utf8(const void* p, std::size_t n) {
  return utf8_check(static_cast<const uint8_t*>(p), n) == n;
}

}  // namespace serbench
