#pragma once
// Live heap bytes for the tasks that account memory (`sort_dedup`, `memory`). The executables
// replace the global operator new/delete (memstat/counting_new.cpp, linked into the driver
// and the test binary, not into the library) with versions that count, per thread, the bytes
// malloc gives out (malloc_usable_size) minus the bytes given back.

#include <cstdint>
#include <string_view>

namespace serbench {

// Bytes allocated through operator new on this thread minus those freed on it. The tasks
// that measure are single-threaded, so a difference of two readings is the change of the
// live heap they caused.
int64_t thread_heap_bytes();

// How `memory` reports its accounting (PROTOCOL.md 5.3).
inline constexpr std::string_view kHeapAccounting = "counting_allocator";

}  // namespace serbench
