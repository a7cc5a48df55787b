// `net_aggregate` (PROTOCOL.md 10.6): the sum of two vectors; the setup checked, then the
// cell's node (aggregate.h), compiled in its method's unit.

#include "net/aggregate.h"

#include "net/tasks.h"

namespace serbench::net {

SparseVector merge_sum(const SparseVector& a, const SparseVector& b) {
  if (a.dimension != b.dimension) {
    throw corrupt("vectors of dimensions " + std::to_string(a.dimension) + " and " +
                  std::to_string(b.dimension) + " cannot be summed");
  }
  const auto &x = a.entries, &y = b.entries;
  SparseVector out;
  out.dimension = a.dimension;
  out.entries.reserve(x.size() + y.size());
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i].position < y[j].position) {
      out.entries.push_back(x[i++]);
    } else if (y[j].position < x[i].position) {
      out.entries.push_back(y[j++]);
    } else {
      auto e = x[i++];
      e.value += y[j++].value;
      out.entries.push_back(e);
    }
  }
  out.entries.insert(out.entries.end(), x.begin() + i, x.end());
  out.entries.insert(out.entries.end(), y.begin() + j, y.end());
  return out;
}

void run_aggregate(const Setup& setup, Node& node) {
  if (setup.role != "tree") throw bad_request("net_aggregate role '" + setup.role + "': tree");
  cell_net(setup).aggregate(setup, node);
}

}  // namespace serbench::net
