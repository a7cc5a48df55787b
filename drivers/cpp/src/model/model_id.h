#pragma once
// Model ids (the protocol's names) and their root types. The ids, the roots and `with_model`
// (which turns an id chosen at run time into a call of code generic over the root type) are
// generated from the model definitions (codegen/generate_models.py, model/model_list.h).

#include <cstddef>
#include <optional>
#include <string_view>

#include "model/model_list.h"

namespace serbench {

inline constexpr std::size_t kModelCount = kModelNames.size();

constexpr std::string_view model_name(ModelId id) { return kModelNames[std::size_t(id)]; }

inline std::optional<ModelId> parse_model(std::string_view name) {
  for (std::size_t i = 0; i < kModelCount; ++i) {
    if (kModelNames[i] == name) return ModelId(i);
  }
  return std::nullopt;
}

template <class M>
constexpr std::string_view model_name() {
  return model_name(Model<M>::id);
}

}  // namespace serbench
