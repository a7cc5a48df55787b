#include "model/utf8.h"

namespace serbench {

std::size_t utf8_error_at(const uint8_t* p, std::size_t n, std::size_t i) {
  auto cont = [&](std::size_t at) { return at < n && (p[at] & 0xC0) == 0x80; };
  while (i < n) {
    uint8_t b = p[i];
    if (b < 0x80) {
      ++i;
    } else if (b >= 0xC2 && b <= 0xDF) {
      if (!cont(i + 1)) return i;
      i += 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      if (!cont(i + 1) || !cont(i + 2)) return i;
      uint8_t b1 = p[i + 1];
      if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 > 0x9F)) return i;  // overlong, surrogate
      i += 3;
    } else if (b >= 0xF0 && b <= 0xF4) {
      if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return i;
      uint8_t b1 = p[i + 1];
      if ((b == 0xF0 && b1 < 0x90) || (b == 0xF4 && b1 > 0x8F)) return i;  // overlong, > U+10FFFF
      i += 4;
    } else {
      return i;
    }
  }
  return n;
}

}  // namespace serbench
