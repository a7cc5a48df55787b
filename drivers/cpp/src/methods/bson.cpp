#include "methods/bson.h"

#include <bson/bson.h>

#include <limits>
#include <string>

#include "methods/instantiate.h"
#include "model/jsonl.h"
#include "model/utf8.h"

namespace serbench {

namespace {

using json_in::fail;

// ---- writing ----------------------------------------------------------------------------

template <class T>
void append_fields(bson_t* doc, const T& v);

template <class T>
void append(bson_t* doc, const char* key, int key_len, const T& v) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    bson_append_bool(doc, key, key_len, v);
  } else if constexpr (shape == Shape::integer) {
    if constexpr (sizeof(T) == 8) {
      bson_append_int64(doc, key, key_len, v);
    } else {
      bson_append_int32(doc, key, key_len, v);
    }
  } else if constexpr (shape == Shape::f64) {
    bson_append_double(doc, key, key_len, v);
  } else if constexpr (shape == Shape::enumeration) {
    const std::string_view name = EnumSymbols<T>::names[std::size_t(v)];
    bson_append_utf8(doc, key, key_len, name.data(), int(name.size()));
  } else if constexpr (shape == Shape::str) {
    bson_append_utf8(doc, key, key_len, v.data(), int(v.size()));
  } else if constexpr (shape == Shape::list) {
    bson_t array;
    bson_append_array_begin(doc, key, key_len, &array);
    char buffer[16];
    for (uint32_t i = 0; i < v.size(); ++i) {
      const char* index;
      const int index_len = int(bson_uint32_to_string(i, &index, buffer, sizeof buffer));
      append(&array, index, index_len, v[i]);
    }
    bson_append_array_end(doc, &array);
  } else if constexpr (shape == Shape::optional) {
    append(doc, key, key_len, *v);  // the record leaves absent optionals out
  } else {
    bson_t child;
    bson_append_document_begin(doc, key, key_len, &child);
    append_fields(&child, v);
    bson_append_document_end(doc, &child);
  }
}

template <class T>
void append_fields(bson_t* doc, const T& v) {
  for_each_field<T>([&](auto f) {
    const auto& value = v.*f.member;
    if constexpr (shape_v<typename decltype(f)::type> == Shape::optional) {
      if (!value) return;
    }
    append(doc, f.name.data(), int(f.name.size()), value);
  });
}

// ---- reading ----------------------------------------------------------------------------

std::string describe(bson_type_t type) {
  switch (type) {
    case BSON_TYPE_DOUBLE: return "double";
    case BSON_TYPE_UTF8: return "string";
    case BSON_TYPE_DOCUMENT: return "document";
    case BSON_TYPE_ARRAY: return "array";
    case BSON_TYPE_BOOL: return "boolean";
    case BSON_TYPE_NULL: return "null";
    case BSON_TYPE_INT32: return "int32";
    case BSON_TYPE_INT64: return "int64";
    default: return "element type " + std::to_string(int(type));
  }
}

void expect(const bson_iter_t& it, bson_type_t type) {
  if (bson_iter_type(&it) != type) fail("expected " + describe(type) + ", got " + describe(bson_iter_type(&it)));
}

template <class T>
T integer(const bson_iter_t& it) {
  int64_t v;
  if (bson_iter_type(&it) == BSON_TYPE_INT32) {
    v = bson_iter_int32(&it);
  } else if (bson_iter_type(&it) == BSON_TYPE_INT64) {
    v = bson_iter_int64(&it);
  } else {
    fail("expected an integer, got " + describe(bson_iter_type(&it)));
  }
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) {
    fail(std::to_string(v) + " out of range for i" + std::to_string(8 * sizeof(T)));
  }
  return T(v);
}

double f64(const bson_iter_t& it) {
  expect(it, BSON_TYPE_DOUBLE);
  return bson_iter_double(&it);
}

bool boolean(const bson_iter_t& it) {
  expect(it, BSON_TYPE_BOOL);  // bson_iter_next has checked the byte is 0 or 1
  return bson_iter_bool(&it);
}

std::string_view str(const bson_iter_t& it) {
  expect(it, BSON_TYPE_UTF8);
  uint32_t n;
  const char* s = bson_iter_utf8(&it, &n);
  if (!valid_utf8(s, n)) fail("string is not valid UTF-8");
  return {s, n};
}

template <class E>
E enumeration(const bson_iter_t& it) {
  const std::string_view s = str(it);
  constexpr auto& names = EnumSymbols<E>::names;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == s) return E(i);
  }
  fail(std::string("'").append(s).append("' is not a symbol of the enum"));
}

// The iterator over an embedded document or array.
bson_iter_t children(const bson_iter_t& it, bson_type_t type) {
  expect(it, type);
  bson_iter_t child;
  if (!bson_iter_recurse(&it, &child)) fail("corrupt embedded " + describe(type));
  return child;
}

// After iterating a (sub)document: did it end or break?
void check_end(const bson_iter_t& it) {
  if (it.err_off != 0) fail("corrupt element at byte " + std::to_string(it.err_off) + " of its document");
}

// An array's element count: a first pass, so the count can be folded (and reserved) first.
// Iterators come by reference and are copied here: an argument passed by value lies where the
// ABI puts it, short of bson_iter_t's 128-byte alignment (clang's UBSan reports it).
uint32_t count(const bson_iter_t& from) {
  bson_iter_t it = from;
  uint32_t n = 0;
  while (bson_iter_next(&it)) ++n;
  check_end(it);
  return n;
}

// Calls f(element) for every element of an array, naming the index in any error; the keys
// must be the indexes "0", "1", ... in order.
template <class F>
void each_element(const bson_iter_t& from, F&& f) {
  bson_iter_t it = from;
  char buffer[16];
  for (uint32_t i = 0; bson_iter_next(&it); ++i) {
    try {
      const char* index;
      const std::size_t n = bson_uint32_to_string(i, &index, buffer, sizeof buffer);
      const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
      if (key != std::string_view(index, n)) fail("array key '" + std::string(key) + "' is not its index");
      f(it);
    } catch (DataError& e) {
      e.prefix("[" + std::to_string(i) + "]");
      throw;
    }
  }
  check_end(it);
}

// A record's elements in canonical field order (present[i] false where the key is absent
// or null); any key order.
// (libbson over-aligns the bson_iter_t typedef beyond its size: an array needs a wrapper)
struct Slot {
  bson_iter_t it;
};

template <class T>
struct Slots {
  std::array<Slot, field_count<T>> at;
  std::array<bool, field_count<T>> present{};
};

template <class T>
void slots_of(const bson_iter_t& from, Slots<T>& slots) {
  bson_iter_t it = from;
  std::array<bool, field_count<T>> seen{};
  std::size_t guess = 0;
  while (bson_iter_next(&it)) {
    const std::string_view key(bson_iter_key(&it), bson_iter_key_len(&it));
    const std::size_t i = json_in::find_field<T>(key, guess);
    if (i == seen.size()) throw DataError(std::string(key), "unknown field of " + std::string(T::name_of));
    if (seen[i]) throw DataError(std::string(key), "repeated field");
    seen[i] = true;
    slots.present[i] = bson_iter_type(&it) != BSON_TYPE_NULL;
    slots.at[i].it = it;
    guess = i + 1;
  }
  check_end(it);
}

// Calls f(field, element or nullptr) for every field of a record in canonical order, naming
// the field in any error.
template <class T, class F>
void each_field(const bson_iter_t& doc, F&& f) {
  Slots<T> slots;
  slots_of<T>(doc, slots);
  std::size_t i = 0;
  for_each_field<T>([&](auto field) {
    const bson_iter_t* value = slots.present[i] ? &slots.at[i].it : nullptr;
    ++i;
    try {
      if (!value && shape_v<typename decltype(field)::type> != Shape::optional) {
        fail("missing required field");
      }
      f(field, value);
    } catch (DataError& e) {
      e.prefix(field.name);
      throw;
    }
  });
}

void enter(int& nesting) {
  if (++nesting > kMaxNesting) {
    fail("nested deeper than " + std::to_string(kMaxNesting) + " levels");
  }
}

template <class T>
void take_fields(const bson_iter_t& doc, T& out, int nesting);

// Materialize: the native value of one element.
template <class T>
void take(const bson_iter_t& it, T& out, int nesting) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    out = boolean(it);
  } else if constexpr (shape == Shape::integer) {
    out = integer<T>(it);
  } else if constexpr (shape == Shape::f64) {
    out = f64(it);
  } else if constexpr (shape == Shape::enumeration) {
    out = enumeration<T>(it);
  } else if constexpr (shape == Shape::str) {
    out = str(it);
  } else if constexpr (shape == Shape::list) {
    const bson_iter_t items = children(it, BSON_TYPE_ARRAY);
    out.resize(count(items));
    std::size_t i = 0;
    each_element(items, [&](const bson_iter_t& e) { take(e, out[i++], nesting); });
  } else {
    take_fields(children(it, BSON_TYPE_DOCUMENT), out, nesting);
  }
}

template <class T>
void take_fields(const bson_iter_t& doc, T& out, int nesting) {
  each_field<T>(doc, [&](auto field, const bson_iter_t* value) {
    using F = typename decltype(field)::type;
    F& member = out.*field.member;
    if constexpr (shape_v<F> == Shape::optional) {
      if (!value) {
        member.reset();
      } else if constexpr (is_specialization<F, std::unique_ptr>) {
        int deeper = nesting;
        enter(deeper);
        member = std::make_unique<value_t<F>>();
        take(*value, *member, deeper);
      } else {
        member.emplace();
        take(*value, *member, nesting);
      }
    } else {
      take(*value, member, nesting);
    }
  });
}

template <class T>
void visit_fields(const bson_iter_t& doc, Hasher& h, int nesting);

// Access: the checksum words of one element, straight from the bytes.
template <class T>
void visit(const bson_iter_t& it, Hasher& h, int nesting) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    h.word(boolean(it));
  } else if constexpr (shape == Shape::integer) {
    h.integer(integer<T>(it));
  } else if constexpr (shape == Shape::f64) {
    h.f64(f64(it));
  } else if constexpr (shape == Shape::enumeration) {
    h.integer(int64_t(enumeration<T>(it)));
  } else if constexpr (shape == Shape::str) {
    h.str(str(it));
  } else if constexpr (shape == Shape::list) {
    const bson_iter_t items = children(it, BSON_TYPE_ARRAY);
    h.word(count(items));
    each_element(items, [&](const bson_iter_t& e) { visit<element_t<T>>(e, h, nesting); });
  } else {
    visit_fields<T>(children(it, BSON_TYPE_DOCUMENT), h, nesting);
  }
}

template <class T>
void visit_fields(const bson_iter_t& doc, Hasher& h, int nesting) {
  each_field<T>(doc, [&](auto field, const bson_iter_t* value) {
    using F = typename decltype(field)::type;
    if constexpr (shape_v<F> == Shape::optional) {
      h.word(value != nullptr);
      if (!value) return;
      int deeper = nesting;
      if constexpr (is_specialization<F, std::unique_ptr>) enter(deeper);
      visit<value_t<F>>(*value, h, deeper);
    } else {
      visit<F>(*value, h, nesting);
    }
  });
}

// The iterator over one stored document, whose length must be exactly the object's.
bson_iter_t document(std::span<const uint8_t> bytes) {
  bson_iter_t it;
  // libbson aborts on a null pointer, which an empty span may hold
  if (bytes.empty() || !bson_iter_init_from_data(&it, bytes.data(), bytes.size())) {
    decode_error(0, "not a BSON document of " + std::to_string(bytes.size()) +
                        " bytes (length field or final NUL)");
  }
  return it;
}

}  // namespace

struct Bson::State {
  bson_t doc;
  State() { bson_init(&doc); }
  ~State() { bson_destroy(&doc); }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
};

Bson::Bson() : state_(std::make_unique<State>()) {}
Bson::~Bson() = default;

template <class M>
void Bson::encode(const M& value, Bytes& out) {
  bson_t* doc = &state_->doc;
  bson_reinit(doc);  // keeps the buffer of the previous object
  append_fields(doc, value);
  out.append(bson_get_data(doc), doc->len);
}

template <class M>
M Bson::decode(std::span<const uint8_t> bytes) {
  const bson_iter_t it = document(bytes);
  M value;
  try {
    take_fields(it, value, 0);
  } catch (const DataError& e) {
    decode_error(0, std::string("BSON: ") + e.what());
  }
  return value;
}

template <class M>
void Bson::fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
  if (mode.depth == Depth::materialize) {
    serbench::fold(h, decode<M>(bytes));
  } else if (mode.depth == Depth::access) {
    const bson_iter_t it = document(bytes);
    try {
      visit_fields<M>(it, h, 0);
    } catch (const DataError& e) {
      decode_error(0, std::string("BSON: ") + e.what());
    }
  } else {
    depth_error(id, mode.depth);
  }
}

SERBENCH_INSTANTIATE(Bson)

}  // namespace serbench
