#include "paged/writer.h"

namespace serbench {

namespace {

constexpr std::size_t kStagingBytes = 1 << 20;

uint64_t pages_for(uint64_t bytes, uint32_t page_size) {
  return (bytes + page_size - 1) / page_size;
}

}  // namespace

PageWriter::PageWriter(const std::string& base, uint32_t page_size, IoTimer& timer)
    : data_(File::create(data_path(base), timer)),
      index_path_(index_path(base)),
      timer_(timer),
      page_size_(page_size) {
  page_.reserve(page_size);
  staging_.reserve(kStagingBytes + page_size);
}

void PageWriter::place(std::size_t used, std::size_t start, std::size_t length) {
  if (length == 0 || length > UINT32_MAX) {
    throw Failure(Kind::internal, "object " + std::to_string(counters_.objects) +
                                      ": encoded length " + std::to_string(length) +
                                      " is not in 1..2^32-1");
  }
  if (start > 0 && start + length > page_size_) {
    emit_pages(used);
    std::memmove(page_.data(), page_.data() + start, length);
    page_.resize(length);
    start = 0;
  }
  record(Entry{page_no_, uint32_t(start), uint32_t(length)});
}

void PageWriter::place_at(const Entry& at, std::span<const uint8_t> bytes) {
  // the first page after those the buffer holds (the current page; none before the first object)
  const uint64_t next_page = page_no_ + pages_for(page_.size(), page_size_);
  const bool follows = at.page == page_no_ ? at.offset >= page_.size() : at.page >= next_page;
  const bool fits = at.length <= page_size_ ? uint64_t(at.offset) + at.length <= page_size_
                                            : at.offset == 0;
  if (at.length == 0 || at.length != bytes.size() || !fits || !follows) {
    throw corrupt("object " + std::to_string(counters_.objects) + ": its place (page " +
                  std::to_string(at.page) + ", offset " + std::to_string(at.offset) + ", " +
                  std::to_string(at.length) + " bytes, " + std::to_string(bytes.size()) +
                  " given) does not follow the object before it");
  }
  if (at.page != page_no_) {
    emit_pages(page_.size());
    page_.clear();
    for (; page_no_ < at.page; ++page_no_) {
      staging_.grow_zeroed(page_size_);
      if (staging_.size() >= kStagingBytes) flush_staging();
    }
  }
  page_.resize(at.offset);
  page_.append(bytes.data(), bytes.size());
  record(at);
}

void PageWriter::record(const Entry& e) {
  hash_.add(e);
  auto bytes = e.to_bytes();
  entries_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  ++counters_.objects;
  counters_.object_bytes += e.length;
}

// Moves the first `used` bytes of the page buffer, zero-padded to whole pages, to staging.
void PageWriter::emit_pages(std::size_t used) {
  const uint64_t pages = pages_for(used, page_size_);
  staging_.append(page_.data(), used);
  staging_.grow_zeroed(pages * page_size_ - used);
  page_no_ += pages;
  if (staging_.size() >= kStagingBytes) flush_staging();
}

void PageWriter::flush_staging() {
  data_.write_all(staging_.data(), staging_.size());
  counters_.bytes += staging_.size();
  staging_.clear();
}

WriteCounters PageWriter::finish(std::string_view model, std::string_view method,
                                 std::string_view writer, const RunStamp& run_stamp) {
  const std::size_t tail = page_.size();
  staging_.append(page_.data(), tail);
  flush_staging();
  counters_.pages = page_no_ + pages_for(tail, page_size_);
  data_.sync();

  Header h;
  h.page_size = page_size_;
  h.count = counters_.objects;
  h.page_count = counters_.pages;
  h.data_len = counters_.bytes;
  h.entries_hash = hash_.finish();
  h.model = model;
  h.method = method;
  h.writer = writer;
  h.run_stamp = run_stamp;
  File index = File::create(index_path_, timer_);
  auto header = h.to_bytes();
  index.write_all(header.data(), header.size());
  index.write_all(entries_.data(), entries_.size());
  index.sync();
  return counters_;
}

}  // namespace serbench
