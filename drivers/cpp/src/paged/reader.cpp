#include "paged/reader.h"

#include <algorithm>

namespace serbench {

namespace {

Index open_index(const std::string& base, File& data, const Expect& expect, IoTimer& timer) {
  std::string bytes = read_whole(index_path(base), timer);
  return Index::parse(index_path(base), std::move(bytes), data.size(), expect);
}

}  // namespace

PageReader::PageReader(const std::string& base, const Expect& expect, IoTimer& timer, Bytes& page)
    : data_(File::open_read(serbench::data_path(base), timer)),
      index_(open_index(base, data_, expect, timer)),
      page_(page) {
  if (page_.size() < index_.header().page_size) page_.resize(index_.header().page_size);
}

void PageReader::load(const Entry& e) {
  const Header& h = index_.header();
  const uint64_t start = e.page * h.page_size;
  // the index check guarantees both lie inside the data file
  const uint64_t length =
      e.length > h.page_size ? e.length : std::min<uint64_t>(h.page_size, h.data_len - start);
  if (length > page_.size()) page_.resize(length);
  loaded_ = UINT64_MAX;
  data_.read_exact(page_.data(), length, start);
  loaded_ = e.page;
  ++pages_read_;
}

}  // namespace serbench
