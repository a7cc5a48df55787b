#pragma once
// What the registry offers the operations: per method, its capabilities and, per model, the
// generic code of every cell (method x model) compiled for it.

#include <array>
#include <span>
#include <string_view>

#include "json.h"
#include "methods/method.h"
#include "model/model_id.h"
#include "protocol.h"

namespace serbench {

// The operations of one method on one model.
struct CellOps {
  Json (*roundtrip)(const Request&, const ReadMode&);
  Json (*encode)(const Request&);
  Json (*scan)(const Request&, const ReadMode&);
  // `task` is one of tasks().
  Json (*run)(std::string_view task, const Request&, const ReadMode&);
};

struct MethodEntry {
  std::string_view id;
  std::span<const Depth> depths;
  std::span<const std::string_view> variants;
  std::span<const std::string_view> files;
  bool writes;
  std::size_t alignment;  // of its objects within a page (PROTOCOL.md 4.1)
  std::array<CellOps, kModelCount> cells;
  // What changes its results (e.g. a compression level), for `info`; null when nothing.
  Json (*settings)() = nullptr;
};

// Every method, in registry order.
std::span<const MethodEntry> methods();
const MethodEntry* find_method(std::string_view id);
// The tasks this driver runs, in registry order.
std::span<const std::string_view> tasks();

}  // namespace serbench
