#include "registry.h"

#include <array>
#include <utility>

#include "cell.h"

namespace serbench {

// Defined in registry_fill.h and compiled once per shard (see there).
template <std::size_t Shard>
void fill_methods(std::span<MethodEntry> table);

namespace {

template <std::size_t... Shard>
std::array<MethodEntry, kMethodCount> method_table(std::index_sequence<Shard...>) {
  std::array<MethodEntry, kMethodCount> table{};
  (fill_methods<Shard>(table), ...);
  return table;
}

template <class... Task>
constexpr std::array<std::string_view, sizeof...(Task)> task_ids(TypeList<Task...>) {
  return {Task::id...};
}

constexpr auto kTaskIds = task_ids(Tasks{});

}  // namespace

std::span<const MethodEntry> methods() {
  static const auto table =
      method_table(std::make_index_sequence<SERBENCH_REGISTRY_SHARDS>{});
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
