#pragma once
// The total order of docs/models.md: a model's key fields first, then every field in canonical
// order. Strings compare by UTF-8 bytes, lists lexicographically, absent before present,
// f64 by IEEE total order (-0.0 < 0.0, as the checksum tells them apart), enums by ordinal.

#include <bit>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "model/model_id.h"
#include "model/record.h"

namespace serbench {

// Negative, zero or positive, like memcmp.
template <class T>
int compare(const T& a, const T& b) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::f64) {
    auto key = [](double v) {
      auto bits = std::bit_cast<int64_t>(v);
      return bits ^ int64_t(uint64_t(bits >> 63) >> 1);
    };
    return (key(a) > key(b)) - (key(a) < key(b));
  } else if constexpr (shape == Shape::boolean || shape == Shape::integer ||
                       shape == Shape::enumeration) {
    return (a > b) - (a < b);
  } else if constexpr (shape == Shape::str) {
    int c = std::string_view(a).compare(std::string_view(b));
    return (c > 0) - (c < 0);
  } else if constexpr (shape == Shape::list) {
    auto ia = a.begin(), ib = b.begin();
    for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
      if (int c = compare(*ia, *ib)) return c;
    }
    return (ia != a.end()) - (ib != b.end());
  } else if constexpr (shape == Shape::optional) {
    if (!a || !b) return bool(a) - bool(b);
    return compare(*a, *b);
  } else {
    int c = 0;
    for_each_field<T>([&](auto f) {
      if (c == 0) c = compare(a.*f.member, b.*f.member);
    });
    return c;
  }
}

// The model's total order: key fields, then every field.
template <class M>
int total_compare(const M& a, const M& b) {
  int c = 0;
  std::apply([&](auto... key) { ((c = c ? c : compare(a.*key, b.*key)), ...); }, Model<M>::key);
  return c ? c : compare(a, b);
}

// Duplicates are values equal in every field (-0.0 differs from 0.0).
template <class T>
bool total_equal(const T& a, const T& b) {
  return compare(a, b) == 0;
}

}  // namespace serbench
