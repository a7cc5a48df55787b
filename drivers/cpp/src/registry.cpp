#include "registry.h"

#include <array>

#include "cell_ops.h"

namespace serbench {

namespace {

template <class... Meth>
std::array<MethodEntry, sizeof...(Meth)> method_table(TypeList<Meth...>) {
  return {cell::make_entry<Meth, Tasks>()...};
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
