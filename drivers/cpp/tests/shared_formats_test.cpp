// The bytes of the formats every language shares (PROTOCOL.md section 8): what the writers
// produce exactly, and what the readers also accept and reject.

#include <gtest/gtest.h>

#include <cstring>

#include "methods/bson.h"
#include "methods/json.h"
#include "methods/json_gzip.h"
#include "methods/msgpack.h"
#include "methods/msgpack_arrays.h"
#include "test_support.h"

namespace serbench::test {
namespace {

template <class Meth, class M>
std::string encoded(const M& value) {
  Meth method;
  Bytes out;
  method.template encode<M>(value, out);
  return {reinterpret_cast<const char*>(out.data()), out.size()};
}

std::span<const uint8_t> span_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The hash at every depth, or the first DecodeError's message.
template <class Meth, class M>
std::string read(const std::string& bytes) {
  Meth method;
  std::string result;
  for (Depth depth : Meth::depths) {
    Hasher h;
    try {
      method.template fold<M>(span_of(bytes), ReadMode{depth, 0}, h);
      result = hex64(h.finish());
    } catch (const DecodeError& e) {
      return e.message;
    }
  }
  return result;
}

Org small_org() {
  Org org;
  org.name = "a";
  org.country = "xy";
  org.type = OrgType::BAR;
  org.attributes.push_back({"z", -1, 2, true, 0.5, -2});
  return org;
}

std::string le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string le64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string f64(double v) { return std::string(reinterpret_cast<const char*>(&v), 8); }

// ---- json -----------------------------------------------------------------------------

TEST(SharedJson, DoublesAreShortestWithTheContractsExponents) {
  Trade trade;
  trade.prices = {1.0, 0.00001, 123456.789, 1e15, 1e16, 1.5e-7, 1.7976931348623157e308,
                  0.0, -0.0, 5e-324, -2.5, 0.1};
  const std::string text = encoded<JsonMethod>(trade);
  EXPECT_NE(text.find(R"("prices":[1.0,0.00001,123456.789,1000000000000000.0,1e+16,1.5e-7,)"
                      R"(1.7976931348623157e+308,0.0,-0.0,5e-324,-2.5,0.1])"),
            std::string::npos)
      << text;
  EXPECT_EQ((read<JsonMethod, Trade>(text)), hex64(object_hash(trade)));
}

TEST(SharedJson, StringsEscapeOnlyWhatTheContractSays) {
  Org org;
  org.name = std::string("\"\\\b\f\n\r\t\x01\x1f\x7f/\xc3\xa9", 13);
  const std::string text = encoded<JsonMethod>(org);
  EXPECT_EQ(text, "{\"name\":\"\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f/\xc3\xa9\",\"category\":\"\","
                  "\"country\":\"\",\"type\":\"FOO\",\"attributes\":[]}");
  EXPECT_EQ((read<JsonMethod, Org>(text)), hex64(object_hash(org)));
}

TEST(SharedJson, ReadersAcceptAnyOrderAndNullAndRejectTheRest) {
  const Org org = small_org();
  const std::string reordered =
      R"({"attributes":[{"size":-2,"percent":0.5,"active":true,"amount":2,"quantity":-1,"id":"z"}],)"
      R"("type":"BAR","country":"xy","category":"","name":"a"})";
  EXPECT_EQ((read<JsonMethod, Org>(reordered)), hex64(object_hash(org)));
  Tweet tweet;
  tweet.user.location = std::nullopt;
  std::string text = encoded<JsonMethod>(tweet);
  const std::string with_null = R"({"quoted_status":null,)" + text.substr(1);
  EXPECT_EQ((read<JsonMethod, Tweet>(with_null)), hex64(object_hash(tweet)));
  EXPECT_EQ((read<JsonMethod, Org>(R"({"name":"a","name":"a","category":"","country":"","type":"FOO","attributes":[]})")),
            "JSON: 1 unknown or repeated fields of Org");
  EXPECT_EQ((read<JsonMethod, Org>(R"({"name":"a","category":"","country":"","type":"QUX","attributes":[]})")),
            "JSON: type: expected one of FOO/BAR/BAZ, got \"QUX\"");
  EXPECT_EQ((read<JsonMethod, Org>(R"({"name":"a","category":"","country":"","type":"FOO","attributes":[{"id":"","quantity":128,"amount":0,"active":true,"percent":1.0,"size":0}]})")),
            "JSON: attributes[0].quantity: 128 out of range for i8");
}

TEST(SharedJsonGzip, OneGzipMemberWithTheContractsHeader) {
  const Org org = small_org();
  const std::string member = encoded<JsonGzip>(org);
  const std::string text = encoded<JsonMethod>(org);
  EXPECT_EQ(member.substr(0, 10), std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10));
  EXPECT_EQ(member.substr(member.size() - 4), le32(uint32_t(text.size())));
  EXPECT_EQ((read<JsonGzip, Org>(member)), hex64(object_hash(org)));
  std::string bad_crc = member;
  bad_crc[bad_crc.size() - 8] ^= 1;
  EXPECT_EQ((read<JsonGzip, Org>(bad_crc)), "gzip member: incorrect data check");
}

// ---- msgpack --------------------------------------------------------------------------

TEST(SharedMsgpack, MapsWithFieldNamesAndSmallestEncodings) {
  const std::string bytes = encoded<Msgpack>(small_org());
  const std::string expected =
      std::string("\x85") + "\xa4name" + "\xa1" "a" + "\xa8" "category" + "\xa0" + "\xa7" "country" +
      "\xa2" "xy" + "\xa4" "type" + "\xa3" "BAR" + "\xaa" "attributes" + "\x91" + "\x86" +
      "\xa2" "id" + "\xa1" "z" + "\xa8" "quantity" + "\xff" + "\xa6" "amount" + "\x02" +
      "\xa6" "active" + "\xc3" + "\xa7" "percent" + "\xcb" + std::string("\x3f\xe0\0\0\0\0\0\0", 8) +
      "\xa4" "size" + "\xfe";
  EXPECT_EQ(bytes, expected);
}

TEST(SharedMsgpack, ReadersAcceptAnyIntegerThatFitsAndNil) {
  using namespace std::string_literals;
  // Arrays{strings: [], ints: [5 as int 64, -1 as int 8]} with the keys swapped (msgpack
  // integers are big-endian)
  const std::string bytes = "\x82\xa4ints\x92\xd3\0\0\0\0\0\0\0\x05\xd0\xff\xa7strings\x90"s;
  Arrays arrays;
  arrays.ints = {5, -1};
  EXPECT_EQ((read<Msgpack, Arrays>(bytes)), hex64(object_hash(arrays)));
  const std::string too_big = "\x82\xa4ints\x91\xce\x80\0\0\0\xa7strings\x90"s;
  EXPECT_EQ((read<Msgpack, Arrays>(too_big)), "msgpack: ints[0]: 2147483648 out of range for i32");
  const std::string float32 = "\x82\xa4ints\x90\xa7strings\x91\xca\x3f\x80\0\0"s;
  EXPECT_EQ((read<Msgpack, Arrays>(float32)), "msgpack: strings[0]: expected str, got float 32");
  const std::string unknown = "\x83\xa4ints\x90\xa7strings\x90\xa1x\xc0";
  EXPECT_EQ((read<Msgpack, Arrays>(unknown)), "msgpack: x: unknown field of Arrays");
  const std::string repeated = "\x83\xa4ints\x90\xa7strings\x90\xa4ints\x90";
  EXPECT_EQ((read<Msgpack, Arrays>(repeated)), "msgpack: ints: repeated field");
  Tweet tweet;
  std::string with_nil = encoded<Msgpack>(tweet);
  ASSERT_LT(uint8_t(with_nil[0]), 0x8f);  // a fixmap: the count is in its low bits
  with_nil[0] = char(with_nil[0] + 1);
  with_nil += "\xa4lang\xc0";
  EXPECT_EQ((read<Msgpack, Tweet>(with_nil)), hex64(object_hash(tweet)));
}

// ---- msgpack_arrays -------------------------------------------------------------------

TEST(SharedMsgpackArrays, ArraysOfTheFieldsInOrderWithNilForAbsentOptionals) {
  const std::string expected = std::string("\x95") + "\xa1" "a" + "\xa0" + "\xa2" "xy" + "\xa3" "BAR" +
                               "\x91" + "\x96" + "\xa1" "z" + "\xff" + "\x02" + "\xc3" + "\xcb" +
                               std::string("\x3f\xe0\0\0\0\0\0\0", 8) + "\xfe";
  EXPECT_EQ(encoded<MsgpackArrays>(small_org()), expected);
  Tweet tweet;
  const std::string bytes = encoded<MsgpackArrays>(tweet);
  EXPECT_EQ(bytes.substr(0, 3), std::string("\xdc\0\x1c", 3));  // array 16 of 28 fields
  EXPECT_EQ(bytes.back(), '\xc0');  // display_text_range absent
  EXPECT_EQ((read<MsgpackArrays, Tweet>(bytes)), hex64(object_hash(tweet)));
}

TEST(SharedMsgpackArrays, ReadersRefuseOtherLengthsNilForRequiredAndMaps) {
  using namespace std::string_literals;
  // Arrays{strings: [], ints: [5 as int 64]}
  Arrays arrays;
  arrays.ints = {5};
  EXPECT_EQ((read<MsgpackArrays, Arrays>("\x92\x90\x91\xd3\0\0\0\0\0\0\0\x05"s)), hex64(object_hash(arrays)));
  EXPECT_EQ((read<MsgpackArrays, Arrays>("\x91\x90"s)), "msgpack: expected Arrays array of 2 fields, got 1");
  EXPECT_EQ((read<MsgpackArrays, Arrays>("\x93\x90\x90\x90"s)), "msgpack: expected Arrays array of 2 fields, got 3");
  EXPECT_EQ((read<MsgpackArrays, Arrays>("\x92\xc0\x90"s)), "msgpack: strings: nil for a required field");
  EXPECT_EQ((read<MsgpackArrays, Arrays>("\x82\xa7strings\x90\xa4ints\x90"s)), "msgpack: expected Arrays array, got map");
  EXPECT_EQ((read<MsgpackArrays, Arrays>("\x92\x90\x91\xce\x80\0\0\0"s)), "msgpack: ints[0]: 2147483648 out of range for i32");
  EXPECT_EQ((read<MsgpackArrays, Arrays>("\x92\x91\xa1\xff\x90"s)), "msgpack: strings[0]: string is not valid UTF-8");
  EXPECT_EQ((read<MsgpackArrays, Arrays>("\x92\x90\x90\xc0"s)), "1 trailing bytes after the object");
}

// ---- bson -----------------------------------------------------------------------------

TEST(SharedBson, RealDocumentsWithTheContractsElementTypes) {
  SparseVector sparse;
  sparse.dimension = 3;
  sparse.entries.push_back({1, 0.5});
  const std::string entry = le32(38) + "\x12position" + '\0' + le64(1) + "\x01value" + '\0' + f64(0.5) + '\0';
  const std::string entries = le32(46) + "\x03" "0" + '\0' + entry + '\0';
  const std::string want = le32(79) + "\x12" "dimension" + '\0' + le64(3) + "\x04" "entries" + '\0' + entries + '\0';
  EXPECT_EQ(encoded<Bson>(sparse), want);

  const Org org = small_org();
  const std::string bytes = encoded<Bson>(org);
  EXPECT_NE(bytes.find(std::string("\x10quantity\0", 10) + le32(uint32_t(-1))), std::string::npos);
  EXPECT_NE(bytes.find(std::string("\x02type\0", 6) + le32(4) + "BAR" + '\0'), std::string::npos);
  EXPECT_NE(bytes.find(std::string("\x08" "active\0\x01", 9)), std::string::npos);
}

TEST(SharedBson, ReadersAcceptOtherIntegerWidthsAndNull) {
  // dimension as int32, a null key is not a field of SparseVector
  const std::string entries = le32(5) + '\0';
  const std::string as_int32 = le32(4 + 15 + 14 + 1) + "\x10" "dimension" + '\0' + le32(3) + "\x04" "entries" + '\0' + entries + '\0';
  SparseVector sparse;
  sparse.dimension = 3;
  EXPECT_EQ((read<Bson, SparseVector>(as_int32)), hex64(object_hash(sparse)));
  const std::string with_null = le32(4 + 15 + 14 + 3 + 1) + "\x10" "dimension" + '\0' + le32(3) + "\x04" "entries" + '\0' + entries + "\x0ax" + '\0' + '\0';
  EXPECT_EQ((read<Bson, SparseVector>(with_null)), "BSON: x: unknown field of SparseVector");
  Tweet tweet;
  const std::string plain = encoded<Bson>(tweet);
  std::string null_lang = plain.substr(0, plain.size() - 1) + "\x0alang" + '\0' + '\0';
  const uint32_t length = uint32_t(null_lang.size());
  std::memcpy(null_lang.data(), &length, 4);
  EXPECT_EQ((read<Bson, Tweet>(null_lang)), hex64(object_hash(tweet)));
  Trade trade;
  std::string wide = encoded<Bson>(trade);
  // order_code as an int64 that does not fit an i32
  const std::string i32 = std::string("\x10order_code\0", 12) + le32(0);
  const std::size_t at = wide.find(i32);
  ASSERT_NE(at, std::string::npos);
  wide.replace(at, i32.size(), std::string("\x12order_code\0", 12) + le64(uint64_t(1) << 40));
  const uint32_t wide_length = uint32_t(wide.size());
  std::memcpy(wide.data(), &wide_length, 4);
  EXPECT_EQ((read<Bson, Trade>(wide)), "BSON: order_code: 1099511627776 out of range for i32");
  SparseVector one_entry;
  one_entry.entries.push_back({1, 0.5});
  std::string bad_key = encoded<Bson>(one_entry);
  const std::size_t key = bad_key.find(std::string("\x03" "0\0", 3));
  ASSERT_NE(key, std::string::npos);
  bad_key[key + 1] = '1';
  EXPECT_EQ((read<Bson, SparseVector>(bad_key)), "BSON: entries[0]: array key '1' is not its index");
}

}  // namespace
}  // namespace serbench::test
