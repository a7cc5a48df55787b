// `net_sort_merge` (PROTOCOL.md 10.7): the setup checked, then the cell's node (sort_merge.h),
// compiled in its method's unit.

#include "net/sort_merge.h"

#include "net/tasks.h"

namespace serbench::net {

void run_sort_merge(const Setup& setup, Node& node) {
  if (setup.role != "tree") throw bad_request("net_sort_merge role '" + setup.role + "': tree");
  cell_net(setup).sort_merge(setup, node);
}

}  // namespace serbench::net
