#include "memstat/rss.h"

#include <fstream>
#include <string>

#include "protocol.h"

namespace serbench {

namespace {

// A "Name:   123 kB" line of /proc/self/status, in bytes.
uint64_t status_bytes(const std::string& name) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, name.size() + 1, name + ":") == 0) {
      return std::stoull(line.substr(name.size() + 1)) * 1024;
    }
  }
  throw Failure(Kind::internal, "/proc/self/status has no " + name + " line");
}

}  // namespace

uint64_t start_rss_window() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  if (!clear) throw Failure(Kind::internal, "cannot reset the peak RSS: /proc/self/clear_refs");
  return status_bytes("VmRSS");
}

uint64_t peak_rss_bytes() { return status_bytes("VmHWM"); }

}  // namespace serbench
