#pragma once
// Network pages (PROTOCOL.md 10.3). A pages frame is `u32 count | u32 0 | count 16-byte
// entries | whole storage pages`, the pages laid out exactly as in a paged file (the entries'
// page counted from the frame's first page), so a receiver appends them to its file as they
// are and an object never spans two frames. Three parts: the Packer (objects encoded straight
// into a network page: `ram`), ship() (stored pages sent as they are: `disk`, and `ram` of a
// method whose objects already live in pages) and the Receiver (frames appended to a paged
// file, every entry checked against the frame before any byte is trusted).

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bytes.h"
#include "file.h"
#include "json.h"
#include "model/checksum.h"
#include "net/wire.h"
#include "paged/index.h"

namespace serbench::net {

inline constexpr std::size_t kPagesHead = 8;
inline constexpr uint64_t kDefaultNetPage = uint64_t(20) << 20;

// A network page size from a request: a storage page plus one entry at least, a frame of the
// cell's at most (`max_frame`, from params.net_frame_bytes).
std::size_t net_page_bytes(uint64_t requested, uint32_t page_size, std::size_t max_frame);

// The counts of one stream, as its end frame reports them.
struct Streamed {
  uint64_t objects = 0, bytes = 0, frames = 0;
  bool operator==(const Streamed&) const = default;
  // Counts one checked pages frame: its object count and storage page bytes.
  void add(uint32_t count, std::span<const uint8_t> pages) {
    objects += count;
    bytes += pages.size();
    frames += 1;
  }
};

Json end_summary(const Streamed& s, uint32_t page_size);

// Compares an end frame's claims (objects, bytes, frames, page_size) with what arrived; a
// difference is a PeerFailure naming the peer.
void check_end(std::span<const uint8_t> end, const Streamed& arrived, uint32_t page_size,
               std::string_view peer);

// Packs objects into network pages under the paged file's rules (4.1) and sends a frame when
// the next object would not fit its budget.
class Packer {
 public:
  Packer(uint32_t page_size, std::size_t budget) : page_size_(page_size), budget_(budget) {}

  // Appends one object, which `encode(Bytes&)` appends at the end of the buffer, starting at
  // an offset (within its storage page) that is a multiple of `alignment`.
  template <class Encode>
  void push(std::size_t alignment, Encode&& encode, Link& link, IoTimer& timer) {
    const std::size_t in_page = pages_.size() - page_start_;
    pages_.resize(page_start_ + (in_page + alignment - 1) / alignment * alignment);
    const std::size_t at = pages_.size();
    encode(pages_);
    place(at, pages_.size() - at, link, timer);
  }
  // Sends what is left and returns the stream's counts; ready for the next stream.
  Streamed finish(Link& link, IoTimer& timer);

 private:
  void place(std::size_t at, std::size_t len, Link& link, IoTimer& timer);
  void send_pages(std::size_t end, Link& link, IoTimer& timer);

  std::size_t page_size_, budget_;
  Bytes pages_;
  std::size_t page_start_ = 0;  // where the current storage page starts in pages_
  std::string entries_;
  uint32_t count_ = 0;
  Streamed streamed_;
};

// Where ship() takes stored pages from: `read(first_byte, n)` gives n bytes of the data file.
using PageSource = std::function<std::span<const uint8_t>(uint64_t from, std::size_t n)>;

// Sends objects `entries[0..n)` (their stored index entries, in order, of a file whose data is
// `data_len` bytes) as the stored pages holding them, frames cut at object boundaries.
Streamed ship(std::span<const Entry> entries, uint32_t page_size, uint64_t data_len,
              std::size_t budget, const PageSource& source, Link& link, IoTimer& timer);

// Checks every entry of one pages frame (`frame_no` of a stream from `peer`) against the
// frame before any is trusted, then calls visit(entry, bytes) on each object in order; a
// visit's DecodeError names the object. Returns the entry count and the frame's page bytes.
std::pair<uint32_t, std::span<const uint8_t>> for_each_object(
    std::span<const uint8_t> payload, uint32_t page_size, std::string_view peer,
    uint64_t frame_no, const std::function<void(const Entry&, std::span<const uint8_t>)>& visit);

// Appends received network pages to the paged file `base` (data, then the index at finish).
class Receiver {
 public:
  Receiver(const std::string& base, uint32_t page_size, IoTimer& timer);

  // One pages frame from `peer`; `visit` (may be empty) sees every object's bytes and returns
  // its hash when it computed one.
  void frame(std::span<const uint8_t> payload, std::string_view peer,
             const std::function<std::optional<uint64_t>(std::span<const uint8_t>)>& visit);
  // Fsyncs the data file, then writes and fsyncs the index.
  Streamed finish(std::string_view model, std::string_view method, std::string_view writer);

  const Streamed& streamed() const { return streamed_; }
  const SetChecksum& checksum() const { return checksum_; }

 private:
  File data_;
  std::string index_path_;
  IoTimer& timer_;
  uint32_t page_size_;
  std::string entries_;
  EntriesHash hash_;
  uint64_t pages_ = 0, bytes_ = 0;
  bool partial_ = false;
  Streamed streamed_;
  SetChecksum checksum_;
};

}  // namespace serbench::net
