#pragma once
// A file descriptor whose every system call is timed by an IoTimer; failures are protocol
// Failures naming the file (a missing file is not_found, a short read corrupt_input).

#include <cstddef>
#include <cstdint>
#include <string>

#include "timing.h"

namespace serbench {

class File {
 public:
  static File open_read(const std::string& path, IoTimer& timer);
  static File create(const std::string& path, IoTimer& timer);
  File(File&& other) noexcept;
  File& operator=(File&&) = delete;
  File(const File&) = delete;
  ~File();

  uint64_t size();
  // Exactly n bytes at offset; a file that ends first is corrupt_input.
  void read_exact(void* buf, std::size_t n, uint64_t offset);
  void write_all(const void* data, std::size_t n);
  void sync();
  const std::string& path() const { return path_; }

 private:
  File(int fd, std::string path, IoTimer& timer)
      : fd_(fd), path_(std::move(path)), timer_(&timer) {}
  [[noreturn]] void fail(int error) const;

  int fd_;
  std::string path_;
  IoTimer* timer_;
};

// The file's bytes, read whole (the index).
std::string read_whole(const std::string& path, IoTimer& timer);

// The eviction this driver uses, as info.eviction and result.eviction name it.
inline constexpr const char* kEviction = "fadvise_dontneed";

// A file's pages: how many are in the page cache, of how many.
struct Residency {
  uint64_t cached = 0, pages = 0;
};

// Which of the file's pages are in the page cache: mincore over a mapping of the file
// (mapping faults nothing in, and mincore reads residency without touching a page).
Residency residency(const std::string& path);

// Drops the file's pages from the page cache (posix_fadvise(DONTNEED) over the whole file)
// and returns what is still cached. Writers fsync, so every cached page is clean and can be
// dropped; on tmpfs, or for pages mapped elsewhere, the call succeeds and drops nothing,
// which only the residency shows (PROTOCOL.md 5: cached_fraction).
Residency evict(const std::string& path);

}  // namespace serbench
