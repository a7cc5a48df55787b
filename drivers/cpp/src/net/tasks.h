#pragma once
// The network tasks, one line each in tasks.cpp; each runs generic code for the cell's method
// and model, found through the registry's method list (dispatch.h).

#include <span>
#include <string_view>

#include "net/node.h"

namespace serbench::net {

struct NetTask {
  std::string_view id;
  // Builds the node's role from its setup (loading its data) and drives it.
  void (*run)(const Setup& setup, Node& node);
};

std::span<const NetTask> all_net_tasks();

// One per task file.
void run_fetch(const Setup& setup, Node& node);
void run_sort_merge(const Setup& setup, Node& node);
void run_aggregate(const Setup& setup, Node& node);

}  // namespace serbench::net
