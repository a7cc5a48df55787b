#pragma once
// The registry's method table is filled in shards, each its own translation unit
// (registry_shard.cpp.in, one copy per shard made by CMake): compiling every task for every
// method and model is the driver's heaviest code, and shards build in parallel.

#include <cstddef>
#include <span>
#include <utility>

#include "cell_ops.h"
#include "registry.h"

namespace serbench {

// Sets table[i] for the methods i of the registry with i % shards == Shard.
template <std::size_t Shard, std::size_t Shards, class... Meth, std::size_t... I>
void fill_shard(std::span<MethodEntry> table, TypeList<Meth...>, std::index_sequence<I...>) {
  ([&] {
    if constexpr (I % Shards == Shard) table[I] = cell::make_entry<Meth, Tasks>();
  }(), ...);
}

template <std::size_t Shard>
void fill_methods(std::span<MethodEntry> table) {
  fill_shard<Shard, SERBENCH_REGISTRY_SHARDS>(table, Methods{},
                                              std::make_index_sequence<kMethodCount>{});
}

}  // namespace serbench
