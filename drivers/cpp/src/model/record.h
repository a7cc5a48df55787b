#pragma once
// Reflection for the model structs. Each record lists its fields once, in canonical order
// (name + member pointer); every generic walk (JSON loading, checksum, order, the methods'
// layouts) iterates that list. Records are templates over a storage policy, so the same
// field list describes native objects (std::string, std::vector, ...) and in-place ones.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace serbench {

// The deepest a canonical object nests: its JSON text at most 64 levels (PROTOCOL.md 2.1).
// Every reader refuses deeper input with an error, so no input controls recursion unbounded.
inline constexpr int kMaxNesting = 64;

template <class S, class T>
struct Field {
  using type = T;
  std::string_view name;
  T S::*member;
};

template <class S, class T>
constexpr Field<S, T> field(std::string_view name, T S::*member) {
  return {name, member};
}

// A record declares `static constexpr auto fields()` returning a tuple of Field.
template <class T>
concept Record = requires {
  T::fields();
};

template <Record T>
inline constexpr std::size_t field_count = std::tuple_size_v<decltype(T::fields())>;

template <Record T, class F>
constexpr void for_each_field(F&& f) {
  std::apply([&](auto... fields) { (f(fields), ...); }, T::fields());
}

// The i-th fields of two records with the same field list (a native record and its
// in-place twin), side by side.
template <Record A, Record B, class F>
constexpr void for_each_field_pair(F&& f) {
  static_assert(field_count<A> == field_count<B>);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::get<I>(A::fields()), std::get<I>(B::fields())), ...);
  }
  (std::make_index_sequence<field_count<A>>{});
}

// Native storage: what the harness's objects are in memory.
struct Native {
  using Str = std::string;
  template <class T>
  using Vec = std::vector<T>;
  template <class T>
  using Opt = std::optional<T>;
  // A recursive optional (a tweet's quoted and retweeted statuses).
  template <class T>
  using Box = std::unique_ptr<T>;
};

template <class P>
using Str = typename P::Str;
template <class P, class T>
using Vec = typename P::template Vec<T>;
template <class P, class T>
using Opt = typename P::template Opt<T>;
template <class P, class T>
using Box = typename P::template Box<T>;

// The same record template over another policy: PartT<Native> -> PartT<InPlace>.
template <class T, class P>
struct RebindT;
template <template <class> class R, class From, class P>
struct RebindT<R<From>, P> {
  using type = R<P>;
};
template <class T, class P>
using Rebind = typename RebindT<T, P>::type;

// The symbols of an enum, in ordinal order; specialised per enum.
template <class E>
struct EnumSymbols;

// What a value is, for generic code. Types other than the primitives and the standard
// containers declare `static constexpr Shape shape`.
enum class Shape { boolean, integer, f64, enumeration, str, list, optional, record };

template <class T, template <class...> class Tmpl>
inline constexpr bool is_specialization = false;
template <template <class...> class Tmpl, class... A>
inline constexpr bool is_specialization<Tmpl<A...>, Tmpl> = true;

template <class T>
constexpr Shape shape_of() {
  if constexpr (std::is_same_v<T, bool>) {
    return Shape::boolean;
  } else if constexpr (std::is_integral_v<T>) {
    return Shape::integer;
  } else if constexpr (std::is_same_v<T, double>) {
    return Shape::f64;
  } else if constexpr (std::is_enum_v<T>) {
    return Shape::enumeration;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Shape::str;
  } else if constexpr (is_specialization<T, std::vector>) {
    return Shape::list;
  } else if constexpr (is_specialization<T, std::optional> ||
                       is_specialization<T, std::unique_ptr>) {
    return Shape::optional;
  } else if constexpr (Record<T>) {
    return Shape::record;
  } else {
    return T::shape;
  }
}

template <class T>
inline constexpr Shape shape_v = shape_of<T>();

// Element of a list, value of an optional.
template <class T>
using element_t = std::remove_cvref_t<decltype(*std::declval<const T&>().begin())>;
template <class T>
using value_t = std::remove_cvref_t<decltype(*std::declval<const T&>())>;

// Scalars a list may hold as one contiguous little-endian array.
template <class T>
inline constexpr bool is_plain_number = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

template <class... T>
struct TypeList {};

template <class... T, class F>
constexpr void for_each_type(TypeList<T...>, F&& f) {
  (f(std::type_identity<T>{}), ...);
}

}  // namespace serbench
