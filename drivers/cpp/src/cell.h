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

namespace net {
struct Setup;
class Node;
}  // namespace net

// The network roles of one method on one model (PROTOCOL.md 10): each builds the node's role
// from its setup (loading its data) and drives it. Null for a method without objects of its
// own to move (the raw floor).
struct NetOps {
  void (*fetch)(const net::Setup&, net::Node&) = nullptr;
  void (*sort_merge)(const net::Setup&, net::Node&) = nullptr;
  void (*aggregate)(const net::Setup&, net::Node&) = nullptr;
};

// The operations of one method on one model.
struct CellOps {
  Json (*roundtrip)(const Request&, const ReadMode&);
  Json (*encode)(const Request&);
  Json (*scan)(const Request&, const ReadMode&);
  // `task` is one of tasks().
  Json (*run)(std::string_view task, const Request&, const ReadMode&);
  NetOps net;
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
