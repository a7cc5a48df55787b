#include "net/tasks.h"

#include <array>

namespace serbench::net {

// The network tasks, one line each.
constexpr std::array kNetTasks{
    NetTask{"net_fetch", &run_fetch},
    NetTask{"net_aggregate", &run_aggregate},
    NetTask{"net_sort_merge", &run_sort_merge},
};

std::span<const NetTask> all_net_tasks() { return kNetTasks; }

}  // namespace serbench::net
