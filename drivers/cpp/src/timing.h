#pragma once
// Time measured inside the driver: the io share is taken around each file system call
// (open, read, write, fsync), so cpu_ns = total_ns - io_ns is the encode/decode/visit work.

#include <cstdint>
#include <ctime>
#include <utility>

namespace serbench {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

// Accumulates the nanoseconds spent inside file system calls.
class IoTimer {
 public:
  template <class F>
  decltype(auto) time(F&& call) {
    struct Stop {
      IoTimer& timer;
      uint64_t start;
      ~Stop() { timer.ns_ += now_ns() - start; }
    } stop{*this, now_ns()};
    return std::forward<F>(call)();
  }
  uint64_t ns() const { return ns_; }
  // Time measured elsewhere (read_par's mean over its threads).
  void add(uint64_t ns) { ns_ += ns; }

 private:
  uint64_t ns_ = 0;
};

}  // namespace serbench
