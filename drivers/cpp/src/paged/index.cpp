#include "paged/index.h"

#include "protocol.h"

namespace serbench {

namespace {

constexpr char kMagic[8] = {'S', 'E', 'R', 'B', 'I', 'D', 'X', '\n'};

struct IdField {
  std::size_t at, width;
};
constexpr IdField kModelField{48, 24};
constexpr IdField kMethodField{72, 24};
constexpr IdField kWriterField{96, 8};
constexpr std::size_t kRunStampAt = 104;  // 16 bytes; 120..128 stay reserved, zero

template <class T>
T load(const std::string& b, std::size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

template <class T>
void store(std::array<uint8_t, kHeaderBytes>& b, std::size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

void store_id(std::array<uint8_t, kHeaderBytes>& b, IdField f, const std::string& id) {
  if (id.size() > f.width) throw Failure(Kind::internal, "id '" + id + "' does not fit the index");
  std::memcpy(b.data() + f.at, id.data(), id.size());
}

// A zero-padded ASCII id; nullopt when it is not one.
std::optional<std::string> load_id(const std::string& b, IdField f) {
  std::string_view raw(b.data() + f.at, f.width);
  std::size_t end = raw.find('\0');
  if (end == std::string_view::npos) end = f.width;
  for (std::size_t i = 0; i < f.width; ++i) {
    auto c = static_cast<unsigned char>(raw[i]);
    if ((i < end && c >= 0x80) || (i >= end && c != 0)) return std::nullopt;
  }
  return std::string(raw.substr(0, end));
}

// What is wrong with one entry, given where the previous object ended; empty when nothing.
std::string entry_problem(const Entry& e, const Header& h, uint64_t previous_end) {
  const uint32_t p = h.page_size;
  if (e.length == 0) return "length 0";
  if (e.page >= h.page_count) {
    return "page beyond the file's " + std::to_string(h.page_count) + " pages";
  }
  if (e.length <= p && uint64_t(e.offset) + e.length > p) {
    return "crosses the end of its page of " + std::to_string(p) + " bytes";
  }
  if (e.length > p && e.offset != 0) return "an object larger than a page must start at offset 0";
  if (e.page + e.pages(p) > h.page_count) {
    return "its pages run past the file's " + std::to_string(h.page_count) + " pages";
  }
  if (e.start(p) < previous_end) return "out of order or overlapping the previous object";
  if (e.start(p) + e.length > h.data_len) {
    return "ends past the data file's " + std::to_string(h.data_len) + " bytes";
  }
  return {};
}

// Why a trusting read must not open a file of header `h`; empty when its own run wrote it.
std::string foreign_run(const Header& h, const OwnRun& own) {
  constexpr RunStamp kNoRun{};
  if (h.writer != own.writer) return "written by '" + h.writer + "'";
  if (own.run_stamp == kNoRun) return "the request carries no run_stamp";
  if (h.run_stamp == kNoRun) return "written outside any run (its run stamp is zero)";
  if (h.run_stamp != own.run_stamp) return "written by another run (another run stamp)";
  return {};
}

}  // namespace

std::array<uint8_t, kEntryBytes> Entry::to_bytes() const {
  std::array<uint8_t, kEntryBytes> b{};
  std::memcpy(b.data(), &page, 8);
  std::memcpy(b.data() + 8, &offset, 4);
  std::memcpy(b.data() + 12, &length, 4);
  return b;
}

std::array<uint8_t, kHeaderBytes> Header::to_bytes() const {
  std::array<uint8_t, kHeaderBytes> b{};
  std::memcpy(b.data(), kMagic, 8);
  store(b, 8, kIndexVersion);
  store(b, 12, page_size);
  store(b, 16, count);
  store(b, 24, page_count);
  store(b, 32, data_len);
  store(b, 40, entries_hash);
  store_id(b, kModelField, model);
  store_id(b, kMethodField, method);
  store_id(b, kWriterField, writer);
  std::memcpy(b.data() + kRunStampAt, run_stamp.data(), run_stamp.size());
  return b;
}

Index Index::parse(const std::string& file, std::string bytes, uint64_t data_len,
                   const Expect& expect) {
  auto corrupt_file = [&](const std::string& what) { return corrupt(file + ": " + what); };
  auto wrong = [&](const std::string& what) {
    return Failure(Kind::wrong_file, file + ": " + what);
  };
  if (bytes.size() < kHeaderBytes) {
    throw corrupt_file("truncated: " + std::to_string(bytes.size()) +
                       " bytes, the header alone is " + std::to_string(kHeaderBytes));
  }
  if (std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw corrupt_file("bad magic: not a serbench index");
  if (auto version = load<uint32_t>(bytes, 8); version != kIndexVersion) {
    throw wrong("format version " + std::to_string(version) + ", this driver reads " +
                std::to_string(kIndexVersion));
  }
  Index index;
  Header& h = index.header_;
  h.page_size = load<uint32_t>(bytes, 12);
  h.count = load<uint64_t>(bytes, 16);
  h.page_count = load<uint64_t>(bytes, 24);
  h.data_len = load<uint64_t>(bytes, 32);
  h.entries_hash = load<uint64_t>(bytes, 40);
  auto model = load_id(bytes, kModelField);
  auto method = load_id(bytes, kMethodField);
  auto writer = load_id(bytes, kWriterField);
  if (!model || !method || !writer) throw corrupt_file("an id field is not zero-padded ASCII");
  h.model = *model;
  h.method = *method;
  h.writer = *writer;
  std::memcpy(h.run_stamp.data(), bytes.data() + kRunStampAt, h.run_stamp.size());
  const uint32_t p = h.page_size;
  if (p < kMinPageSize) {
    throw corrupt_file("page size " + std::to_string(p) + " is below " +
                       std::to_string(kMinPageSize));
  }
  if (expect.page_size && *expect.page_size != p) {
    throw wrong("page size " + std::to_string(p) + ", the request says " +
                std::to_string(*expect.page_size));
  }
  if (h.model != expect.model) {
    throw wrong("holds model '" + h.model + "', not '" + std::string(expect.model) + "'");
  }
  if (expect.method && h.method != *expect.method) {
    throw wrong("written by method '" + h.method + "', not '" + std::string(*expect.method) + "'");
  }
  if (expect.own_run) {
    if (auto what = foreign_run(h, *expect.own_run); !what.empty()) {
      throw wrong(what + "; " + h.method +
                  "'s trusting read takes only files this driver wrote in this run (its "
                  "validate variant reads any)");
    }
  }
  if (h.count > (bytes.size() - kHeaderBytes) / kEntryBytes ||
      bytes.size() != kHeaderBytes + h.count * kEntryBytes) {
    throw corrupt_file(std::to_string(bytes.size()) + " bytes for " + std::to_string(h.count) +
                       " entries: truncated or damaged");
  }
  if (data_len != h.data_len) {
    throw corrupt_file("the data file has " + std::to_string(data_len) + " bytes, the index says " +
                       std::to_string(h.data_len) + ": truncated or damaged");
  }
  if (h.page_count != (h.data_len + p - 1) / p) {
    throw corrupt_file("page count " + std::to_string(h.page_count) + " does not match " +
                       std::to_string(h.data_len) + " data bytes in pages of " + std::to_string(p));
  }
  index.bytes_ = std::move(bytes);
  index.check_entries(file);
  return index;
}

void Index::check_entries(const std::string& file) const {
  const Header& h = header_;
  EntriesHash hash;
  for (uint64_t n = 0; n < h.count; ++n) hash.add(entry(n));
  if (hash.finish() != h.entries_hash) {
    throw corrupt(file + ": entries hash " + hex64(hash.finish()) + " differs from the header's " +
                  hex64(h.entries_hash) + ": the entries are damaged");
  }
  uint64_t previous_end = 0;
  for (uint64_t n = 0; n < h.count; ++n) {
    Entry e = entry(n);
    if (auto what = entry_problem(e, h, previous_end); !what.empty()) {
      throw corrupt(file + ": entry " + std::to_string(n) + " (page " + std::to_string(e.page) +
                    ", offset " + std::to_string(e.offset) + ", length " +
                    std::to_string(e.length) + "): " + what);
    }
    previous_end = e.start(h.page_size) + e.length;
  }
}

}  // namespace serbench
