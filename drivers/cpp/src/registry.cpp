#include "registry.h"

#include <array>

#include "tasks/memory.h"
#include "tasks/micro.h"
#include "tasks/read_par.h"
#include "tasks/read_rand.h"
#include "tasks/read_seq.h"
#include "tasks/sort_dedup.h"
#include "tasks/write.h"

namespace serbench {

namespace {

// Each method's entry comes from its own translation unit (method_entry.h).
template <class... Meth>
std::array<MethodEntry, kMethodCount> method_table(TypeList<Meth...>) {
  return {method_entry<Meth>()...};
}

template <class... Task>
constexpr std::array<std::string_view, sizeof...(Task)> task_ids(TypeList<Task...>) {
  return {Task::id...};
}

constexpr auto kTaskIds = task_ids(Tasks{});

}  // namespace

std::span<const MethodEntry> methods() {
  static const auto table = method_table(Methods{});
  return table;
}

const MethodEntry* find_method(std::string_view id) {
  for (const MethodEntry& m : methods()) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

std::span<const std::string_view> tasks() { return kTaskIds; }

}  // namespace serbench
