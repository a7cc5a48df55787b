#pragma once
// Writing a paged file (PROTOCOL.md 4.1): each object is encoded straight into the current
// page's buffer, at an offset aligned as its method needs. The one object per page that
// runs past the page end is moved to the start of the next page (a memmove: in-place
// objects use self-relative offsets, so the move keeps them valid). Finished pages go out
// through a staging buffer in large timed writes; the index is written last. A copy of a
// file (the write floor) places each object where the file has it instead (place_at).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "bytes.h"
#include "file.h"
#include "paged/index.h"
#include "protocol.h"

namespace serbench {

struct WriteCounters {
  uint64_t objects = 0;
  uint64_t bytes = 0;  // the data file's length
  uint64_t pages = 0;
  uint64_t object_bytes = 0;  // sum of object lengths, padding excluded
  bool operator==(const WriteCounters&) const = default;
};

class PageWriter {
 public:
  PageWriter(const std::string& base, uint32_t page_size, IoTimer& timer);

  // Appends one object: `encode(Bytes&)` appends its bytes to the page buffer, which
  // starts at a page boundary, at an offset that is a multiple of `alignment`.
  template <class Encode>
  void push(std::size_t alignment, Encode&& encode) {
    const std::size_t used = page_.size();
    const std::size_t start = (used + alignment - 1) / alignment * alignment;
    page_.resize(start);
    encode(page_);
    place(used, start, page_.size() - start);
  }

  // Appends `bytes` at the place `at` another file gives them (a copy of its layout, as the
  // write floor makes): after the object before it, on its page or a later one, the bytes
  // between zero (whole zero pages for pages no object starts on).
  void place_at(const Entry& at, std::span<const uint8_t> bytes);

  // Writes the last page unpadded, fsyncs the data file, then writes and fsyncs the index,
  // stamped with the run that wrote it (all zero: none; only validating reads open it).
  WriteCounters finish(std::string_view model, std::string_view method, std::string_view writer,
                       const RunStamp& run_stamp = {});

 private:
  void place(std::size_t used, std::size_t start, std::size_t length);
  void record(const Entry& e);
  void emit_pages(std::size_t used);
  void flush_staging();

  File data_;
  std::string index_path_;
  IoTimer& timer_;
  uint32_t page_size_;
  Bytes page_;     // the current page's bytes from its start; more than a page for a large object
  Bytes staging_;  // finished pages waiting to be written
  uint64_t page_no_ = 0;
  std::string entries_;
  EntriesHash hash_;
  WriteCounters counters_;
};

}  // namespace serbench
