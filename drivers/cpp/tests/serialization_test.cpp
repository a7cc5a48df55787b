// The serialization-library methods (boost_text, boost_binary, cereal, msgpack, msgpack_arrays,
// bson, json, json_gzip) on damaged bytes: every truncation, trailing bytes and random damage
// give a DecodeError (corrupt_input) at every depth, never a crash or another exception. Golden
// round trips of these methods are in golden_test.cpp (every registered method). And every
// registered method's checking reader refuses text that is not UTF-8.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "registry.h"
#include "test_support.h"

namespace serbench::test {
namespace {

using SerializationMethods =
    TypeList<BoostText, BoostBinary, Cereal, Msgpack, MsgpackArrays, Bson, JsonMethod, JsonGzip>;

template <class Meth, class M>
std::string encoded(Meth& method, const M& value) {
  Bytes out;
  method.template encode<M>(value, out);
  return {reinterpret_cast<const char*>(out.data()), out.size()};
}

// Reads bytes at every depth of the method: true when every read succeeded, false when
// every read failed with a DecodeError (anything else fails the test).
template <class Meth, class M>
bool reads(Meth& method, const std::string& bytes) {
  const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  int ok = 0, failed = 0;
  for (Depth depth : Meth::depths) {
    Hasher h;
    try {
      method.template fold<M>(span, ReadMode{depth, 0}, h);
      ++ok;
    } catch (const DecodeError& e) {
      EXPECT_FALSE(e.message.empty());
      ++failed;
    }
  }
  EXPECT_TRUE(ok == 0 || failed == 0) << Meth::id << ": depths disagree on the same bytes";
  return failed == 0;
}

template <class F>
void for_each_method(F&& f) {
  for_each_type(SerializationMethods{}, [&](auto m) { f.template operator()<typename decltype(m)::type>(); });
}

TEST(Serialization, EveryTruncationAndTrailingByteIsAnError) {
  for_each_method([]<class Meth>() {
    Meth method;
    for (const Tweet& tweet : golden<Tweet>()) {
      const std::string bytes = encoded(method, tweet);
      ASSERT_TRUE((reads<Meth, Tweet>(method, bytes))) << Meth::id;
      for (std::size_t n = 0; n < bytes.size(); n += 1 + n / 64) {
        EXPECT_FALSE((reads<Meth, Tweet>(method, bytes.substr(0, n)))) << Meth::id << " cut at " << n;
      }
      EXPECT_FALSE((reads<Meth, Tweet>(method, bytes + '\0'))) << Meth::id;
    }
  });
}

TEST(Serialization, ErrorsNameWhatIsWrong) {
  const Trade trade = golden<Trade>()[0];
  auto error = []<class Meth>(const std::string& bytes) {
    Meth method;
    try {
      method.template decode<Trade>(
          std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    } catch (const DecodeError& e) {
      return e.text();
    }
    return std::string();
  };
  EXPECT_EQ(error.operator()<JsonMethod>(R"({"source_id":1})"),
            "byte 0: JSON: special: missing required field");
  EXPECT_EQ(error.operator()<JsonMethod>(R"({"source_id":1,)"),
            "byte 15: invalid JSON: Missing a name for object member.");
  EXPECT_EQ(error.operator()<Bson>(std::string("\x05\0\0\0", 4)), "byte 0: not a BSON document of 4 bytes (length field or final NUL)");
  EXPECT_EQ(error.operator()<Msgpack>("\x81\xa9source_id\xcb"),
            "byte 12: msgpack: insufficient bytes");
  Cereal cereal;
  std::string bad_bool = encoded(cereal, trade);
  bad_bool[8] = 2;
  EXPECT_EQ(error.operator()<Cereal>(bad_bool), "byte 8: bool byte 2 is not 0 or 1");
  std::string huge = encoded(cereal, trade);
  huge.replace(17, 8, "\xff\xff\xff\xff\xff\xff\xff\x0f");
  EXPECT_NE(error.operator()<Cereal>(huge).find("list count 1152921504606846975 exceeds"), std::string::npos);
}

TEST(Serialization, NestingIsBounded) {
  Tweet root;
  Tweet* last = &root;
  for (int i = 0; i < 65; ++i) {
    last->quoted_status = std::make_unique<Tweet>();
    last = last->quoted_status.get();
  }
  for_each_method([&]<class Meth>() {
    Meth method;
    const std::string bytes = encoded(method, root);
    const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    for (Depth depth : Meth::depths) {
      Hasher h;
      try {
        method.template fold<Tweet>(span, ReadMode{depth, 0}, h);
        ADD_FAILURE() << Meth::id << " read 66 nested tweets";
      } catch (const DecodeError& e) {
        EXPECT_NE(e.message.find("nested deeper than 64 levels"), std::string::npos)
            << Meth::id << ": " << e.text();
      }
    }
  });
}

TEST(Serialization, RandomDamageNeverCrashes) {
  for_each_method([]<class Meth>() {
    std::mt19937_64 rng(7);
    Meth method;
    for (const Tweet& tweet : golden<Tweet>()) {
      const std::string bytes = encoded(method, tweet);
      for (int round = 0; round < 300; ++round) {
        std::string damaged = bytes;
        for (int k = 0; k < 3; ++k) damaged[rng() % damaged.size()] = char(rng());
        reads<Meth, Tweet>(method, damaged);
      }
      std::string garbage(bytes.size(), '\0');
      for (char& c : garbage) c = char(rng());
      reads<Meth, Tweet>(method, garbage);
    }
  });
}

// A trusting read (the default variant of a method listing `validate`) checks nothing by
// design (PROTOCOL.md 3); every other read checks the text it reads.
template <class Meth>
bool trusting(std::size_t variant) {
  const auto& v = Meth::variants;
  return variant == 0 && std::find(v.begin(), v.end(), "validate") != v.end();
}

TEST(Utf8, EveryCheckingReaderRefusesInvalidText) {
  Part part = golden<Part>()[0];
  part.name = "not \xff UTF-8";
  for_each_type(Methods{}, [&](auto m) {
    using Meth = typename decltype(m)::type;
    if constexpr (Meth::writes) {
      Meth method;
      const std::string bytes = encoded(method, part);
      const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()),
                                          bytes.size());
      for (Depth depth : Meth::depths) {
        if (depth == Depth::key) continue;  // reads the key alone, not the text
        for (std::size_t variant = 0; variant <= Meth::variants.size(); ++variant) {
          if (trusting<Meth>(variant)) continue;
          Hasher h;
          EXPECT_THROW(method.template fold<Part>(span, ReadMode{depth, variant}, h), DecodeError)
              << Meth::id << " depth " << depth_id(depth) << " variant " << variant;
        }
      }
      EXPECT_THROW(method.template decode<Part>(span), DecodeError) << Meth::id << " decode";
    }
  });
}

}  // namespace
}  // namespace serbench::test
