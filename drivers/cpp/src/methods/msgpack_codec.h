#pragma once
// The MessagePack of `msgpack` (PROTOCOL.md 8.2) and `msgpack_arrays` (8.2.1), through
// msgpack-cxx 4.1.3: one walk of the model for both, structs as maps with field-name keys or
// as arrays of their fields. Included only by the two methods' .cpp files.

#include <msgpack.hpp>

#include <bit>
#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "methods/method.h"
#include "model/jsonl.h"
#include "model/utf8.h"

namespace serbench::msgpack_codec {

enum class Structs { maps, arrays };

using msgpack::type::object_type;
using json_in::fail;

// Appends what the packer writes to the page buffer.
struct Sink {
  Bytes* out;
  void write(const char* p, std::size_t n) { out->append(p, n); }
};
using Packer = msgpack::packer<Sink>;

// Nested maps and arrays per tweet level are few; the limit only keeps hostile input off
// the stack.
constexpr std::size_t kMaxDepth = 1024;

template <Structs S, class T>
void pack(Sink& out, const T& v) {
  Packer pk(out);  // a reference to the sink: free to make
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    v ? pk.pack_true() : pk.pack_false();
  } else if constexpr (shape == Shape::integer) {
    pk.pack_int64(int64_t(v));  // the smallest encoding of the value
  } else if constexpr (shape == Shape::f64) {
    // not pk.pack_double: it writes integral values (and -0.0) as integers
    char f64[9] = {char(0xcb)};
    const uint64_t big_endian = __builtin_bswap64(std::bit_cast<uint64_t>(v));
    std::memcpy(f64 + 1, &big_endian, 8);
    out.write(f64, 9);
  } else if constexpr (shape == Shape::enumeration) {
    const std::string_view name = EnumSymbols<T>::names[std::size_t(v)];
    pk.pack_str(uint32_t(name.size()));
    pk.pack_str_body(name.data(), uint32_t(name.size()));
  } else if constexpr (shape == Shape::str) {
    pk.pack_str(uint32_t(v.size()));
    pk.pack_str_body(v.data(), uint32_t(v.size()));
  } else if constexpr (shape == Shape::list) {
    pk.pack_array(uint32_t(v.size()));
    for (const auto& e : v) pack<S>(out, e);
  } else if constexpr (shape == Shape::optional) {
    pack<S>(out, *v);  // the record writes absent optionals (nil) or leaves them out
  } else if constexpr (S == Structs::arrays) {
    pk.pack_array(uint32_t(field_count<T>));
    for_each_field<T>([&](auto f) {
      const auto& value = v.*f.member;
      if constexpr (shape_v<typename decltype(f)::type> == Shape::optional) {
        if (!value) {
          pk.pack_nil();
          return;
        }
      }
      pack<S>(out, value);
    });
  } else {
    uint32_t present = 0;
    for_each_field<T>([&](auto f) {
      if constexpr (shape_v<typename decltype(f)::type> == Shape::optional) {
        present += bool(v.*f.member);
      } else {
        ++present;
      }
    });
    pk.pack_map(present);
    for_each_field<T>([&](auto f) {
      const auto& value = v.*f.member;
      if constexpr (shape_v<typename decltype(f)::type> == Shape::optional) {
        if (!value) return;
      }
      pk.pack_str(uint32_t(f.name.size()));
      pk.pack_str_body(f.name.data(), uint32_t(f.name.size()));
      pack<S>(out, value);
    });
  }
}

// ---- reading ----------------------------------------------------------------------------

inline std::string describe(const msgpack::object& o) {
  switch (o.type) {
    case object_type::NIL: return "nil";
    case object_type::BOOLEAN: return "bool";
    case object_type::POSITIVE_INTEGER:
    case object_type::NEGATIVE_INTEGER: return "integer";
    case object_type::FLOAT32: return "float 32";
    case object_type::FLOAT64: return "float 64";
    case object_type::STR: return "str";
    case object_type::BIN: return "bin";
    case object_type::ARRAY: return "array";
    case object_type::MAP: return "map";
    default: return "ext";
  }
}

template <class T>
T integer(const msgpack::object& o) {
  const std::string kind = "i" + std::to_string(8 * sizeof(T));
  if (o.type == object_type::POSITIVE_INTEGER) {
    if (o.via.u64 > uint64_t(std::numeric_limits<T>::max())) {
      fail(std::to_string(o.via.u64) + " out of range for " + kind);
    }
    return T(o.via.u64);
  }
  if (o.type == object_type::NEGATIVE_INTEGER) {
    if (o.via.i64 < int64_t(std::numeric_limits<T>::min())) {
      fail(std::to_string(o.via.i64) + " out of range for " + kind);
    }
    return T(o.via.i64);
  }
  fail("expected " + kind + ", got " + describe(o));
}

inline double f64(const msgpack::object& o) {
  if (o.type != object_type::FLOAT64) fail("expected float 64, got " + describe(o));
  return o.via.f64;
}

inline bool boolean(const msgpack::object& o) {
  if (o.type != object_type::BOOLEAN) fail("expected bool, got " + describe(o));
  return o.via.boolean;
}

inline std::string_view str(const msgpack::object& o) {
  if (o.type != object_type::STR) fail("expected str, got " + describe(o));
  if (!valid_utf8(o.via.str.ptr, o.via.str.size)) fail("string is not valid UTF-8");
  return {o.via.str.ptr, o.via.str.size};
}

template <class E>
E enumeration(const msgpack::object& o) {
  const std::string_view s = str(o);
  constexpr auto& names = EnumSymbols<E>::names;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) return E(i);
  }
  fail("'" + std::string(s) + "' is not a symbol of the enum");
}

inline const msgpack::object_array& array(const msgpack::object& o) {
  if (o.type != object_type::ARRAY) fail("expected array, got " + describe(o));
  return o.via.array;
}

// A record's values in canonical field order; nullptr where the key is absent or nil.
template <class T>
std::array<const msgpack::object*, field_count<T>> fields_of_map(const msgpack::object& o) {
  if (o.type != object_type::MAP) fail("expected " + std::string(T::name_of) + " map, got " + describe(o));
  std::array<const msgpack::object*, field_count<T>> values{};
  std::array<bool, field_count<T>> seen{};
  std::size_t guess = 0;
  for (const msgpack::object_kv& kv : std::span(o.via.map.ptr, o.via.map.size)) {
    if (kv.key.type != object_type::STR) fail("a key of " + std::string(T::name_of) + " is " + describe(kv.key));
    const std::string_view key(kv.key.via.str.ptr, kv.key.via.str.size);
    const std::size_t i = json_in::find_field<T>(key, guess);
    if (i == values.size()) throw DataError(std::string(key), "unknown field of " + std::string(T::name_of));
    if (seen[i]) throw DataError(std::string(key), "repeated field");
    seen[i] = true;
    values[i] = kv.val.type == object_type::NIL ? nullptr : &kv.val;
    guess = i + 1;
  }
  return values;
}

// The same from an array holding exactly one value per field, nil for an absent optional.
template <class T>
std::array<const msgpack::object*, field_count<T>> fields_of_array(const msgpack::object& o) {
  const std::string name(T::name_of);
  if (o.type != object_type::ARRAY) fail("expected " + name + " array, got " + describe(o));
  if (o.via.array.size != field_count<T>) {
    fail("expected " + name + " array of " + std::to_string(field_count<T>) + " fields, got " +
         std::to_string(o.via.array.size));
  }
  std::array<const msgpack::object*, field_count<T>> values{};
  for (std::size_t i = 0; i < values.size(); ++i) {
    const msgpack::object& value = o.via.array.ptr[i];
    values[i] = value.type == object_type::NIL ? nullptr : &value;
  }
  return values;
}

// Calls f(field, value) for every field of a record in canonical order (value nullptr for
// an absent optional), naming the field in any error.
template <Structs S, class T, class F>
void each_field(const msgpack::object& o, F&& f) {
  const auto values = S == Structs::arrays ? fields_of_array<T>(o) : fields_of_map<T>(o);
  std::size_t i = 0;
  for_each_field<T>([&](auto field) {
    const msgpack::object* value = values[i++];
    try {
      if (!value && shape_v<typename decltype(field)::type> != Shape::optional) {
        fail(S == Structs::arrays ? "nil for a required field" : "missing required field");
      }
      f(field, value);
    } catch (DataError& e) {
      e.prefix(field.name);
      throw;
    }
  });
}

template <class T, class F>
void each_element(const msgpack::object& o, F&& f) {
  const msgpack::object_array& items = array(o);
  for (uint32_t i = 0; i < items.size; ++i) {
    try {
      f(items.ptr[i]);
    } catch (DataError& e) {
      e.prefix("[" + std::to_string(i) + "]");
      throw;
    }
  }
}

inline void enter(int& nesting) {
  if (++nesting > kMaxNesting) {
    fail("nested deeper than " + std::to_string(kMaxNesting) + " levels");
  }
}

// Materialize: the native object.
template <Structs S, class T>
void take(const msgpack::object& o, T& out, int nesting) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    out = boolean(o);
  } else if constexpr (shape == Shape::integer) {
    out = integer<T>(o);
  } else if constexpr (shape == Shape::f64) {
    out = f64(o);
  } else if constexpr (shape == Shape::enumeration) {
    out = enumeration<T>(o);
  } else if constexpr (shape == Shape::str) {
    out = str(o);
  } else if constexpr (shape == Shape::list) {
    out.resize(array(o).size);
    std::size_t i = 0;
    each_element<T>(o, [&](const msgpack::object& e) { take<S>(e, out[i++], nesting); });
  } else {
    each_field<S, T>(o, [&](auto field, const msgpack::object* value) {
      using F = typename decltype(field)::type;
      F& member = out.*field.member;
      if constexpr (shape_v<F> == Shape::optional) {
        if (!value) {
          member.reset();
        } else if constexpr (is_specialization<F, std::unique_ptr>) {
          int deeper = nesting;
          enter(deeper);
          member = std::make_unique<value_t<F>>();
          take<S>(*value, *member, deeper);
        } else {
          member.emplace();
          take<S>(*value, *member, nesting);
        }
      } else {
        take<S>(*value, member, nesting);
      }
    });
  }
}

// Access: the checksum words straight from the object views.
template <Structs S, class T>
void visit(const msgpack::object& o, Hasher& h, int nesting) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    h.word(boolean(o));
  } else if constexpr (shape == Shape::integer) {
    h.integer(integer<T>(o));
  } else if constexpr (shape == Shape::f64) {
    h.f64(f64(o));
  } else if constexpr (shape == Shape::enumeration) {
    h.integer(int64_t(enumeration<T>(o)));
  } else if constexpr (shape == Shape::str) {
    h.str(str(o));
  } else if constexpr (shape == Shape::list) {
    h.word(array(o).size);
    each_element<T>(o, [&](const msgpack::object& e) { visit<S, element_t<T>>(e, h, nesting); });
  } else {
    each_field<S, T>(o, [&](auto field, const msgpack::object* value) {
      using F = typename decltype(field)::type;
      if constexpr (shape_v<F> == Shape::optional) {
        h.word(value != nullptr);
        if (!value) return;
        int deeper = nesting;
        if constexpr (is_specialization<F, std::unique_ptr>) enter(deeper);
        visit<S, value_t<F>>(*value, h, deeper);
      } else {
        visit<S, F>(*value, h, nesting);
      }
    });
  }
}

// Strings stay in the page: the views point into it.
inline bool reference_everything(object_type, std::size_t, void*) { return true; }

// The object views of one stored value, reusing the zone from object to object.
struct Unpacked {
  msgpack::zone zone;

  // Bad bytes name where the parser stopped.
  const msgpack::object& unpack(std::span<const uint8_t> bytes) {
    zone.clear();  // the previous object's views are dead: reuse their memory
    // every element takes at least one byte: counts beyond that are corrupt, not allocated
    const std::size_t n = bytes.size();
    const msgpack::unpack_limit limit(n, n, n, 0, 0, kMaxDepth);
    std::size_t off = 0;
    try {
      root = msgpack::unpack(zone, reinterpret_cast<const char*>(bytes.data()), n, off,
                             reference_everything, nullptr, limit);
    } catch (const std::exception& e) {
      decode_error(off, std::string("msgpack: ") + e.what());
    }
    if (off != n) decode_error(off, std::to_string(n - off) + " trailing bytes after the object");
    return root;
  }

  msgpack::object root;
};

template <Structs S, class M>
void encode(const M& value, Bytes& out) {
  Sink sink{&out};
  pack<S>(sink, value);
}

template <Structs S, class M>
M decode(Unpacked& unpacked, std::span<const uint8_t> bytes) {
  const msgpack::object& root = unpacked.unpack(bytes);
  M value;
  try {
    take<S>(root, value, 0);
  } catch (const DataError& e) {
    decode_error(0, std::string("msgpack: ") + e.what());
  }
  return value;
}

template <Structs S, class M>
void fold(std::string_view id, Unpacked& unpacked, std::span<const uint8_t> bytes,
          const ReadMode& mode, Hasher& h) {
  if (mode.depth == Depth::materialize) {
    serbench::fold(h, decode<S, M>(unpacked, bytes));
  } else if (mode.depth == Depth::access) {
    const msgpack::object& root = unpacked.unpack(bytes);
    try {
      visit<S, M>(root, h, 0);
    } catch (const DataError& e) {
      decode_error(0, std::string("msgpack: ") + e.what());
    }
  } else {
    depth_error(id, mode.depth);
  }
}

}  // namespace serbench::msgpack_codec
