#pragma once
// Reading a paged file: the index is read whole and checked, then each object is served
// from one page buffer that is refilled (pread) only when the page changes. The buffer is the
// caller's, so repeated reads reuse it (no allocation, no page faults after the first).

#include <cstdint>
#include <span>
#include <string>

#include "bytes.h"
#include "file.h"
#include "paged/index.h"

namespace serbench {

class PageReader {
 public:
  // Opens `<base>.index` and `<base>.pages` and checks the index against both; objects are
  // read into `page`.
  PageReader(const std::string& base, const Expect& expect, IoTimer& timer, Bytes& page);

  const Header& header() const { return index_.header(); }
  uint64_t count() const { return index_.count(); }
  Entry entry(uint64_t n) const { return index_.entry(n); }
  const std::string& data_path() const { return data_.path(); }
  uint64_t pages_read() const { return pages_read_; }

  // The bytes of object n (below count()), valid until the next call. The page buffer is
  // 64-byte aligned, so an object's alignment within its page is its alignment in memory.
  std::span<const uint8_t> object(uint64_t n) {
    const Entry e = index_.entry(n);
    if (e.page != loaded_) load(e);
    return {page_.data() + e.offset, e.length};
  }

 private:
  void load(const Entry& e);

  File data_;
  Index index_;
  Bytes& page_;
  uint64_t loaded_ = UINT64_MAX;  // the page whose bytes page_ holds (a large object's first)
  uint64_t pages_read_ = 0;
};

}  // namespace serbench
