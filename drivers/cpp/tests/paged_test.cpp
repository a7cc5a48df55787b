// The paged file and its index (PROTOCOL.md 4): placement of objects in pages, and every
// check a reader makes before trusting a file.

#include <gtest/gtest.h>

#include "registry.h"
#include "test_support.h"

namespace serbench {

void PrintTo(const Entry& e, std::ostream* os) {
  *os << "(" << e.page << ", " << e.offset << ", " << e.length << ")";
}

namespace test {
namespace {

// An arrays object whose handcoded form takes 8 + 4 * k bytes.
Arrays ints(std::size_t k) {
  Arrays a;
  a.ints.assign(k, 0);
  return a;
}

std::vector<Entry> entries_of(const std::string& base) {
  IoTimer timer;
  Bytes page;
  PageReader reader(base, Expect{"arrays", std::nullopt, std::nullopt}, timer, page);
  std::vector<Entry> out;
  for (uint64_t n = 0; n < reader.count(); ++n) out.push_back(reader.entry(n));
  return out;
}

template <class M, class Meth = Handcoded>
WriteCounters write(const std::vector<M>& objects, const std::string& base, uint32_t page_size) {
  Meth method;
  IoTimer timer;
  return write_file(method, objects, base, page_size, timer, kTestRun);
}

template <class M, class Meth = Handcoded>
ReadOutcome read_all(const std::string& base, std::optional<uint32_t> page_size = std::nullopt) {
  Meth method;
  IoTimer timer;
  Bytes page;
  const ReadMode mode{Meth::depths.empty() ? Depth::none : Meth::depths[0], 0, kTestRun};
  return read_objects<M>(method, mode, base, Selection{}, page_size, timer, page);
}

SetChecksum checksum_of(const std::vector<Arrays>& objects) {
  SetChecksum c;
  for (const auto& o : objects) c.add(object_hash(o));
  return c;
}

TEST(Paged, ObjectsFillPagesExactly) {
  Scratch dir;
  const std::vector<Arrays> objects{ints(14), ints(14), ints(6), ints(6)};  // 64, 64, 32, 32
  const WriteCounters c = write(objects, dir.path("f"), 64);
  EXPECT_EQ(c.pages, 3u);
  EXPECT_EQ(c.bytes, 192u);
  EXPECT_EQ(entries_of(dir.path("f")),
            (std::vector<Entry>{{0, 0, 64}, {1, 0, 64}, {2, 0, 32}, {2, 32, 32}}));
  EXPECT_EQ(read_all<Arrays>(dir.path("f"), 64).checksum, checksum_of(objects));
}

TEST(Paged, LargeObjectsOwnWholePagesAndTheLastPageIsNotPadded) {
  Scratch dir;
  // 8, 128 (two pages), 8, 100 (two pages, the last one partial)
  const std::vector<Arrays> objects{ints(0), ints(30), ints(0), ints(23)};
  const WriteCounters c = write(objects, dir.path("f"), 64);
  EXPECT_EQ(entries_of(dir.path("f")),
            (std::vector<Entry>{{0, 0, 8}, {1, 0, 128}, {3, 0, 8}, {4, 0, 100}}));
  EXPECT_EQ(c.pages, 6u);
  EXPECT_EQ(c.bytes, 4u * 64 + 100);
  const std::string data = read_file(data_path(dir.path("f")));
  ASSERT_EQ(data.size(), c.bytes);
  EXPECT_EQ(data.substr(8, 56), std::string(56, '\0'));  // the padding of page 0
  EXPECT_EQ(read_all<Arrays>(dir.path("f")).checksum, checksum_of(objects));
}

TEST(Paged, AnEmptyFileHasNoPages) {
  Scratch dir;
  const WriteCounters c = write(std::vector<Arrays>{}, dir.path("f"), 64);
  EXPECT_EQ(c.pages, 0u);
  EXPECT_EQ(read_file(data_path(dir.path("f"))).size(), 0u);
  EXPECT_EQ(read_file(index_path(dir.path("f"))).size(), kHeaderBytes);
  EXPECT_EQ(read_all<Arrays>(dir.path("f")).checksum, SetChecksum{});
}

TEST(Paged, InPlaceObjectsAreEightAlignedWithinPagesOfAnySize) {
  Scratch dir;
  const auto objects = golden<Org>();
  std::vector<Org> many;
  for (int i = 0; i < 20; ++i) many.push_back(objects[std::size_t(i) % objects.size()]);
  write<Org, InPlaceMethod>(many, dir.path("f"), 100);
  IoTimer timer;
  Bytes page;
  PageReader reader(dir.path("f"), Expect{"org", "inplace", 100}, timer, page);
  for (uint64_t n = 0; n < reader.count(); ++n) EXPECT_EQ(reader.entry(n).offset % 8, 0u) << n;
  SetChecksum want;
  for (const auto& o : many) want.add(object_hash(o));
  EXPECT_EQ((read_all<Org, InPlaceMethod>(dir.path("f")).checksum), want);
}

// ---- what a reader refuses ------------------------------------------------------------------

class Damaged : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = dir_.path("part");
    write(golden<Part>(), base_, 256);
    data_ = read_file(data_path(base_));
    index_ = read_file(index_path(base_));
  }
  // The failure of a handcoded read of `base` as model/method, after writing the files.
  Failure failure(const std::string& data, const std::string& index,
                  std::string_view model = "part",
                  std::optional<std::string_view> method = "handcoded",
                  std::optional<uint32_t> page_size = std::nullopt) {
    write_bytes(data_path(base_), data);
    write_bytes(index_path(base_), index);
    try {
      IoTimer timer;
      Bytes page;
      PageReader reader(base_, Expect{model, method, page_size}, timer, page);
    } catch (const Failure& f) {
      return f;
    }
    return Failure(Kind::internal, "no failure");
  }
  static std::string with_entries_hash(std::string index) {
    EntriesHash hash;
    for (std::size_t at = kHeaderBytes; at < index.size(); at += kEntryBytes) {
      hash.add(Entry::from_bytes(reinterpret_cast<const uint8_t*>(index.data()) + at));
    }
    const uint64_t h = hash.finish();
    index.replace(40, 8, reinterpret_cast<const char*>(&h), 8);
    return index;
  }

  Scratch dir_;
  std::string base_, data_, index_;
};

void expect_failure(const Failure& f, Kind kind, const std::string& part) {
  EXPECT_EQ(kind_id(f.kind()), kind_id(kind)) << f.message();
  EXPECT_NE(f.message().find(part), std::string::npos) << f.message();
}

TEST_F(Damaged, TruncatedFiles) {
  expect_failure(failure(data_.substr(0, data_.size() - 1), index_), Kind::corrupt_input,
                 "the data file has");
  expect_failure(failure(data_, index_.substr(0, index_.size() - 1)), Kind::corrupt_input,
                 "truncated or damaged");
  expect_failure(failure(data_, index_.substr(0, 100)), Kind::corrupt_input,
                 "the header alone is 128");
}

TEST_F(Damaged, BadMagicAndVersion) {
  std::string magic = index_;
  magic[0] = 'X';
  expect_failure(failure(data_, magic), Kind::corrupt_input, "bad magic");
  std::string version = index_;
  version[8] = 2;
  expect_failure(failure(data_, version), Kind::wrong_file, "format version 2");
}

TEST_F(Damaged, DamagedEntries) {
  std::string flipped = index_;
  flipped[kHeaderBytes + kEntryBytes + 8] ^= 1;  // entry 1's offset
  expect_failure(failure(data_, flipped), Kind::corrupt_input, "entries hash");

  // a consistent hash over entries that overlap
  std::string overlap = index_;
  overlap.replace(kHeaderBytes + kEntryBytes, kEntryBytes,
                  index_.substr(kHeaderBytes, kEntryBytes));
  expect_failure(failure(data_, with_entries_hash(overlap)), Kind::corrupt_input,
                 "entry 1 (page 0, offset 0");

  std::string zero = index_;
  zero.replace(kHeaderBytes + 12, 4, std::string(4, '\0'));
  expect_failure(failure(data_, with_entries_hash(zero)), Kind::corrupt_input,
                 "entry 0 (page 0, offset 0, length 0): length 0");
}

TEST_F(Damaged, WrongModelMethodOrPageSize) {
  expect_failure(failure(data_, index_, "trade"), Kind::wrong_file,
                 "holds model 'part', not 'trade'");
  expect_failure(failure(data_, index_, "part", "inplace"), Kind::wrong_file,
                 "written by method 'handcoded', not 'inplace'");
  expect_failure(failure(data_, index_, "part", "handcoded", 512), Kind::wrong_file,
                 "page size 256, the request says 512");
  EXPECT_EQ(failure(data_, index_, "part", std::nullopt).message(),
            "no failure");  // raw reads any method
}

TEST_F(Damaged, MissingFilesAndRanges) {
  IoTimer timer;
  Bytes page;
  try {
    PageReader reader(dir_.path("absent"), Expect{"part", "handcoded", std::nullopt}, timer, page);
    ADD_FAILURE() << "opened a missing file";
  } catch (const Failure& f) {
    expect_failure(f, Kind::not_found, "absent.pages");
  }
  Handcoded method;
  try {
    read_objects<Part>(method, ReadMode{Depth::access, 0}, base_,
                       Selection{Selection::Kind::range, 2, 3, {}}, {}, timer, page);
    ADD_FAILURE() << "read past the end";
  } catch (const Failure& f) {
    expect_failure(f, Kind::out_of_range, "objects 2..2+3 asked");
  }
}

TEST_F(Damaged, ADamagedObjectIsLocated) {
  IoTimer timer;
  Bytes page;
  PageReader reader(base_, Expect{"part", "handcoded", std::nullopt}, timer, page);
  const Entry e = reader.entry(2);
  std::string data = data_;
  data[e.page * 256 + e.offset + 7] = '\xff';  // the high byte of the name's length
  write_bytes(data_path(base_), data);
  Handcoded method;
  try {
    read_objects<Part>(method, ReadMode{Depth::access, 0}, base_, Selection{}, {}, timer, page);
    ADD_FAILURE() << "read a damaged object";
  } catch (const Failure& f) {
    expect_failure(f, Kind::corrupt_input,
                   ": page " + std::to_string(e.page) + ", object 2 at offset " +
                       std::to_string(e.offset) + ": byte 4:");
  }
}

}  // namespace
}  // namespace test
}  // namespace serbench
