#pragma once
// The index file `<base>.index` (PROTOCOL.md 4.2): a 128-byte little-endian header, then one
// 16-byte entry per object. Every field is checked before anything in it is trusted.

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "model/checksum.h"
#include "protocol.h"

namespace serbench {

inline constexpr uint32_t kIndexVersion = 1;
inline constexpr std::size_t kHeaderBytes = 128;
inline constexpr std::size_t kEntryBytes = 16;
inline constexpr uint32_t kMinPageSize = 64;
inline constexpr uint32_t kDefaultPageSize = 262144;

inline std::string data_path(const std::string& base) { return base + ".pages"; }
inline std::string index_path(const std::string& base) { return base + ".index"; }

// Where one object lies in the data file.
struct Entry {
  uint64_t page = 0;
  uint32_t offset = 0;
  uint32_t length = 0;

  uint64_t start(uint32_t page_size) const { return page * page_size + offset; }
  // Whole pages the object occupies (1 for one that fits a page).
  uint64_t pages(uint32_t page_size) const {
    return length > page_size ? (uint64_t(length) + page_size - 1) / page_size : 1;
  }
  bool operator==(const Entry&) const = default;
  std::array<uint8_t, kEntryBytes> to_bytes() const;
  static Entry from_bytes(const uint8_t* b) {
    Entry e;
    std::memcpy(&e.page, b, 8);
    std::memcpy(&e.offset, b + 8, 4);
    std::memcpy(&e.length, b + 12, 4);
    return e;
  }
};

// Folds entries into the header's entries hash: words page, offset, length per entry.
class EntriesHash {
 public:
  void add(const Entry& e) {
    h_.word(e.page);
    h_.word(e.offset);
    h_.word(e.length);
  }
  uint64_t finish() const { return h_.finish(); }

 private:
  Hasher h_;
};

struct Header {
  uint32_t page_size = kDefaultPageSize;
  uint64_t count = 0;
  uint64_t page_count = 0;
  uint64_t data_len = 0;
  uint64_t entries_hash = 0;
  std::string model, method, writer;
  RunStamp run_stamp{};  // all zero: written outside a run

  std::array<uint8_t, kHeaderBytes> to_bytes() const;
};

// The files a read that trusts its bytes takes (PROTOCOL.md 3): those its own driver wrote in
// this run, i.e. with this writer id and this run stamp, which must not be zero.
struct OwnRun {
  std::string_view writer;
  RunStamp run_stamp;
};

// What a reader accepts: this model, this method (any method for the raw floor), the page
// size when the request names one, and for a trusting read only its own run's files.
struct Expect {
  std::string_view model;
  std::optional<std::string_view> method;
  std::optional<uint32_t> page_size;
  std::optional<OwnRun> own_run = std::nullopt;
};

// A checked index: its header and its bytes, entries decoded on use.
class Index {
 public:
  // `file` names the index in errors; `data_len` is the data file's real length.
  static Index parse(const std::string& file, std::string bytes, uint64_t data_len,
                     const Expect& expect);
  const Header& header() const { return header_; }
  uint64_t count() const { return header_.count; }
  // Entry n; n must be below count().
  Entry entry(uint64_t n) const {
    return Entry::from_bytes(reinterpret_cast<const uint8_t*>(bytes_.data()) + kHeaderBytes +
                             n * kEntryBytes);
  }

 private:
  void check_entries(const std::string& file) const;

  Header header_;
  std::string bytes_;
};

}  // namespace serbench
