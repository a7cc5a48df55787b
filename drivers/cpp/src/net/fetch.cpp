// `net_fetch` (PROTOCOL.md 10.5): the setup checked, then the cell's node (fetch.h), compiled
// in its method's unit.

#include "net/fetch.h"

#include "net/tasks.h"

namespace serbench::net {

void run_fetch(const Setup& setup, Node& node) {
  const std::string& v = setup.variant;
  if (v != "ram" && v != "disk" && v != "decode") {
    throw bad_request("net_fetch variant '" + v + "': one of ram, disk, decode");
  }
  if (setup.role != "server" && setup.role != "client") {
    throw bad_request("net_fetch role '" + setup.role + "': server or client");
  }
  cell_net(setup).fetch(setup, node);
}

}  // namespace serbench::net
