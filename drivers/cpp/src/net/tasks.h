#pragma once
// The network tasks, one line each in tasks.cpp; each checks its setup, then runs the role its
// method's unit compiled for the cell's model (cell_net: the registry's NetOps).

#include <span>
#include <string_view>

#include "cell.h"
#include "net/node.h"

namespace serbench::net {

struct NetTask {
  std::string_view id;
  // Builds the node's role from its setup (loading its data) and drives it.
  void (*run)(const Setup& setup, Node& node);
};

std::span<const NetTask> all_net_tasks();

// The network roles of the setup's method and model. A method that does not write its own
// files (the raw floor) has no objects to serve: unsupported.
const NetOps& cell_net(const Setup& setup);

// One per task file.
void run_fetch(const Setup& setup, Node& node);
void run_sort_merge(const Setup& setup, Node& node);
void run_aggregate(const Setup& setup, Node& node);

}  // namespace serbench::net
