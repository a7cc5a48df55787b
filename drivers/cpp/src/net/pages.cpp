#include "net/pages.h"

#include <algorithm>
#include <cstring>

#include "methods/method.h"

namespace serbench::net {

namespace {

std::array<uint8_t, kPagesHead> frame_head(uint32_t count) {
  std::array<uint8_t, kPagesHead> head{};
  std::memcpy(head.data(), &count, 4);
  return head;
}

std::span<const uint8_t> span_of(const std::string& s) { return as_bytes(s); }

uint64_t div_ceil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The failure of a sender whose object (or stored pages) would not fit the link's frame.
[[gnu::cold]] Failure too_large(const std::string& what, const Link& link) {
  return Failure(Kind::internal, what + " a frame of " + std::to_string(link.max_frame()) +
                                     " (params.net_frame_bytes)");
}

}  // namespace

std::size_t net_page_bytes(uint64_t requested, uint32_t page_size, std::size_t max_frame) {
  if (requested < uint64_t(page_size) + kPagesHead + kEntryBytes || requested > max_frame) {
    throw bad_request("params.net_page_bytes must be between a storage page (" +
                      std::to_string(page_size) + " bytes) plus one entry and " +
                      "params.net_frame_bytes (" + std::to_string(max_frame) + "), got " +
                      std::to_string(requested));
  }
  return std::size_t(requested);
}

Json end_summary(const Streamed& s, uint32_t page_size) {
  return Json::object({{"objects", s.objects},
                       {"bytes", s.bytes},
                       {"frames", s.frames},
                       {"page_size", page_size}});
}

void check_end(std::span<const uint8_t> end, const Streamed& arrived, uint32_t page_size,
               std::string_view peer) {
  const JsonObject claims = JsonObject::parse(end, peer);
  const std::pair<const char*, uint64_t> counts[] = {{"objects", arrived.objects},
                                                     {"bytes", arrived.bytes},
                                                     {"frames", arrived.frames},
                                                     {"page_size", page_size}};
  for (const auto& [key, got] : counts) {
    if (claims.u64(key) != got) {
      throw PeerFailure(peer, std::string("the stream ended claiming ") + key + " " +
                                  claims.text(key) + ", " + std::to_string(got) + " arrived");
    }
  }
}

// ---- packer -------------------------------------------------------------------------------

void Packer::place(std::size_t at, std::size_t len, Link& link, IoTimer& timer) {
  const std::size_t p = page_size_;
  // an object larger than a network page travels alone, in a frame up to the link's maximum
  // (the cell's net_frame_bytes)
  if (len == 0 || div_ceil(len, p) * p > link.max_frame() - kPagesHead - kEntryBytes) {
    throw too_large("an object of " + std::to_string(len) + " bytes does not fit", link);
  }
  if (at > page_start_ && at - page_start_ + len > p) {
    // the object starts the next storage page: pad this one, move the object after it
    const std::size_t next = page_start_ + p;
    pages_.resize(std::max(pages_.size(), next + len));
    std::memmove(pages_.data() + next, pages_.data() + at, len);
    std::memset(pages_.data() + at, 0, next - at);
    pages_.resize(next + len);
    page_start_ = next;
    at = next;
  }
  const std::size_t entries_after = kPagesHead + (count_ + 1) * kEntryBytes;
  if (at == page_start_ && page_start_ > 0 && at + len + entries_after > budget_) {
    // the network page is full: send the finished storage pages, keep this object
    send_pages(page_start_, link, timer);
    std::memmove(pages_.data(), pages_.data() + page_start_, len);
    pages_.resize(len);
    page_start_ = 0;
    at = 0;
  }
  const Entry e{page_start_ / p, uint32_t(at - page_start_), uint32_t(len)};
  const auto bytes = e.to_bytes();
  entries_.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  ++count_;
  if (len > p) {
    // a large object owns its pages; the next object starts after them
    page_start_ += div_ceil(len, p) * p;
    pages_.resize(page_start_);
  }
}

void Packer::send_pages(std::size_t end, Link& link, IoTimer& timer) {
  const auto head = frame_head(count_);
  link.send(FrameKind::pages, {head, span_of(entries_), {pages_.data(), end}}, timer);
  streamed_.objects += count_;
  streamed_.bytes += end;
  streamed_.frames += 1;
  entries_.clear();
  count_ = 0;
}

Streamed Packer::finish(Link& link, IoTimer& timer) {
  if (count_ > 0) send_pages(pages_.size(), link, timer);
  pages_.clear();
  page_start_ = 0;
  return std::exchange(streamed_, Streamed{});
}

// ---- shipping stored pages ----------------------------------------------------------------

Streamed ship(std::span<const Entry> entries, uint32_t page_size, uint64_t data_len,
              std::size_t budget, const PageSource& source, Link& link, IoTimer& timer) {
  const uint64_t p = page_size;
  Streamed streamed;
  std::string frame_entries;
  uint32_t count = 0;
  uint64_t first_page = 0;
  std::optional<uint64_t> last_page;
  auto send = [&](uint64_t first, uint64_t last) {
    const uint64_t from = first * p;
    const uint64_t to = std::min((last + 1) * p, data_len);
    // a large stored object travels alone: refused before its pages are read if the frame
    // would exceed the link's maximum
    if (to - from + kPagesHead + frame_entries.size() > link.max_frame()) {
      throw too_large("stored pages of " + std::to_string(to - from) + " bytes do not fit", link);
    }
    const auto pages = source(from, std::size_t(to - from));
    const auto head = frame_head(count);
    link.send(FrameKind::pages, {head, span_of(frame_entries), pages}, timer);
    streamed.objects += count;
    streamed.bytes += to - from;
    streamed.frames += 1;
    frame_entries.clear();
    count = 0;
  };
  for (const Entry& e : entries) {
    const uint64_t last = e.page + e.pages(page_size) - 1;
    if (!last_page) {
      first_page = e.page;
    } else if (e.page > *last_page) {
      const uint64_t bytes = (last - first_page + 1) * p + kPagesHead + (count + 1) * kEntryBytes;
      if (bytes > budget) {
        send(first_page, *last_page);
        first_page = e.page;
      }
    }
    Entry rebased = e;
    rebased.page = e.page - first_page;
    const auto raw = rebased.to_bytes();
    frame_entries.append(reinterpret_cast<const char*>(raw.data()), raw.size());
    ++count;
    last_page = last_page ? std::max(*last_page, last) : last;
  }
  if (last_page) send(first_page, *last_page);
  return streamed;
}

// ---- receiving ----------------------------------------------------------------------------

std::pair<uint32_t, std::span<const uint8_t>> for_each_object(
    std::span<const uint8_t> payload, uint32_t page_size, std::string_view peer,
    uint64_t frame_no, const std::function<void(const Entry&, std::span<const uint8_t>)>& visit) {
  auto bad = [&](const std::string& what) {
    return corrupt("peer " + std::string(peer) + ": network page " + std::to_string(frame_no) +
                   ": " + what);
  };
  uint32_t count = 0, zero = 1;
  if (payload.size() >= kPagesHead) {
    std::memcpy(&count, payload.data(), 4);
    std::memcpy(&zero, payload.data() + 4, 4);
  }
  if (zero != 0) throw bad("has no entry count and zero word");
  const uint64_t pages_at = kPagesHead + uint64_t(count) * kEntryBytes;
  if (pages_at > payload.size()) {
    throw bad(std::to_string(count) + " entries do not fit its " +
              std::to_string(payload.size()) + " bytes");
  }
  const auto pages = payload.subspan(pages_at);
  const uint64_t p = page_size;
  uint64_t end_of_previous = 0;
  // every entry checked before any object is visited
  for (uint32_t i = 0; i < count; ++i) {
    const Entry e = Entry::from_bytes(payload.data() + kPagesHead + i * kEntryBytes);
    const bool fits = e.length <= p ? uint64_t(e.offset) + e.length <= p : e.offset == 0;
    const bool page_ok = e.page <= pages.size() / p;
    const uint64_t start = page_ok ? e.page * p + e.offset : UINT64_MAX;
    if (e.length == 0 || !fits || !page_ok || start < end_of_previous ||
        start + e.length > pages.size()) {
      throw bad("object " + std::to_string(i) + " (page " + std::to_string(e.page) + ", offset " +
                std::to_string(e.offset) + ", length " + std::to_string(e.length) +
                ") lies outside the page's " + std::to_string(pages.size()) +
                " bytes or overlaps the object before it");
    }
    end_of_previous = start + e.length;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const Entry e = Entry::from_bytes(payload.data() + kPagesHead + i * kEntryBytes);
    try {
      visit(e, pages.subspan(e.page * p + e.offset, e.length));
    } catch (const DecodeError& d) {
      throw bad("object " + std::to_string(i) + ": " + d.text());
    }
  }
  return {count, pages};
}

Receiver::Receiver(const std::string& base, uint32_t page_size, IoTimer& timer)
    : data_(File::create(data_path(base), timer)),
      index_path_(index_path(base)),
      timer_(timer),
      page_size_(page_size) {}

void Receiver::frame(
    std::span<const uint8_t> payload, std::string_view peer,
    const std::function<std::optional<uint64_t>(std::span<const uint8_t>)>& visit) {
  const uint64_t frame_no = streamed_.frames;
  if (partial_) {
    throw corrupt("peer " + std::string(peer) + ": network page " + std::to_string(frame_no) +
                  " follows one that ended inside a storage page");
  }
  const uint64_t first_page = pages_;
  const auto [count, pages] =
      for_each_object(payload, page_size_, peer, frame_no, [&](const Entry& e, auto bytes) {
        if (visit) {
          if (auto h = visit(bytes)) checksum_.add(*h);
        }
        Entry rebased = e;
        rebased.page += first_page;
        hash_.add(rebased);
        const auto raw = rebased.to_bytes();
        entries_.append(reinterpret_cast<const char*>(raw.data()), raw.size());
      });
  data_.write_all(pages.data(), pages.size());
  pages_ += div_ceil(pages.size(), page_size_);
  bytes_ += pages.size();
  partial_ = pages.size() % page_size_ != 0;
  streamed_.add(count, pages);
}

Streamed Receiver::finish(std::string_view model, std::string_view method,
                          std::string_view writer) {
  data_.sync();
  Header h;
  h.page_size = page_size_;
  h.count = streamed_.objects;
  h.page_count = pages_;
  h.data_len = bytes_;
  h.entries_hash = hash_.finish();
  h.model = model;
  h.method = method;
  h.writer = writer;
  File index = File::create(index_path_, timer_);
  const auto header = h.to_bytes();
  index.write_all(header.data(), header.size());
  index.write_all(entries_.data(), entries_.size());
  index.sync();
  return streamed_;
}

}  // namespace serbench::net
