// The counting allocator behind memstat/heap.h: every replaceable global operator new and
// delete goes to malloc/free and adds or subtracts the usable size of the block, the bytes
// the allocator really gave out, in a thread-local counter (no atomics, no contention
// between read_par's threads). Linked into executables only: a replacement belongs to the
// program, not to a library.

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include "memstat/heap.h"

namespace {

thread_local int64_t live_bytes = 0;

void* counted(void* p) {
  live_bytes += int64_t(malloc_usable_size(p));
  return p;
}

// What the standard asks of operator new: retry through the new-handler, else bad_alloc.
template <class Try>
void* allocate(Try&& try_once) {
  for (;;) {
    if (void* p = try_once()) return counted(p);
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

void* plain(std::size_t n) {
  return allocate([n] { return std::malloc(n ? n : 1); });
}

void* aligned(std::size_t n, std::align_val_t alignment) {
  const std::size_t a = std::max(std::size_t(alignment), sizeof(void*));
  return allocate([n, a]() -> void* {
    void* p = nullptr;
    return posix_memalign(&p, a, n ? n : 1) == 0 ? p : nullptr;
  });
}

void release(void* p) noexcept {
  if (!p) return;
  live_bytes -= int64_t(malloc_usable_size(p));
  std::free(p);
}

template <class F>
void* or_null(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace

namespace serbench {
int64_t thread_heap_bytes() { return live_bytes; }
}  // namespace serbench

void* operator new(std::size_t n) { return plain(n); }
void* operator new[](std::size_t n) { return plain(n); }
void* operator new(std::size_t n, std::align_val_t a) { return aligned(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return aligned(n, a); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return or_null([n] { return plain(n); });
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return or_null([n] { return plain(n); });
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return or_null([n, a] { return aligned(n, a); });
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return or_null([n, a] { return aligned(n, a); });
}

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
