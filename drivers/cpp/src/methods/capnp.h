#pragma once
// `capnp`: Cap'n Proto with the code capnp_generate_cpp generates written from the model definitions at build
// time. One stored object is one standard unpacked message (segment table + segments, what
// writeMessage and messageToFlatArray produce), no other framing.
//
// Writing builds the message in a MallocMessageBuilder whose first segment is a reused,
// zeroed scratch array (the builder zeroes what it used when it is destroyed), then writes
// it straight into the page buffer. Empty required texts and lists are left null (they read
// as empty); present-but-empty optional ones are set, so absent and empty stay apart.
//
// Reading opens the bytes with a FlatArrayMessageReader whose traversal limit is twice the
// message's size in words: big objects read whole, a message that points at the same data
// over and over does not. `access` reads every field through the generated readers,
// `materialize` converts through them into native structs. Every kj::Exception (bad
// pointers, truncated segments, the limits) becomes a DecodeError.

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>
#include <kj/io.h>

#include <array>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

#include "methods/capnp_structs.h"
#include "methods/schema.h"
#include "model/utf8.h"

namespace serbench {

namespace cpn {

using namespace schema;

// The generated struct of a native record, and its accessors in canonical field order.
template <class R>
struct Bound;

#define SB_CP_FIELD(pb, fb, Cp)                                         \
  [](auto op, auto& s, auto&&... a) -> decltype(auto) {                 \
    using Op = decltype(op);                                            \
    if constexpr (std::is_same_v<Op, Get>) return s.get##Cp();          \
    else if constexpr (std::is_same_v<Op, Has>) return s.has##Cp();     \
    else if constexpr (std::is_same_v<Op, Set>) return s.set##Cp(a...); \
    else return s.init##Cp(a...);                                       \
  },
#define SB_CP_RECORD(Name)                                                  \
  template <>                                                               \
  struct Bound<Name##T<Native>> {                                           \
    using type = ::serbench::cp::Name;                                      \
    static constexpr auto fields() { return std::tuple{SB_SCHEMA_FIELDS_##Name(SB_CP_FIELD)}; } \
  };
SB_SCHEMA_RECORDS(SB_CP_RECORD)
#undef SB_CP_RECORD
#undef SB_CP_FIELD

template <class R>
using Struct = typename Bound<R>::type;

inline capnp::Text::Reader text(const std::string& s) { return {s.data(), s.size()}; }

// ---- native -> message ---------------------------------------------------------------------

template <class R>
void put_record(typename Struct<R>::Builder b, const R& v);

template <class L, class E>
void put_list(L l, const std::vector<E>& v) {
  for (capnp::uint i = 0; i < v.size(); ++i) {
    if constexpr (is_plain_number<E>) {
      l.set(i, v[i]);
    } else if constexpr (shape_v<E> == Shape::str) {
      l.set(i, text(v[i]));
    } else if constexpr (shape_v<E> == Shape::list) {
      put_list(l.init(i, capnp::uint(v[i].size())), v[i]);
    } else {
      put_record(l[i], v[i]);
    }
  }
}

// A pointer field (text, list, struct); `keep_empty` for present optionals.
template <class T, class B, class F>
void put_pointer(B& b, F f, const T& v, bool keep_empty) {
  if constexpr (shape_v<T> == Shape::str) {
    if (keep_empty || !v.empty()) f(Set{}, b, text(v));
  } else if constexpr (shape_v<T> == Shape::list) {
    if (keep_empty || !v.empty()) put_list(f(Init{}, b, capnp::uint(v.size())), v);
  } else {
    put_record(f(Init{}, b), v);
  }
}

template <class T, class B, class F>
void put_field(B& b, F f, const T& v) {
  if constexpr (shape_v<T> == Shape::enumeration) {
    f(Set{}, b, decltype(f(Get{}, b))(v));
  } else if constexpr (is_scalar<T>) {
    f(Set{}, b, v);
  } else if constexpr (shape_v<T> == Shape::optional) {
    if (!v) return;  // absent: the default of a fresh message
    if constexpr (is_scalar<value_t<T>>) {
      f(Get{}, b).setValue(*v);  // the group's union: `absent` or `value`
    } else {
      put_pointer(b, f, *v, true);
    }
  } else {
    put_pointer(b, f, v, false);
  }
}

template <class R>
void put_record(typename Struct<R>::Builder b, const R& v) {
  for_each_bound<R, Bound<R>>([&](auto field, auto f, auto) { put_field(b, f, v.*field.member); });
}

// ---- message -> checksum (depth access) ----------------------------------------------------

template <class R>
void visit_record(typename Struct<R>::Reader r, Hasher& h);

// A Text's bytes, once checked: capnp's Text is any bytes before its NUL terminator, the model's
// strings are UTF-8 (PROTOCOL.md 2).
inline std::string_view checked_text(capnp::Text::Reader x) {
  if (!valid_utf8(x.begin(), x.size())) decode_error(0, "invalid UTF-8 in a string");
  return {x.begin(), x.size()};
}

// A present value of native type T, as the reader returns it.
template <class T, class X>
void visit_value(const X& x, Hasher& h) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    h.word(x ? 1 : 0);
  } else if constexpr (shape == Shape::integer) {
    h.integer(int64_t(x));
  } else if constexpr (shape == Shape::f64) {
    h.f64(x);
  } else if constexpr (shape == Shape::enumeration) {
    h.integer(int64_t(to_enum<T>(int64_t(x))));
  } else if constexpr (shape == Shape::str) {
    h.str(checked_text(x));
  } else if constexpr (shape == Shape::list) {
    h.word(x.size());
    for (const auto e : x) visit_value<element_t<T>>(e, h);
  } else {
    visit_record<T>(x, h);
  }
}

// Whether an optional field is present; a union discriminant other than its two members is
// corrupt.
template <class T, class S, class F>
bool present(const S& s, F f) {
  if constexpr (is_scalar<value_t<T>>) {
    const auto g = f(Get{}, s);
    if (g.isValue()) return true;
    if (!g.isAbsent()) decode_error(0, "an optional's union holds an unknown member");
    return false;
  } else {
    return f(Has{}, s);
  }
}

template <class T, class S, class F>
decltype(auto) optional_value(const S& s, F f) {
  if constexpr (is_scalar<value_t<T>>) {
    return f(Get{}, s).getValue();
  } else {
    return f(Get{}, s);
  }
}

template <class T, class S, class F>
void visit_field(const S& s, F f, Hasher& h) {
  if constexpr (shape_v<T> == Shape::optional) {
    const bool has = present<T>(s, f);
    h.word(has);
    if (has) visit_value<value_t<T>>(optional_value<T>(s, f), h);
  } else {
    if constexpr (shape_v<T> == Shape::record) {
      if (!f(Has{}, s)) missing_record<T>();
    }
    visit_value<T>(f(Get{}, s), h);
  }
}

template <class R>
void visit_record(typename Struct<R>::Reader r, Hasher& h) {
  for_each_bound<R, Bound<R>>([&](auto field, auto f, auto) {
    visit_field<typename decltype(field)::type>(r, f, h);
  });
}

// ---- message -> native (depth materialize) -------------------------------------------------

template <class R>
void take_record(typename Struct<R>::Reader r, R& out);

template <class T, class X>
void take_value(const X& x, T& out) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::enumeration) {
    out = to_enum<T>(int64_t(x));
  } else if constexpr (is_scalar<T>) {
    out = x;
  } else if constexpr (shape == Shape::str) {
    out.assign(checked_text(x));
  } else if constexpr (shape == Shape::list) {
    out.resize(x.size());
    for (capnp::uint i = 0; i < x.size(); ++i) take_value(x[i], out[i]);
  } else {
    take_record(x, out);
  }
}

template <class T, class S, class F>
void take_field(const S& s, F f, T& out) {
  if constexpr (shape_v<T> == Shape::optional) {
    if (present<T>(s, f)) {
      take_value(optional_value<T>(s, f), emplace(out));
    } else {
      out = {};
    }
  } else {
    if constexpr (shape_v<T> == Shape::record) {
      if (!f(Has{}, s)) missing_record<T>();
    }
    take_value(f(Get{}, s), out);
  }
}

template <class R>
void take_record(typename Struct<R>::Reader r, R& out) {
  for_each_bound<R, Bound<R>>([&](auto field, auto f, auto) { take_field(r, f, out.*field.member); });
}

// Appends what writeMessage writes to a page buffer.
class BytesOutput final : public kj::OutputStream {
 public:
  explicit BytesOutput(Bytes& out) : out_(out) {}
  void write(const void* buffer, size_t size) override { out_.append(buffer, size); }

 private:
  Bytes& out_;
};

}  // namespace cpn

struct Capnp {
  static constexpr std::string_view id = "capnp";
  static constexpr std::array depths{Depth::materialize, Depth::access};
  static constexpr std::array<std::string_view, 0> variants{};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/capnp.h"),
                                    std::string_view("drivers/cpp/src/methods/schema.h")};
  static constexpr bool writes = true;
  // messages are read in place as 8-byte words
  static constexpr std::size_t alignment = 8;

  template <class M>
  void encode(const M& value, Bytes& out) {
    capnp::MallocMessageBuilder message(first_segment_);
    cpn::put_record(message.initRoot<cpn::Struct<M>>(), value);
    cpn::BytesOutput stream(out);
    capnp::writeMessage(stream, message);
  }

  template <class M>
  M decode(std::span<const uint8_t> bytes) {
    M value;
    read<M>(bytes, [&](auto root) { cpn::take_record(root, value); });
    return value;
  }

  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
    if (mode.depth == Depth::access) {
      read<M>(bytes, [&](auto root) { cpn::visit_record<M>(root, h); });
    } else if (mode.depth == Depth::materialize) {
      serbench::fold(h, decode<M>(bytes));
    } else {
      depth_error(id, mode.depth);
    }
  }

 private:
  static constexpr std::size_t kFirstSegmentWords = 8192;

  // Opens the message in `bytes` and calls use(root reader).
  template <class M, class F>
  void read(std::span<const uint8_t> bytes, F&& use) {
    if (bytes.size() % sizeof(capnp::word) != 0)
      decode_error(bytes.size(), "a capnp message is whole 8-byte words, these " +
                                     std::to_string(bytes.size()) + " bytes are not");
    kj::ArrayPtr<const capnp::word> words(reinterpret_cast<const capnp::word*>(bytes.data()),
                                          bytes.size() / sizeof(capnp::word));
    if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(capnp::word) != 0) {
      aligned_.resize(words.size());  // pages keep objects 8-aligned; other callers may not
      std::memcpy(aligned_.data(), bytes.data(), bytes.size());
      words = kj::ArrayPtr<const capnp::word>(
          reinterpret_cast<const capnp::word*>(aligned_.data()), aligned_.size());
    }
    try {
      capnp::ReaderOptions options;
      options.traversalLimitInWords = 2 * words.size();
      capnp::FlatArrayMessageReader reader(words, options);
      if (reader.getEnd() != words.end())
        decode_error(std::size_t(reader.getEnd() - words.begin()) * sizeof(capnp::word),
                     "trailing bytes after the capnp message");
      use(reader.getRoot<cpn::Struct<M>>());
    } catch (const kj::Exception& e) {
      decode_error(0, "not a valid capnp " + std::string(M::name_of) +
                          " message: " + e.getDescription().cStr());
    }
  }

  std::unique_ptr<capnp::word[]> first_segment_storage_{new capnp::word[kFirstSegmentWords]()};
  kj::ArrayPtr<capnp::word> first_segment_{first_segment_storage_.get(), kFirstSegmentWords};
  // words as uint64_t: capnp::word cannot be copied, so libstdc++ under clang refuses to grow a
  // vector of them
  std::vector<uint64_t> aligned_;
};

}  // namespace serbench
