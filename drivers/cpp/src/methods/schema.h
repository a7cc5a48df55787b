#pragma once
// What the three schema-compiled methods (protobuf, flatbuffers, capnp) share: the field
// names of every record in canonical order, as the generated code spells them, and the
// generic walk that pairs the i-th model field with the i-th generated accessor.
//
// Each record's list is `X(pb, fb, Cp)` (methods/schema_fields.h, generated from the model
// definitions with the structs of models.h, codegen/generate_models.py): protoc's and flatc's
// accessor names (`protected_` as both compilers escape it) and the capnp accessor suffix
// (getCp, hasCp, setCp, initCp). A library binds a record by turning every entry into a
// generic lambda `(op, object, args...)` whose body names the accessor for `op`; only the ops
// a field's shape needs are ever instantiated.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "methods/method.h"
#include "methods/schema_fields.h"
#include "model/models.h"

namespace serbench::schema {

// The accessor a bound field's lambda is asked for.
struct Get {};    // the value (reader side)
struct Has {};    // presence of an optional or message field
struct Set {};    // set a scalar or string
struct Mut {};    // protobuf: the mutable sub-message or repeated field
struct Clear {};  // protobuf: clear the field
struct Add {};    // flatbuffers: add the field to a table builder
struct Init {};   // capnp: init a struct or list field

// Calls f(model_field, bound_accessor, index) for every field of record R, where B::fields()
// is R's bound accessor list.
template <class R, class B, class F>
void for_each_bound(F&& f) {
  constexpr std::size_t n = field_count<R>;
  static_assert(std::tuple_size_v<decltype(B::fields())> == n,
                "the accessor list does not match the model's fields");
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::get<I>(R::fields()), std::get<I>(B::fields()), std::integral_constant<std::size_t, I>{}),
     ...);
  }
  (std::make_index_sequence<n>{});
}

// Scalars: stored inline, optional ones with a presence flag rather than a null pointer.
template <class T>
inline constexpr bool is_scalar =
    shape_v<T> == Shape::boolean || shape_v<T> == Shape::integer || shape_v<T> == Shape::f64 ||
    shape_v<T> == Shape::enumeration;

// An enum read from the wire: generated enums are open, the model's are not.
template <class E>
E to_enum(int64_t v) {
  if (v < 0 || uint64_t(v) >= EnumSymbols<E>::names.size())
    decode_error(0, "enum ordinal " + std::to_string(v) + " is out of range");
  return E(v);
}

// A required nested record that the bytes do not hold (writers always set it).
template <class T>
[[noreturn]] void missing_record() {
  decode_error(0, "required " + std::string(T::name_of) + " is missing");
}

// Makes an absent optional (std::optional or the tweets' unique_ptr) present; returns the value.
template <class T>
auto& emplace(T& out) {
  if constexpr (is_specialization<T, std::unique_ptr>) {
    out = std::make_unique<value_t<T>>();
    return *out;
  } else {
    return out.emplace();
  }
}

// One stored object of each model type, kept by a method for reuse across objects.
template <template <class> class Of, class L>
struct PerModel;
template <template <class> class Of, class... M>
struct PerModel<Of, TypeList<M...>> {
  std::tuple<Of<M>...> items;
  template <class M1>
  Of<M1>& get() {
    return std::get<Of<M1>>(items);
  }
};

}  // namespace serbench::schema
