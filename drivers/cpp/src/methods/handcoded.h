#pragma once
// `handcoded`: the shared little-endian layout of PROTOCOL.md section 7, byte-identical in
// every language. Integers at their width, f64 as 8 bytes, bool as one byte 0/1, str as u32
// length + UTF-8, optional as one presence byte + value, list as u32 count + elements,
// nested structs inline, enums as one ordinal byte; fields in canonical order, copied with
// memcpy one by one (lists of numbers in one block).
//
// The record field lists drive all three directions: `put` (encode), `take` (decode into
// native objects, depth materialize) and `visit` (fold the checksum straight from the bytes,
// depth access, no native objects). Both readers check every length and byte and throw a
// DecodeError; they never read outside the object.

#include <array>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "methods/method.h"
#include "model/record.h"
#include "model/utf8.h"

namespace serbench {

namespace handcoded {

// The fewest bytes a value of T takes: bounds a count before anything is allocated for it.
template <class T>
constexpr std::size_t min_size() {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean || shape == Shape::enumeration ||
                shape == Shape::optional) {
    return 1;
  } else if constexpr (shape == Shape::integer || shape == Shape::f64) {
    return sizeof(T);
  } else if constexpr (shape == Shape::str || shape == Shape::list) {
    return 4;
  } else {
    std::size_t n = 0;
    for_each_field<T>([&](auto f) { n += min_size<typename decltype(f)::type>(); });
    return n;
  }
}

// ---- encode ---------------------------------------------------------------------------

template <class T>
void put(Bytes& out, const T& v) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    out.push(v ? 1 : 0);
  } else if constexpr (shape == Shape::integer || shape == Shape::f64) {
    out.append(&v, sizeof v);
  } else if constexpr (shape == Shape::enumeration) {
    out.push(uint8_t(v));
  } else if constexpr (shape == Shape::str) {
    uint32_t n = uint32_t(v.size());
    out.append(&n, 4);
    out.append(v.data(), n);
  } else if constexpr (shape == Shape::list) {
    uint32_t n = uint32_t(v.size());
    out.append(&n, 4);
    if constexpr (is_plain_number<element_t<T>>) {
      out.append(v.data(), n * sizeof(element_t<T>));
    } else {
      for (const auto& e : v) put(out, e);
    }
  } else if constexpr (shape == Shape::optional) {
    out.push(v ? 1 : 0);
    if (v) put(out, *v);
  } else {
    for_each_field<T>([&](auto f) { put(out, v.*f.member); });
  }
}

// ---- read -------------------------------------------------------------------------------

// A bounds-checked cursor over one object's bytes.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes)
      : begin_(bytes.data()), p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  std::size_t left() const { return std::size_t(end_ - p_); }
  std::size_t pos() const { return std::size_t(p_ - begin_); }

  // The next n bytes, which must be there.
  const uint8_t* take(std::size_t n) {
    if (n > left()) truncated(n);
    const uint8_t* at = p_;
    p_ += n;
    return at;
  }
  template <class T>
  T scalar() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  // A bool or presence byte: 0 or 1.
  bool flag(const char* what) {
    uint8_t b = *take(1);
    if (b > 1)
      decode_error(pos() - 1, std::string(what) + " byte " + std::to_string(b) + " is not 0 or 1");
    return b == 1;
  }
  // A u32 count of elements of at least `element_size` bytes each, which must fit.
  uint32_t count(std::size_t element_size, const char* what) {
    uint32_t n = scalar<uint32_t>();
    if (uint64_t(n) * element_size > left()) {
      decode_error(pos() - 4, std::string(what) + " " + std::to_string(n) + " exceeds the " +
                                  std::to_string(left()) + " bytes left");
    }
    return n;
  }
  // A string's UTF-8 bytes, checked.
  std::string_view str() {
    uint32_t n = count(1, "string length");
    const uint8_t* s = take(n);
    if (std::size_t bad = utf8_check(s, n); bad != n) {
      decode_error(pos() - n + bad, "invalid UTF-8 in a string");
    }
    return {reinterpret_cast<const char*>(s), n};
  }
  void enter() {
    if (++nesting_ > kMaxNesting) {
      decode_error(pos(), "nested deeper than " + std::to_string(kMaxNesting) + " levels");
    }
  }
  void leave() { --nesting_; }
  // Every byte must belong to the object.
  void finish() const {
    if (left() != 0)
      decode_error(pos(), std::to_string(left()) + " trailing bytes after the object");
  }

 private:
  [[noreturn]] void truncated(std::size_t need) const {
    decode_error(pos(), "truncated: " + std::to_string(need) + " bytes needed, " +
                            std::to_string(left()) + " left");
  }

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  int nesting_ = 0;
};

template <class E>
E take_enum(Reader& r) {
  uint8_t b = *r.take(1);
  if (b >= EnumSymbols<E>::names.size()) {
    decode_error(r.pos() - 1, "enum ordinal " + std::to_string(b) + " is out of range");
  }
  return E(b);
}

// Decodes one value into a native object.
template <class T>
void take(Reader& r, T& out) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    out = r.flag("bool");
  } else if constexpr (shape == Shape::integer || shape == Shape::f64) {
    out = r.scalar<T>();
  } else if constexpr (shape == Shape::enumeration) {
    out = take_enum<T>(r);
  } else if constexpr (shape == Shape::str) {
    out = r.str();
  } else if constexpr (shape == Shape::list) {
    using E = element_t<T>;
    uint32_t n = r.count(min_size<E>(), "list count");
    out.resize(n);
    if constexpr (is_plain_number<E>) {
      const uint8_t* items = r.take(n * sizeof(E));
      if (n) std::memcpy(out.data(), items, n * sizeof(E));
    } else {
      for (auto& e : out) take(r, e);
    }
  } else if constexpr (shape == Shape::optional) {
    if (!r.flag("optional presence")) {
      out.reset();
    } else if constexpr (is_specialization<T, std::unique_ptr>) {
      r.enter();
      out = std::make_unique<value_t<T>>();
      take(r, *out);
      r.leave();
    } else {
      out.emplace();
      take(r, *out);
    }
  } else {
    for_each_field<T>([&](auto f) { take(r, out.*f.member); });
  }
}

// Folds the checksum words of one value of type T straight from the bytes, checking them as
// `take` does. One function per record type (flatten): a call per string would pass the hash
// through memory on its serial chain (customer access ~1,215 -> ~1,020 us).
template <class T>
[[gnu::flatten]] void visit(Reader& r, Hasher& h) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    h.word(r.flag("bool"));
  } else if constexpr (shape == Shape::integer) {
    h.integer(int64_t(r.scalar<T>()));
  } else if constexpr (shape == Shape::f64) {
    h.word(r.scalar<uint64_t>());
  } else if constexpr (shape == Shape::enumeration) {
    h.integer(int64_t(take_enum<T>(r)));
  } else if constexpr (shape == Shape::str) {
    h.str(r.str());
  } else if constexpr (shape == Shape::list) {
    using E = element_t<T>;
    uint32_t n = r.count(min_size<E>(), "list count");
    h.word(n);
    for (uint32_t i = 0; i < n; ++i) visit<E>(r, h);
  } else if constexpr (shape == Shape::optional) {
    bool present = r.flag("optional presence");
    h.word(present);
    if (present) {
      if constexpr (is_specialization<T, std::unique_ptr>) r.enter();
      visit<value_t<T>>(r, h);
      if constexpr (is_specialization<T, std::unique_ptr>) r.leave();
    }
  } else {
    for_each_field<T>([&](auto f) { visit<typename decltype(f)::type>(r, h); });
  }
}

}  // namespace handcoded

struct Handcoded {
  static constexpr std::string_view id = "handcoded";
  static constexpr std::array depths{Depth::materialize, Depth::access};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/handcoded.h")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 1;

  template <class M>
  void encode(const M& value, Bytes& out) {
    handcoded::put(out, value);
  }

  template <class M>
  M decode(std::span<const uint8_t> bytes) {
    handcoded::Reader r(bytes);
    M value;
    handcoded::take(r, value);
    r.finish();
    return value;
  }

  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
    if (mode.depth == Depth::materialize) {
      serbench::fold(h, decode<M>(bytes));
    } else if (mode.depth == Depth::access) {
      handcoded::Reader r(bytes);
      handcoded::visit<M>(r, h);
      r.finish();
    } else {
      depth_error(id, mode.depth);
    }
  }
};

}  // namespace serbench
