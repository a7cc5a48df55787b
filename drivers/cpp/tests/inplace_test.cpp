// The in-place layout: self-relative offsets survive moves, and the validating read turns
// every damaged offset, length, flag or string into a DecodeError before anything is
// accessed, never a crash (run under -fsanitize=address,undefined to see it).

#include "methods/inplace.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "registry.h"
#include "test_support.h"

namespace serbench::test {
namespace {

template <class M>
using Layout = InPlaceMethod::Layout<M>;

static_assert(sizeof(inplace::Str) == 8 && alignof(inplace::Str) == 4);
static_assert(sizeof(inplace::Vec<double>) == 8);
static_assert(sizeof(inplace::Ptr<Layout<Tweet>>) == 4);
static_assert(sizeof(inplace::Maybe<inplace::Str>) == 12);
static_assert(alignof(Layout<Tweet>) == 8);

// One object in a heap block of exactly its size, so reading past it is caught.
class Object {
 public:
  template <class M>
  static Object of(const M& value) {
    Bytes b;
    InPlaceMethod{}.encode(value, b);
    Object o(b.size());
    std::memcpy(o.data(), b.data(), b.size());
    return o;
  }
  explicit Object(std::size_t size) : bytes_(new uint8_t[size]), size_(size) {}
  Object copy() const {
    Object o(size_);
    std::memcpy(o.data(), data(), size_);
    return o;
  }
  uint8_t* data() { return bytes_.get(); }
  const uint8_t* data() const { return bytes_.get(); }
  std::size_t size() const { return size_; }
  std::span<const uint8_t> span(std::size_t n) const { return {data(), n}; }
  std::span<const uint8_t> span() const { return span(size_); }
  // The position of a part of the object, found through a trusted view.
  std::size_t pos(const void* part) const {
    return std::size_t(static_cast<const uint8_t*>(part) - data());
  }
  template <class T>
  void put(std::size_t at, T v) {
    std::memcpy(data() + at, &v, sizeof v);
  }

 private:
  std::unique_ptr<uint8_t[]> bytes_;
  std::size_t size_;
};

template <class M>
const Layout<M>& trusted(const Object& o) {
  return InPlaceMethod::view<M>(o.span(), false);
}

// The validating read's DecodeError, or "" when it accepts; an accepted object is then read
// at both depths.
template <class M>
std::string validate_error(std::span<const uint8_t> bytes) {
  try {
    InPlaceMethod method;
    Hasher h;
    method.fold<M>(bytes, ReadMode{Depth::access, InPlaceMethod::kValidate}, h);
    method.fold<M>(bytes, ReadMode{Depth::materialize, InPlaceMethod::kValidate}, h);
  } catch (const DecodeError& e) {
    return e.text();
  }
  return "";
}

::testing::AssertionResult mentions(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not mention '" << part << "'";
}

TEST(InPlace, ObjectsReadTheSameAfterAMove) {
  const Expected want = expected("tweet");
  const auto tweets = golden<Tweet>();
  for (std::size_t i = 0; i < tweets.size(); ++i) {
    Bytes first;
    InPlaceMethod{}.encode(tweets[i], first);
    Bytes moved;
    moved.resize(8);  // offsets are self-relative: any 8-aligned place will do
    moved.append(first.data(), first.size());
    std::memset(first.data(), 0xAB, first.size());
    Hasher h;
    InPlaceMethod{}.fold<Tweet>({moved.data() + 8, first.size()}, ReadMode{Depth::access, 0}, h);
    EXPECT_EQ(h.finish(), want.hashes[i]) << "line " << i + 1;
  }
}

// Strings of every length, at both variants, hash as docs/checksum.md defines them, the object in
// a block of exactly its size (ASan sees any load past it).
TEST(InPlace, StringsOfEveryLengthFoldByTheDefinition) {
  for (std::size_t n = 0; n <= 40; ++n) {
    Part part;
    part.partkey = int32_t(n);
    part.name = std::string(n, 'a');
    part.mfgr = "";
    part.brand = std::string("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 2 * (n % 5));  // "é"s
    part.type = std::string(40 - n, 't');
    part.container = std::string(n / 3, 'c');
    part.comment = std::string(n % 8, 'z');
    uint64_t want = kSeed;
    auto word = [&](uint64_t w) { want = (want ^ w) * kPrime; };
    word(uint64_t(part.partkey));
    for (const std::string* s : {&part.name, &part.mfgr, &part.brand, &part.type})
      str_by_definition(want, *s);
    word(uint64_t(part.size));
    str_by_definition(want, part.container);
    word(std::bit_cast<uint64_t>(part.retailprice));
    str_by_definition(want, part.comment);
    const Object o = Object::of(part);
    for (std::size_t variant : {std::size_t(0), InPlaceMethod::kValidate}) {
      Hasher h;
      InPlaceMethod{}.fold<Part>(o.span(), ReadMode{Depth::access, variant}, h);
      EXPECT_EQ(h.finish(), want) << n << " bytes, variant " << variant;
    }
  }
}

TEST(InPlace, ValidateRejectsStringsOutsideTheObject) {
  const Object part = Object::of(golden<Part>()[0]);
  const std::size_t name = part.pos(&trusted<Part>(part).name);

  Object beyond = part.copy();
  beyond.put<int32_t>(name, 1 << 20);
  EXPECT_TRUE(mentions(validate_error<Part>(beyond.span()),
                       "byte " + std::to_string(name) + ": string at offset"));
  EXPECT_TRUE(mentions(validate_error<Part>(beyond.span()), "lies outside the object's"));

  Object backwards = part.copy();
  backwards.put<int32_t>(name, -int32_t(name));  // onto the root record itself
  EXPECT_TRUE(mentions(validate_error<Part>(backwards.span()), "overlaps an earlier part"));

  EXPECT_TRUE(mentions(validate_error<Part>(part.span(part.size() - 1)), "lies outside"));
  EXPECT_TRUE(mentions(validate_error<Part>(part.span(4)), "byte 0: root record at offset 0"));
  EXPECT_EQ(validate_error<Part>(part.span()), "");
}

TEST(InPlace, ValidateRejectsMisalignedLists) {
  const Object trade = Object::of(golden<Trade>()[0]);
  const std::size_t prices = trade.pos(&trusted<Trade>(trade).prices);
  Object shifted = trade.copy();
  shifted.put<int32_t>(prices, trusted<Trade>(trade).prices.off + 1);
  EXPECT_TRUE(mentions(validate_error<Trade>(shifted.span()), "is not aligned to 8"));
}

TEST(InPlace, ValidateRejectsBadFlagsEnumsAndUtf8) {
  const Object org = Object::of(golden<Org>()[1]);
  Object bad_enum = org.copy();
  bad_enum.put<uint8_t>(org.pos(&trusted<Org>(org).type), 7);
  EXPECT_TRUE(mentions(validate_error<Org>(bad_enum.span()), "enum ordinal 7 is out of range"));

  Object bad_bool = org.copy();
  bad_bool.put<uint8_t>(org.pos(&trusted<Org>(org).attributes[0].active), 2);
  EXPECT_TRUE(mentions(validate_error<Org>(bad_bool.span()), "bool byte 2 is not 0 or 1"));

  const Object tweet = Object::of(golden<Tweet>()[1]);
  const auto& root = trusted<Tweet>(tweet);
  Object bad_presence = tweet.copy();
  bad_presence.put<uint8_t>(tweet.pos(&root.in_reply_to_status_id.present), 2);
  EXPECT_TRUE(mentions(validate_error<Tweet>(bad_presence.span()),
                       "optional presence byte 2 is not 0 or 1"));

  Object bad_utf8 = tweet.copy();
  const std::string_view text = root.text;
  ASSERT_FALSE(text.empty());
  bad_utf8.put<uint8_t>(tweet.pos(text.data()), 0xFF);
  EXPECT_TRUE(mentions(validate_error<Tweet>(bad_utf8.span()), "invalid UTF-8 in a string"));
}

TEST(InPlace, ValidateRejectsCycles) {
  Tweet retweet = std::move(golden<Tweet>()[1]);
  retweet.retweeted_status = std::make_unique<Tweet>();
  const Object tweet = Object::of(retweet);
  const std::size_t field = tweet.pos(&trusted<Tweet>(tweet).retweeted_status);
  Object cycle = tweet.copy();
  cycle.put<int32_t>(field, -int32_t(field));  // the retweet is the tweet itself
  EXPECT_TRUE(mentions(validate_error<Tweet>(cycle.span()), "record at offset 0"));
}

// Every byte of every golden object, damaged in several ways: the validating read either
// rejects the object or reads it safely.
TEST(InPlace, ValidateSurvivesDamageAtEveryByte) {
  for_each_type(BuiltinModelTypes{}, [](auto model) {
    using M = typename decltype(model)::type;
    for (const M& value : golden<M>()) {
      const Object original = Object::of(value);
      for (std::size_t at = 0; at < original.size(); ++at) {
        const uint8_t b = original.data()[at];
        for (uint8_t damaged :
             {uint8_t(0), uint8_t(0xFF), uint8_t(0x80), uint8_t(b ^ 1), uint8_t(b + 8)}) {
          Object o = original.copy();
          o.data()[at] = damaged;
          validate_error<M>(o.span());
        }
      }
    }
  });
}

// The seed corpus of fuzz/targets/inplace.cpp: every golden object as the target reads it,
// [model byte][object]. After a layout change: SERBENCH_BLESS_SEEDS=1 rewrites it, and the
// test, having checked nothing, is skipped (a failure under CI=true); the next run checks it.
TEST(InPlace, CommittedFuzzSeedsAreCurrent) {
  std::map<std::string, std::string> seeds;
  for_each_type(BuiltinModelTypes{}, [&](auto model) {
    using M = typename decltype(model)::type;
    const std::vector<M> values = golden<M>();
    for (std::size_t i = 0; i < values.size(); ++i) {
      Bytes b;
      InPlaceMethod{}.encode(values[i], b);
      std::string seed(1, char(Model<M>::id));
      seed.append(reinterpret_cast<const char*>(b.data()), b.size());
      seeds[std::string(model_name<M>()) + "-" + std::to_string(i)] = seed;
    }
  });
  const std::filesystem::path dir = std::filesystem::path(SERBENCH_FUZZ_SEEDS_DIR) / "inplace";
  if (std::getenv("SERBENCH_BLESS_SEEDS") != nullptr) {
    rewrite_seeds(dir, seeds);
    SERBENCH_REQUIRE(false, "SERBENCH_BLESS_SEEDS: the seeds were rewritten, not checked");
  }
  EXPECT_EQ(read_seeds(dir), seeds) << "stale seeds; rerun this test with SERBENCH_BLESS_SEEDS=1";
}

// The writer field of the index header (PROTOCOL.md 4.2) says who laid the bytes out: a
// trusting read of another language's file would cast its bytes, so it is refused unread.
TEST(InPlace, OnlyTheValidatingReadTakesAFileAnotherWriterWrote) {
  Scratch dir;
  const std::string base = dir.path("org");
  InPlaceMethod method;
  IoTimer timer;
  Bytes page;
  const std::vector<Org> objects = golden<Org>();
  write_file(method, objects, base, 4096, timer);
  std::string index = read_file(index_path(base));
  index.replace(96, 4, std::string("rust", 4));
  write_bytes(index_path(base), index);
  for (Depth depth : InPlaceMethod::depths) {
    try {
      read_objects<Org>(method, {depth, 0}, base, Selection{}, 4096, timer, page);
      ADD_FAILURE() << "a trusting read took a file the rust driver wrote";
    } catch (const Failure& f) {
      EXPECT_EQ(f.kind(), Kind::wrong_file);
      EXPECT_EQ(f.message(), index_path(base) +
                                 ": written by 'rust'; inplace's trusting read takes only files "
                                 "this driver wrote in this run (its validate variant reads any)");
    }
    const ReadOutcome validated = read_objects<Org>(
        method, {depth, InPlaceMethod::kValidate}, base, Selection{}, 4096, timer, page);
    EXPECT_EQ(validated.checksum, expected("org").set);
    EXPECT_EQ(validated.writer, "rust");
  }
}

// The run stamp (index bytes 104..120) says which run wrote a file: a trusting read opens only
// files of the run its request names, so it never casts bytes damaged or replaced since.
TEST(InPlace, OnlyTheValidatingReadTakesAFileOfAnotherRun) {
  Scratch dir;
  const std::string base = dir.path("org");
  InPlaceMethod method;
  IoTimer timer;
  Bytes page;
  write_file(method, golden<Org>(), base, 4096, timer, kTestRun);
  const std::string index = read_file(index_path(base));
  EXPECT_EQ(index.substr(104, 16), std::string(kTestRun.begin(), kTestRun.end()));
  EXPECT_EQ(index.substr(120, 8), std::string(8, '\0'));
  EXPECT_EQ(PageReader(base, Expect{"org", "inplace", 4096}, timer, page).header().run_stamp,
            kTestRun);

  RunStamp other = kTestRun;
  other[15] ^= 1;
  auto trusting = [&](const RunStamp& asked) -> std::string {
    try {
      read_objects<Org>(method, {Depth::access, 0, asked}, base, Selection{}, 4096, timer, page);
      return "read";
    } catch (const Failure& f) {
      EXPECT_EQ(f.kind(), Kind::wrong_file);
      return f.message();
    }
  };
  EXPECT_EQ(trusting(kTestRun), "read");
  EXPECT_EQ(trusting(other), index_path(base) +
                                 ": written by another run (another run stamp); inplace's "
                                 "trusting read takes only files this driver wrote in this run "
                                 "(its validate variant reads any)");
  EXPECT_EQ(trusting(RunStamp{}).rfind(index_path(base) + ": the request carries no run_stamp;", 0),
            0u);
  write_file(method, golden<Org>(), base, 4096, timer);
  EXPECT_EQ(trusting(kTestRun).rfind(index_path(base) + ": written outside any run", 0), 0u);
  for (const RunStamp& asked : {kTestRun, other, RunStamp{}}) {
    const ReadOutcome validated = read_objects<Org>(
        method, {Depth::access, InPlaceMethod::kValidate, asked}, base, Selection{}, 4096, timer,
        page);
    EXPECT_EQ(validated.checksum, expected("org").set);
  }
}

}  // namespace
}  // namespace serbench::test
