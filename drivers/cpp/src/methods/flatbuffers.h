#pragma once
// `flatbuffers`: FlatBuffers with the code flatc generates written from the model definitions at build time.
// One stored object is one finished flatbuffer (no size prefix, no file identifier).
//
// Writing reuses one FlatBufferBuilder (Clear() keeps its buffer): a record's strings,
// vectors and sub-tables are created first, then its table is built through the generated
// <Table>Builder, scalars and offsets added widest first so the table packs without padding.
// Empty required strings and lists are omitted (they read as empty); an optional one that
// is present but empty is written empty, so absent and empty stay apart. Scalars equal to
// their default are omitted, except -0.0, which the checksum tells from 0.0.
//
// Reading runs the flatbuffers Verifier over the buffer first (how a careful user reads
// untrusted bytes), with limits on tables and depth that the buffer's length sets; only a
// verified buffer is read. `access` reads every field through the generated accessors;
// `materialize` converts through the same accessors into native structs (not the object
// API, which turns absent optional strings and lists into empty ones). Both walks check each
// string's UTF-8 and count the bytes of strings and lists they read against the buffer's
// length (the Verifier checks these in O(1) however often they are shared), so reading a
// buffer is linear in its size.

#include <flatbuffers/flatbuffers.h>

#include <array>
#include <cmath>
#include <span>
#include <string_view>
#include <vector>

#include "methods/flatbuffers_tables.h"
#include "methods/handcoded.h"
#include "methods/schema.h"
#include "model/utf8.h"

namespace serbench {

namespace fbuf {

using namespace schema;

// The generated table of a native record, and its accessors in canonical field order.
template <class R>
struct Bound;

#define SB_FB_FIELD(pb, fb, Cp)                         \
  [](auto op, auto& t, auto&&... a) -> decltype(auto) { \
    if constexpr (std::is_same_v<decltype(op), Get>) {  \
      return t.fb();                                    \
    } else {                                            \
      return t.add_##fb(a...);                          \
    }                                                   \
  },
#define SB_FB_RECORD(Name)                                                  \
  template <>                                                               \
  struct Bound<Name##T<Native>> {                                           \
    using type = ::serbench::fb::Name;                                      \
    static constexpr auto fields() { return std::tuple{SB_SCHEMA_FIELDS_##Name(SB_FB_FIELD)}; } \
  };
SB_SCHEMA_RECORDS(SB_FB_RECORD)
#undef SB_FB_RECORD
#undef SB_FB_FIELD

template <class R>
using Table = typename Bound<R>::type;

// Bytes a field takes in its table: offsets are 4, scalars their width.
template <class T>
constexpr std::size_t slot_size() {
  if constexpr (shape_v<T> == Shape::optional) {
    return is_scalar<value_t<T>> ? slot_size<value_t<T>>() : 4;
  } else if constexpr (shape_v<T> == Shape::boolean || shape_v<T> == Shape::enumeration) {
    return 1;
  } else if constexpr (is_scalar<T>) {
    return sizeof(T);
  } else {
    return 4;
  }
}

// The one field, `values`, of a wrapper table (DoubleList, ...) a list of lists holds.
template <class W>
auto wrapped(const W& w) {
  return w.values();
}

// ---- native -> buffer ----------------------------------------------------------------------

class Writer {
 public:
  template <class M>
  void write(const M& value, Bytes& out) {
    fbb_.Clear();
    fbb_.Finish(flatbuffers::Offset<Table<M>>(record(value)));
    out.append(fbb_.GetBufferPointer(), fbb_.GetSize());
  }

 private:
  // The offset of a string, vector or table value (0: nothing written); `keep_empty` for
  // present optionals.
  template <class T>
  flatbuffers::uoffset_t child(const T& v, bool keep_empty) {
    constexpr Shape shape = shape_v<T>;
    if constexpr (shape == Shape::str) {
      if (v.empty() && !keep_empty) return 0;
      return fbb_.CreateString(v.data(), v.size()).o;
    } else if constexpr (shape == Shape::list) {
      if (v.empty() && !keep_empty) return 0;
      return list(v);
    } else {
      return record(v);
    }
  }

  template <class E>
  flatbuffers::uoffset_t list(const std::vector<E>& v) {
    if constexpr (is_plain_number<E>) {
      return fbb_.CreateVector(v.data(), v.size()).o;
    } else {
      // the elements first, their offsets on a stack shared by every nesting level
      const std::size_t base = offsets_.size();
      for (const auto& e : v) {
        if constexpr (shape_v<E> == Shape::list) {
          offsets_.emplace_back(wrap(e));
        } else {
          offsets_.emplace_back(child(e, true));
        }
      }
      const auto vec = fbb_.CreateVector(offsets_.data() + base, v.size());
      offsets_.resize(base);
      return vec.o;
    }
  }

  // A list inside a list: a wrapper table whose field 0 is the inner list.
  template <class E>
  flatbuffers::uoffset_t wrap(const std::vector<E>& inner) {
    const flatbuffers::uoffset_t values = child(inner, false);
    const flatbuffers::uoffset_t start = fbb_.StartTable();
    if (values) fbb_.AddOffset(flatbuffers::FieldIndexToOffset(0), flatbuffers::Offset<void>(values));
    return fbb_.EndTable(start);
  }

  template <class R>
  flatbuffers::uoffset_t record(const R& v) {
    std::array<flatbuffers::uoffset_t, field_count<R>> children{};
    for_each_bound<R, Bound<R>>([&](auto field, auto, auto i) {
      using T = typename decltype(field)::type;
      const T& x = v.*field.member;
      if constexpr (shape_v<T> == Shape::optional) {
        if constexpr (!is_scalar<value_t<T>>) {
          if (x) children[i] = child(*x, true);
        }
      } else if constexpr (!is_scalar<T>) {
        children[i] = child(x, false);
      }
    });
    typename Table<R>::Builder b(fbb_);
    for (std::size_t size : {8, 4, 2, 1}) {
      for_each_bound<R, Bound<R>>([&](auto field, auto f, auto i) {
        using T = typename decltype(field)::type;
        if (slot_size<T>() == size) add(b, f, v.*field.member, children[i]);
      });
    }
    return b.Finish().o;
  }

  template <class B, class F, class T>
  void add(B& b, F f, const T& x, flatbuffers::uoffset_t child) {
    if constexpr (shape_v<T> == Shape::optional) {
      if constexpr (is_scalar<value_t<T>>) {
        if (x) f(Add{}, b, *x);
      } else {
        if (child) f(Add{}, b, child);
      }
    } else if constexpr (shape_v<T> == Shape::enumeration) {
      using FbEnum = std::remove_cvref_t<decltype(f(Get{}, std::declval<const typename B::Table&>()))>;
      f(Add{}, b, FbEnum(x));
    } else if constexpr (shape_v<T> == Shape::f64) {
      // the builder drops a value equal to the default 0.0, and -0.0 compares equal
      const bool negative_zero = x == 0 && std::signbit(x);
      if (negative_zero) fbb_.ForceDefaults(true);
      f(Add{}, b, x);
      if (negative_zero) fbb_.ForceDefaults(false);
    } else if constexpr (is_scalar<T>) {
      f(Add{}, b, x);
    } else {
      if (child) f(Add{}, b, child);
    }
  }

  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<flatbuffers::Offset<void>> offsets_;
};

// ---- reading a verified buffer ------------------------------------------------------------

// One read of a buffer: its strings and lists, counted. The builder writes every string and
// list once, so an honest buffer's reads fit in its length; a buffer whose offsets share
// them (a DAG read as a tree) runs out before the reader does work its size does not pay for.
class Reading {
 public:
  explicit Reading(std::span<const uint8_t> bytes) : base_(bytes.data()), left_(bytes.size()) {}

  std::string_view str(const flatbuffers::String* s) {
    if (!s) return {};
    const auto* p = reinterpret_cast<const uint8_t*>(s->c_str());
    spend(p, s->size(), "a string");
    if (std::size_t bad = utf8_check(p, s->size()); bad != s->size())
      decode_error(at(p) + bad, "invalid UTF-8 in a string");
    return {s->c_str(), s->size()};
  }

  // A list's elements as stored: numbers, or offsets to strings and tables.
  template <class V>
  void list(const V* v) {
    if (v) spend(v->Data(), v->size() * sizeof(*v->data()), "a list");
  }

 private:
  std::size_t at(const uint8_t* p) const { return std::size_t(p - base_); }

  void spend(const uint8_t* p, std::size_t n, const char* what) {
    if (n > left_) {
      decode_error(at(p), std::string(what) + " of " + std::to_string(n) +
                              " bytes is more than the " + std::to_string(left_) +
                              " left unread of the buffer (offsets shared between fields)");
    }
    left_ -= n;
  }

  const uint8_t* base_;
  std::size_t left_;
};

// ---- buffer -> checksum (depth access) -----------------------------------------------------

template <class R>
void visit_record(const Table<R>& t, Reading& r, Hasher& h);

// An optional field as its accessor returns it: flatbuffers::Optional for scalars, a pointer
// (null: absent) for the rest.
template <class X>
bool present(const X& x) {
  if constexpr (std::is_pointer_v<X>) {
    return x != nullptr;
  } else {
    return x.has_value();
  }
}
template <class X>
auto value_of(const X& x) {
  if constexpr (std::is_pointer_v<X>) {
    return x;
  } else {
    return *x;
  }
}

// A present value of native type T, as the accessor returns it (null: an empty string or
// list).
template <class T, class X>
void visit_value(const X& x, Reading& r, Hasher& h) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    h.word(x ? 1 : 0);
  } else if constexpr (shape == Shape::integer) {
    h.integer(int64_t(T(x)));
  } else if constexpr (shape == Shape::f64) {
    h.f64(x);
  } else if constexpr (shape == Shape::enumeration) {
    h.integer(int64_t(to_enum<T>(int64_t(x))));
  } else if constexpr (shape == Shape::str) {
    h.str(r.str(x));
  } else if constexpr (shape == Shape::list) {
    using E = element_t<T>;
    r.list(x);
    const flatbuffers::uoffset_t n = x ? x->size() : 0;
    h.word(n);
    for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
      if constexpr (shape_v<E> == Shape::list) {
        visit_value<E>(wrapped(*x->Get(i)), r, h);
      } else {
        visit_value<E>(x->Get(i), r, h);
      }
    }
  } else {
    visit_record<T>(*x, r, h);
  }
}

template <class T, class Tbl, class F>
void visit_field(const Tbl& t, F f, Reading& r, Hasher& h) {
  const auto x = f(Get{}, t);
  if constexpr (shape_v<T> == Shape::optional) {
    const bool has = present(x);
    h.word(has);
    if (has) visit_value<value_t<T>>(value_of(x), r, h);
  } else {
    if constexpr (shape_v<T> == Shape::record) {
      if (!x) missing_record<T>();
    }
    visit_value<T>(x, r, h);
  }
}

template <class R>
void visit_record(const Table<R>& t, Reading& r, Hasher& h) {
  for_each_bound<R, Bound<R>>([&](auto field, auto f, auto) {
    visit_field<typename decltype(field)::type>(t, f, r, h);
  });
}

// ---- buffer -> native (depth materialize) --------------------------------------------------

template <class R>
void take_record(const Table<R>& t, Reading& r, R& out);

template <class T, class X>
void take_value(const X& x, Reading& r, T& out) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::enumeration) {
    out = to_enum<T>(int64_t(x));
  } else if constexpr (is_scalar<T>) {
    out = T(x);
  } else if constexpr (shape == Shape::str) {
    out = r.str(x);
  } else if constexpr (shape == Shape::list) {
    using E = element_t<T>;
    r.list(x);
    const flatbuffers::uoffset_t n = x ? x->size() : 0;
    if constexpr (is_plain_number<E>) {
      if (x) {
        out.assign(x->data(), x->data() + n);  // little-endian, verified aligned
      } else {
        out.clear();
      }
    } else {
      out.resize(n);
      for (flatbuffers::uoffset_t i = 0; i < n; ++i) {
        if constexpr (shape_v<E> == Shape::list) {
          take_value(wrapped(*x->Get(i)), r, out[i]);
        } else {
          take_value(x->Get(i), r, out[i]);
        }
      }
    }
  } else {
    take_record(*x, r, out);
  }
}

template <class T, class Tbl, class F>
void take_field(const Tbl& t, F f, Reading& r, T& out) {
  const auto x = f(Get{}, t);
  if constexpr (shape_v<T> == Shape::optional) {
    if (present(x)) {
      take_value(value_of(x), r, emplace(out));
    } else {
      out = {};
    }
  } else {
    if constexpr (shape_v<T> == Shape::record) {
      if (!x) missing_record<T>();
    }
    take_value(x, r, out);
  }
}

template <class R>
void take_record(const Table<R>& t, Reading& r, R& out) {
  for_each_bound<R, Bound<R>>(
      [&](auto field, auto f, auto) { take_field(t, f, r, out.*field.member); });
}

// Tables nested inside one tweet below it: Tweet > Entities > Media > Sizes > Size (Place >
// BoundingBox > DoubleListList > DoubleList is as deep); no other model nests deeper.
inline constexpr flatbuffers::uoffset_t kTablesInATweet = 4;

// Verifier limits set by the buffer (the defaults allow a million tables whatever its
// length): an honest buffer has no more tables than 4-byte offsets to them, nested as deep as
// the tweet's nesting limit allows. The Verifier counts every table at every visit, so one
// whose offsets share tables is refused; it checks a string or a list of numbers in O(1),
// and the one list of strings (Arrays') is in a root table, verified once.
inline flatbuffers::Verifier::Options verifier_options(std::size_t size) {
  flatbuffers::Verifier::Options options;
  options.max_depth = 1 + kMaxNesting + kTablesInATweet;
  options.max_tables = flatbuffers::uoffset_t(size / 4);
  return options;
}

// The root table of a buffer the Verifier accepts.
template <class M>
const Table<M>& verified_root(std::span<const uint8_t> bytes) {
  const flatbuffers::Verifier::Options options = verifier_options(bytes.size());
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), options);
  if (!verifier.VerifyBuffer<Table<M>>(nullptr)) {
    decode_error(0, "the flatbuffers Verifier rejects these " + std::to_string(bytes.size()) +
                        " bytes as a " + std::string(M::name_of) + " buffer (at most " +
                        std::to_string(options.max_tables) + " tables, nested " +
                        std::to_string(options.max_depth) + " deep)");
  }
  return *flatbuffers::GetRoot<Table<M>>(bytes.data());
}

}  // namespace fbuf

struct FlatBuffers {
  static constexpr std::string_view id = "flatbuffers";
  static constexpr std::array depths{Depth::materialize, Depth::access};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/flatbuffers.h"),
                                    std::string_view("drivers/cpp/src/methods/schema.h")};
  static constexpr bool writes = true;
  // tables hold 8-byte scalars at 8-aligned offsets from the buffer's start
  static constexpr std::size_t alignment = 8;

  template <class M>
  void encode(const M& value, Bytes& out) {
    writer_.write(value, out);
  }

  template <class M>
  M decode(std::span<const uint8_t> bytes) {
    M value;
    fbuf::Reading r(bytes);
    fbuf::take_record(fbuf::verified_root<M>(bytes), r, value);
    return value;
  }

  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
    if (mode.depth == Depth::access) {
      fbuf::Reading r(bytes);
      fbuf::visit_record<M>(fbuf::verified_root<M>(bytes), r, h);
    } else if (mode.depth == Depth::materialize) {
      serbench::fold(h, decode<M>(bytes));
    } else {
      depth_error(id, mode.depth);
    }
  }

 private:
  fbuf::Writer writer_;
};

}  // namespace serbench
