#pragma once
// The serialize functions of the archive libraries (Boost.Serialization, cereal), written
// once over the record field lists: `save` and `load` walk a value in canonical field order
// and hand every part to a small adapter over the library's archive:
//
//   put(x) / get(x)                   one number (integers of any width, f64)
//   put_size(n) / get_size()          a list's element count
//   put_str(s) / get_chars(s, n)      a string (the library's own string format); the
//                                     reader is given the length, already bounded
//   put_numbers(p, n) / get_numbers(p, n)   a list of numbers as one array
//   position(), left()                bytes consumed and left in the object
//
// Records are written field by field with no class metadata: what Boost's
// object_serializable + track_never and cereal's unversioned classes produce, and what a
// careful user configures for plain data. bool, enum and presence are single bytes checked
// on reading (0/1, ordinal in range), so a corrupt byte never becomes an invalid bool.

#include <cstdint>
#include <memory>
#include <string>

#include "methods/method.h"
#include "model/record.h"
#include "model/utf8.h"

namespace serbench::archive_walk {

template <class Out, class T>
void save(Out& out, const T& v) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean || shape == Shape::enumeration) {
    out.put(uint8_t(v));
  } else if constexpr (shape == Shape::integer || shape == Shape::f64) {
    out.put(v);
  } else if constexpr (shape == Shape::str) {
    out.put_str(v);
  } else if constexpr (shape == Shape::list) {
    out.put_size(v.size());
    if constexpr (is_plain_number<element_t<T>>) {
      out.put_numbers(v.data(), v.size());
    } else {
      for (const auto& e : v) archive_walk::save(out, e);
    }
  } else if constexpr (shape == Shape::optional) {
    out.put(uint8_t(v ? 1 : 0));
    if (v) archive_walk::save(out, *v);
  } else {
    for_each_field<T>([&](auto f) { archive_walk::save(out, v.*f.member); });
  }
}

template <class In>
bool flag(In& in, const char* what) {
  uint8_t b;
  in.get(b);
  if (b > 1) {
    decode_error(in.position() - 1,
                 std::string(what) + " byte " + std::to_string(b) + " is not 0 or 1");
  }
  return b == 1;
}

// A count of parts that take at least one byte each: bounded before anything is allocated.
template <class In>
std::size_t count(In& in, const char* what) {
  const std::size_t at = in.position();
  const uint64_t n = in.get_size();
  if (n > in.left()) {
    decode_error(at, std::string(what) + " " + std::to_string(n) + " exceeds the " +
                         std::to_string(in.left()) + " bytes left");
  }
  return std::size_t(n);
}

template <class In, class T>
void load(In& in, T& v, int nesting) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    v = flag(in, "bool");
  } else if constexpr (shape == Shape::enumeration) {
    uint8_t b;
    in.get(b);
    if (b >= EnumSymbols<T>::names.size()) {
      decode_error(in.position() - 1, "enum ordinal " + std::to_string(b) + " is out of range");
    }
    v = T(b);
  } else if constexpr (shape == Shape::integer || shape == Shape::f64) {
    in.get(v);
  } else if constexpr (shape == Shape::str) {
    const std::size_t n = count(in, "string length");
    const std::size_t at = in.position();
    in.get_chars(v, n);
    if (std::size_t bad = utf8_check(reinterpret_cast<const uint8_t*>(v.data()), n); bad != n) {
      decode_error(at, "invalid UTF-8 in a string");
    }
  } else if constexpr (shape == Shape::list) {
    v.resize(count(in, "list count"));
    if constexpr (is_plain_number<element_t<T>>) {
      in.get_numbers(v.data(), v.size());
    } else {
      for (auto& e : v) archive_walk::load(in, e, nesting);
    }
  } else if constexpr (shape == Shape::optional) {
    if (!flag(in, "optional presence")) {
      v.reset();
    } else if constexpr (is_specialization<T, std::unique_ptr>) {
      if (nesting >= kMaxNesting) {
        decode_error(in.position(), "nested deeper than " + std::to_string(kMaxNesting) + " levels");
      }
      v = std::make_unique<value_t<T>>();
      archive_walk::load(in, *v, nesting + 1);
    } else {
      v.emplace();
      archive_walk::load(in, *v, nesting);
    }
  } else {
    for_each_field<T>([&](auto f) { archive_walk::load(in, v.*f.member, nesting); });
  }
}

}  // namespace serbench::archive_walk
