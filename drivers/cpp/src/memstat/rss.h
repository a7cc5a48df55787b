#pragma once
// Resident set size as PROTOCOL.md 5.2 reads it (Linux): the kernel's high-water mark is
// reset by writing 5 to /proc/self/clear_refs; VmRSS and VmHWM come from /proc/self/status.

#include <cstdint>

namespace serbench {

// Resets the high-water mark and returns VmRSS in bytes: the `rss_start_bytes` of a task.
uint64_t start_rss_window();
// VmHWM in bytes: the peak since the last reset (`peak_rss_bytes`).
uint64_t peak_rss_bytes();

}  // namespace serbench
