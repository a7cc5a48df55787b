#pragma once
// `protobuf`: libprotobuf with the classes protoc generates written from the model definitions at build time.
// One stored object is one message's wire bytes. Writing fills a message kept per model
// (set_* assigns into the strings and repeated fields left from the previous object, so
// steady-state writes allocate little) and serializes it straight into the page buffer.
// Reading parses into that same reused message (variant "") or into a message created on an
// Arena that is reset before every object (variant "arena"); depth `access` then reads every
// field through the generated accessors, depth `materialize` converts to native structs.
// protoc's parser rejects damaged bytes (and invalid UTF-8 in strings); a required nested
// message that is not set and an unknown enum value are rejected here.

#include <google/protobuf/arena.h>

#include <array>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "methods/protobuf_messages.h"
#include "methods/schema.h"
#include "model/model_id.h"

namespace serbench {

namespace pbuf {

using namespace schema;

// The generated message of a native record, and its accessors in canonical field order.
template <class R>
struct Bound;

#define SB_PB_FIELD(pb, fb, Cp)                                          \
  [](auto op, auto& m, auto&&... a) -> decltype(auto) {                  \
    using Op = decltype(op);                                             \
    if constexpr (std::is_same_v<Op, Get>) return m.pb();                \
    else if constexpr (std::is_same_v<Op, Has>) return m.has_##pb();     \
    else if constexpr (std::is_same_v<Op, Mut>) return m.mutable_##pb(); \
    else if constexpr (std::is_same_v<Op, Set>) return m.set_##pb(a...); \
    else return m.clear_##pb();                                          \
  },
#define SB_PB_RECORD(Name)                                                  \
  template <>                                                               \
  struct Bound<Name##T<Native>> {                                           \
    using type = ::serbench::pb::Name;                                      \
    static constexpr auto fields() { return std::tuple{SB_SCHEMA_FIELDS_##Name(SB_PB_FIELD)}; } \
  };
SB_SCHEMA_RECORDS(SB_PB_RECORD)
#undef SB_PB_RECORD
#undef SB_PB_FIELD

template <class R>
using Msg = typename Bound<R>::type;

// The one repeated field, `values`, of a wrapper message (Int32List, DoubleList, ...).
template <class W>
auto& wrapped(W& w) {
  return *w.mutable_values();
}
template <class W>
const auto& wrapped(const W& w) {
  return w.values();
}

// The field's value as the accessor returns it, for a native list's element type E.
template <class E, class X>
const auto& element(const X& x) {
  if constexpr (shape_v<E> == Shape::list) {
    return wrapped(x);  // a list of lists holds wrapper messages
  } else {
    return x;
  }
}

// ---- native -> message -------------------------------------------------------------------

template <class R>
void put_record(Msg<R>& m, const R& v);

template <class T, class Rep>
void put_list(Rep& rep, const std::vector<T>& v) {
  if constexpr (is_plain_number<T>) {
    rep.Assign(v.begin(), v.end());
  } else {
    rep.Clear();  // keeps the cleared elements; Add() hands them out again
    rep.Reserve(int(v.size()));
    for (const auto& e : v) {
      if constexpr (shape_v<T> == Shape::str) {
        rep.Add()->assign(e);
      } else if constexpr (shape_v<T> == Shape::list) {
        put_list(wrapped(*rep.Add()), e);
      } else {
        put_record(*rep.Add(), e);
      }
    }
  }
}

template <class T, class M, class F>
void put_field(M& m, F f, const T& v) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::enumeration) {
    using PbEnum = std::remove_cvref_t<decltype(f(Get{}, std::as_const(m)))>;
    f(Set{}, m, PbEnum(v));
  } else if constexpr (is_scalar<T> || shape == Shape::str) {
    f(Set{}, m, v);
  } else if constexpr (shape == Shape::list) {
    put_list(*f(Mut{}, m), v);
  } else if constexpr (shape == Shape::optional) {
    if (!v) {
      f(Clear{}, m);
    } else if constexpr (shape_v<value_t<T>> == Shape::list) {
      put_list(wrapped(*f(Mut{}, m)), *v);
    } else {
      put_field(m, f, *v);
    }
  } else {
    put_record(*f(Mut{}, m), v);
  }
}

template <class R>
void put_record(Msg<R>& m, const R& v) {
  for_each_bound<R, Bound<R>>([&](auto field, auto f, auto) { put_field(m, f, v.*field.member); });
}

// ---- message -> checksum (depth access) ----------------------------------------------------

template <class R>
void visit_record(const Msg<R>& m, Hasher& h);

// A present value of native type T, as the accessor returns it.
template <class T, class X>
void visit_value(const X& x, Hasher& h) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    h.word(x ? 1 : 0);
  } else if constexpr (shape == Shape::integer) {
    h.integer(int64_t(T(x)));  // i8 and i16 travel as int32: narrowed by cast
  } else if constexpr (shape == Shape::f64) {
    h.f64(x);
  } else if constexpr (shape == Shape::enumeration) {
    h.integer(int64_t(to_enum<T>(x)));
  } else if constexpr (shape == Shape::str) {
    h.str(x);
  } else if constexpr (shape == Shape::list) {
    using E = element_t<T>;
    h.word(uint64_t(x.size()));
    for (const auto& e : x) visit_value<E>(element<E>(e), h);
  } else {
    visit_record<T>(x, h);
  }
}

template <class T, class M, class F>
void visit_field(const M& m, F f, Hasher& h) {
  if constexpr (shape_v<T> == Shape::optional) {
    using V = value_t<T>;
    const bool present = f(Has{}, m);
    h.word(present);
    if (present) visit_value<V>(element<V>(f(Get{}, m)), h);
  } else {
    if constexpr (shape_v<T> == Shape::record) {
      if (!f(Has{}, m)) missing_record<T>();
    }
    visit_value<T>(f(Get{}, m), h);
  }
}

// One function per message type (flatten): its fields' accessors and hash steps inlined, the
// hash kept in a register (tweet access ~4,090 -> ~3,050 us).
template <class R>
[[gnu::flatten]] void visit_record(const Msg<R>& m, Hasher& h) {
  for_each_bound<R, Bound<R>>([&](auto field, auto f, auto) {
    visit_field<typename decltype(field)::type>(m, f, h);
  });
}

// ---- message -> native (depth materialize) -------------------------------------------------

template <class R>
void take_record(const Msg<R>& m, R& out);

template <class T, class X>
void take_value(const X& x, T& out) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::enumeration) {
    out = to_enum<T>(x);
  } else if constexpr (is_scalar<T>) {
    out = T(x);
  } else if constexpr (shape == Shape::str) {
    out.assign(x);
  } else if constexpr (shape == Shape::list) {
    using E = element_t<T>;
    if constexpr (is_plain_number<E>) {
      out.assign(x.begin(), x.end());
    } else {
      out.resize(std::size_t(x.size()));
      for (int i = 0; i < x.size(); ++i) take_value(element<E>(x.Get(i)), out[std::size_t(i)]);
    }
  } else {
    take_record(x, out);
  }
}

template <class T, class M, class F>
void take_field(const M& m, F f, T& out) {
  if constexpr (shape_v<T> == Shape::optional) {
    if (f(Has{}, m)) {
      take_value(element<value_t<T>>(f(Get{}, m)), emplace(out));
    } else {
      out = {};
    }
  } else {
    if constexpr (shape_v<T> == Shape::record) {
      if (!f(Has{}, m)) missing_record<T>();
    }
    take_value(f(Get{}, m), out);
  }
}

template <class R>
void take_record(const Msg<R>& m, R& out) {
  for_each_bound<R, Bound<R>>([&](auto field, auto f, auto) { take_field(m, f, out.*field.member); });
}

// ---- the empty message ---------------------------------------------------------------------

// A message whose fields all hold their defaults serializes to no bytes, but a stored object
// is at least one byte (PROTOCOL.md 4.2). Such a message is stored as its first field that
// reads back as the default when written explicitly (an implicit-presence scalar or string,
// or a packed list, with value 0 or length 0): a valid encoding of the same message that
// every protobuf parser reads as the empty one.
inline void put_varint(std::string& out, uint64_t v) {
  for (; v >= 0x80; v >>= 7) out.push_back(char(v | 0x80));
  out.push_back(char(v));
}

template <class Message>
std::string explicit_default() {
  using google::protobuf::FieldDescriptor;
  const auto* d = Message::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    const bool len = f->is_repeated() || f->cpp_type() == FieldDescriptor::CPPTYPE_STRING;
    if (f->is_repeated() ? !f->is_packed()
                         : f->has_presence() || f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
      continue;
    const bool fixed64 = !len && f->cpp_type() == FieldDescriptor::CPPTYPE_DOUBLE;
    std::string out;
    put_varint(out, uint64_t(f->number()) << 3 | (len ? 2 : fixed64 ? 1 : 0));
    out.append(fixed64 ? 8 : 1, '\0');
    return out;
  }
  throw std::logic_error(d->full_name() + " has no field to write an empty message with");
}

}  // namespace pbuf

struct Protobuf {
  static constexpr std::string_view id = "protobuf";
  static constexpr std::array depths{Depth::materialize, Depth::access};
  // "arena": parse into a message on a google::protobuf::Arena reset before every object
  static constexpr std::array variants{std::string_view("arena")};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/protobuf.h"),
                                    std::string_view("drivers/cpp/src/methods/schema.h")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 1;

  template <class M>
  void encode(const M& value, Bytes& out) {
    auto& m = messages_.get<M>();
    pbuf::put_record(m, value);
    const std::size_t n = m.ByteSizeLong();
    if (n == 0) {
      static const std::string empty = pbuf::explicit_default<pbuf::Msg<M>>();
      out.append(empty.data(), empty.size());
      return;
    }
    m.SerializeWithCachedSizesToArray(out.grow_zeroed(n));
  }

  template <class M>
  M decode(std::span<const uint8_t> bytes) {
    M value;
    pbuf::take_record(parse<M>(bytes, messages_.get<M>()), value);
    return value;
  }

  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
    if (mode.depth != Depth::materialize && mode.depth != Depth::access) depth_error(id, mode.depth);
    if (mode.variant == 1) {
      arena_.Reset();  // frees the previous object's messages, keeps the first block
      read<M>(parse<M>(bytes, *google::protobuf::Arena::CreateMessage<pbuf::Msg<M>>(&arena_)),
              mode, h);
    } else {
      read<M>(parse<M>(bytes, messages_.get<M>()), mode, h);
    }
  }

 private:
  static constexpr std::size_t kArenaBlock = 1 << 20;

  template <class M>
  static const pbuf::Msg<M>& parse(std::span<const uint8_t> bytes, pbuf::Msg<M>& m) {
    if (bytes.size() > std::size_t(INT32_MAX) || !m.ParseFromArray(bytes.data(), int(bytes.size())))
      decode_error(0, "not a valid protobuf " + std::string(M::name_of) + " message (" +
                          std::to_string(bytes.size()) + " bytes)");
    return m;
  }

  template <class M>
  static void read(const pbuf::Msg<M>& m, const ReadMode& mode, Hasher& h) {
    if (mode.depth == Depth::access) {
      pbuf::visit_record<M>(m, h);
    } else {
      M value;
      pbuf::take_record(m, value);
      serbench::fold(h, value);
    }
  }

  static google::protobuf::ArenaOptions arena_options(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kArenaBlock;
    return options;
  }

  schema::PerModel<pbuf::Msg, ModelTypes> messages_;
  std::unique_ptr<char[]> arena_block_ = std::make_unique<char[]>(kArenaBlock);
  google::protobuf::Arena arena_{arena_options(arena_block_.get())};
};

}  // namespace serbench
