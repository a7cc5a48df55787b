#pragma once
// Model ids (the protocol's names) and their root types; `with_model` turns an id chosen at
// run time into a call of code generic over the root type.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "model/models.h"

namespace serbench {

enum class ModelId { part, lineitem, customer, tweet, sparse, trade, org, arrays };

inline constexpr std::array<std::string_view, 8> kModelNames{
    "part", "lineitem", "customer", "tweet", "sparse", "trade", "org", "arrays"};
inline constexpr std::size_t kModelCount = kModelNames.size();

constexpr std::string_view model_name(ModelId id) { return kModelNames[std::size_t(id)]; }

inline std::optional<ModelId> parse_model(std::string_view name) {
  for (std::size_t i = 0; i < kModelCount; ++i) {
    if (kModelNames[i] == name) return ModelId(i);
  }
  return std::nullopt;
}

// Per root type: its id and the key fields its total order compares first.
template <class M>
struct Model;

template <>
struct Model<Part> {
  static constexpr ModelId id = ModelId::part;
  static constexpr auto key = std::tuple{&Part::partkey};
};
template <>
struct Model<LineItem> {
  static constexpr ModelId id = ModelId::lineitem;
  static constexpr auto key = std::tuple{&LineItem::orderkey, &LineItem::linenumber};
};
template <>
struct Model<Customer> {
  static constexpr ModelId id = ModelId::customer;
  static constexpr auto key = std::tuple{&Customer::custkey};
};
template <>
struct Model<Tweet> {
  static constexpr ModelId id = ModelId::tweet;
  static constexpr auto key = std::tuple{&Tweet::id};
};
template <>
struct Model<SparseVector> {
  static constexpr ModelId id = ModelId::sparse;
  static constexpr auto key = std::tuple{};
};
template <>
struct Model<Trade> {
  static constexpr ModelId id = ModelId::trade;
  static constexpr auto key = std::tuple{&Trade::source_id};
};
template <>
struct Model<Org> {
  static constexpr ModelId id = ModelId::org;
  static constexpr auto key = std::tuple{&Org::name};
};
template <>
struct Model<Arrays> {
  static constexpr ModelId id = ModelId::arrays;
  static constexpr auto key = std::tuple{};
};

// Every root type, in id order.
using ModelTypes = TypeList<Part, LineItem, Customer, Tweet, SparseVector, Trade, Org, Arrays>;

template <class M>
constexpr std::string_view model_name() {
  return model_name(Model<M>::id);
}

// Calls f(std::type_identity<M>{}) with the root type of `id`.
template <class F>
decltype(auto) with_model(ModelId id, F&& f) {
  switch (id) {
    case ModelId::part:
      return f(std::type_identity<Part>{});
    case ModelId::lineitem:
      return f(std::type_identity<LineItem>{});
    case ModelId::customer:
      return f(std::type_identity<Customer>{});
    case ModelId::tweet:
      return f(std::type_identity<Tweet>{});
    case ModelId::sparse:
      return f(std::type_identity<SparseVector>{});
    case ModelId::trade:
      return f(std::type_identity<Trade>{});
    case ModelId::org:
      return f(std::type_identity<Org>{});
    case ModelId::arrays:
      break;
  }
  return f(std::type_identity<Arrays>{});
}

}  // namespace serbench
