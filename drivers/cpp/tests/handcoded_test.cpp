// The shared hand-coded layout: exact bytes, and a decoder that turns every kind of damage
// into a DecodeError (corrupt_input), never a crash.

#include "methods/handcoded.h"

#include <gtest/gtest.h>

#include <random>

#include "model/models.h"
#include "test_support.h"

namespace serbench::test {
namespace {

template <class M>
std::string encoded(const M& value) {
  Bytes out;
  Handcoded{}.encode(value, out);
  return {reinterpret_cast<const char*>(out.data()), out.size()};
}

std::span<const uint8_t> span_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The DecodeError a read at `depth` raises, or "" when it succeeds.
template <class M>
std::string read_error(const std::string& bytes, Depth depth) {
  Hasher h;
  try {
    Handcoded{}.fold<M>(span_of(bytes), ReadMode{depth, 0}, h);
  } catch (const DecodeError& e) {
    return e.text();
  }
  return "";
}

template <class M>
void expect_error(const std::string& bytes, const std::string& text) {
  EXPECT_EQ(read_error<M>(bytes, Depth::access), text);
  EXPECT_EQ(read_error<M>(bytes, Depth::materialize), text);
}

TEST(Handcoded, TheReferenceTradeIs185Bytes) {
  const auto trades = golden<Trade>();
  EXPECT_EQ(encoded(trades[0]).size(), 185u);
}

TEST(Handcoded, BytesAreTheSharedLayout) {
  Org org;
  org.name = "a";
  org.country = "xy";
  org.type = OrgType::BAR;
  org.attributes.push_back({"z", -1, 2, true, 0.5, -2});
  const std::string want(
      "\x01\x00\x00\x00"
      "a"
      "\x00\x00\x00\x00"
      "\x02\x00\x00\x00"
      "xy"
      "\x01"
      "\x01\x00\x00\x00"
      "\x01\x00\x00\x00"
      "z"
      "\xff\x02\x01"
      "\x00\x00\x00\x00\x00\x00\xe0\x3f"
      "\xfe\xff",
      38);
  EXPECT_EQ(encoded(org), want);

  Tweet tweet;
  tweet.in_reply_to_status_id = 7;  // optional: presence byte, then the value
  const std::string bytes = encoded(tweet);
  // created_at "" (4), id (8), id_str, text, source (3 x 4), truncated (1)
  EXPECT_EQ(bytes.substr(25, 9), std::string("\x01\x07\x00\x00\x00\x00\x00\x00\x00", 9));
  EXPECT_EQ(bytes[34], '\x00');  // in_reply_to_user_id absent
}

TEST(Handcoded, EveryTruncationIsAnError) {
  for (const Tweet& tweet : golden<Tweet>()) {
    const std::string bytes = encoded(tweet);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      const std::string cut = bytes.substr(0, n);
      EXPECT_NE(read_error<Tweet>(cut, Depth::access), "") << n;
      EXPECT_NE(read_error<Tweet>(cut, Depth::materialize), "") << n;
    }
  }
}

TEST(Handcoded, DamageIsNamedWithItsByte) {
  const std::string trade = encoded(golden<Trade>()[0]);
  std::string bad_bool = trade;
  bad_bool[8] = 2;
  expect_error<Trade>(bad_bool, "byte 8: bool byte 2 is not 0 or 1");

  std::string huge_count = trade;
  huge_count.replace(17, 4, "\xff\xff\xff\xff");
  expect_error<Trade>(huge_count, "byte 17: list count 4294967295 exceeds the 164 bytes left");

  expect_error<Trade>(trade + '\0', "byte 185: 1 trailing bytes after the object");
  expect_error<Trade>(trade.substr(0, 5), "byte 0: truncated: 8 bytes needed, 5 left");
  expect_error<Trade>(trade.substr(0, 100), "byte 17: list count 10 exceeds the 79 bytes left");

  Org org;
  org.name = "ok";
  std::string bad_enum = encoded(org);
  bad_enum[4 + 2 + 4 + 4] = 3;
  expect_error<Org>(bad_enum, "byte 14: enum ordinal 3 is out of range");

  std::string bad_utf8 = encoded(org);
  bad_utf8[5] = '\xff';
  expect_error<Org>(bad_utf8, "byte 5: invalid UTF-8 in a string");

  Tweet tweet;
  std::string bad_presence = encoded(tweet);
  bad_presence[25] = 2;
  expect_error<Tweet>(bad_presence, "byte 25: optional presence byte 2 is not 0 or 1");
}

TEST(Handcoded, NestingIsBounded) {
  Tweet root;
  Tweet* last = &root;
  for (int i = 0; i < kMaxNesting + 1; ++i) {
    last->quoted_status = std::make_unique<Tweet>();
    last = last->quoted_status.get();
  }
  const std::string bytes = encoded(root);
  EXPECT_NE(read_error<Tweet>(bytes, Depth::access).find("nested deeper than 64 levels"),
            std::string::npos);
  EXPECT_NE(read_error<Tweet>(bytes, Depth::materialize).find("nested deeper than 64 levels"),
            std::string::npos);
}

TEST(Handcoded, RandomDamageNeverCrashes) {
  std::mt19937_64 rng(7);
  for (const Tweet& tweet : golden<Tweet>()) {
    const std::string bytes = encoded(tweet);
    for (int round = 0; round < 2000; ++round) {
      std::string damaged = bytes;
      for (int k = 0; k < 3; ++k) damaged[rng() % damaged.size()] = char(rng());
      read_error<Tweet>(damaged, Depth::access);
      read_error<Tweet>(damaged, Depth::materialize);
    }
  }
}

}  // namespace
}  // namespace serbench::test
