#include "net/tasks.h"

#include <array>
#include <optional>

namespace serbench::net {

// The network tasks, one line each.
constexpr std::array kNetTasks{
    NetTask{"net_fetch", &run_fetch},
    NetTask{"net_aggregate", &run_aggregate},
    NetTask{"net_sort_merge", &run_sort_merge},
};

std::span<const NetTask> all_net_tasks() { return kNetTasks; }

const NetOps& cell_net(const Setup& setup) {
  const MethodEntry* method = find_method(setup.method);
  if (!method) throw bad_request("unknown method '" + setup.method + "'");
  if (!method->writes || method->depths.empty()) {
    throw unsupported("method '" + setup.method + "' has no objects of its own to move");
  }
  const std::optional<ModelId> model = parse_model(setup.model);
  if (!model) throw bad_request("unknown model '" + setup.model + "'");
  return method->cells[std::size_t(*model)].net;
}

}  // namespace serbench::net
