// The models: canonical JSON loading with field paths, the total order, the JSON parser's
// doubles (the checksum needs them bit-exact) and the hasher's strings.

#include <gtest/gtest.h>

#include <charconv>
#include <cstring>
#include <memory>
#include <random>

#include "model/jsonl.h"
#include "model/order.h"
#include "protocol.h"
#include "test_support.h"

namespace serbench::test {
namespace {

// The message of the Failure loading `lines` as model M, with the file name as "F".
template <class M>
std::string load_error(const std::string& lines) {
  Scratch dir;
  const std::string path = dir.path("F");
  write_bytes(path, lines);
  try {
    load_json_lines<M>(path);
  } catch (const Failure& f) {
    EXPECT_EQ(f.kind(), Kind::corrupt_input);
    return f.message().substr(path.size() - 1);
  }
  return "";
}

const std::string kPart =
    R"({"partkey":1,"name":"n","mfgr":"m","brand":"b","type":"t","size":2,"container":"c","retailprice":3,"comment":""})";

std::string with(std::string json, const std::string& from, const std::string& to) {
  json.replace(json.find(from), from.size(), to);
  return json;
}

TEST(Checksum, StringsOfEveryLengthFoldByTheDefinition) {
  for (std::size_t n = 0; n <= 40; ++n) {
    // a heap block of exactly n bytes: a load past either end is an ASan finding
    auto block = std::make_unique<uint8_t[]>(n);
    for (std::size_t i = 0; i < n; ++i) block[i] = uint8_t(0xe1 + 37 * i);  // high bits set
    const std::string_view s(reinterpret_cast<const char*>(block.get()), n);
    uint64_t want = kSeed;
    str_by_definition(want, s);
    Hasher h;
    h.bytes(block.get(), n);
    EXPECT_EQ(h.finish(), want) << n << " bytes";
  }
}

TEST(Jsonl, ErrorsNameTheLineAndTheField) {
  EXPECT_EQ(load_error<Part>(kPart + "\n" + with(kPart, R"("name":"n")", R"("name":7)") + "\n"),
            "F:2: name: expected str, got integer");
  EXPECT_EQ(load_error<Part>(with(kPart, R"("size":2)", R"("size":2147483648)")),
            "F:1: size: 2147483648 out of range for i32");
  EXPECT_EQ(load_error<Part>(with(kPart, R"("size":2)", R"("size":2.5)")),
            "F:1: size: expected i32, got number");
  EXPECT_EQ(load_error<Part>(with(kPart, R"("size":2,)", R"("colour":"red","size":2,)")),
            "F:1: colour: unknown field of Part");
  EXPECT_EQ(load_error<Part>(with(kPart, R"("size":2,)", "")), "F:1: size: missing required field");
  EXPECT_EQ(load_error<Part>("\n\n{\"partkey\":"), "F:3: invalid JSON: Invalid value. (column 12)");
  EXPECT_EQ(load_error<Part>(with(kPart, R"("name":"n")", R"("name":"\udc00")")),
            "F:1: name: string is not valid UTF-8");
  EXPECT_EQ(
      load_error<Org>(R"({"name":"n","category":"c","country":"x","type":"QUX","attributes":[]})"),
      R"(F:1: type: expected one of FOO/BAR/BAZ, got "QUX")");
}

TEST(Jsonl, NestedPathsUseDotsAndIndices) {
  const std::string customer =
      R"({"custkey":1,"name":"","address":"","nationkey":0,"phone":"","acctbal":0,"mktsegment":"","comment":"",)"
      R"("orders":[{"orderkey":1,"custkey":1,"orderstatus":"","totalprice":0,"orderdate":"","orderpriority":"",)"
      R"("clerk":"","shippriority":0,"comment":"","lineitems":[{"orderkey":1,"part":{"partkey":1}}]}]})";
  EXPECT_EQ(load_error<Customer>(customer),
            "F:1: orders[0].lineitems[0].part.name: missing required field");
}

TEST(Jsonl, OptionalsMayBeAbsentOrNullAndBlankLinesAreSkipped) {
  Scratch dir;
  const std::string path = dir.path("f.jsonl");
  write_bytes(path, R"({"url":"u","expanded_url":null,"indices":[1,2]})"
                    "\n\n"
                    R"({"url":"v","display_url":"d","indices":[]})"
                    "\n");
  const auto urls = load_json_lines<UrlT<Native>>(path);
  ASSERT_EQ(urls.size(), 2u);
  EXPECT_FALSE(urls[0].expanded_url.has_value());
  EXPECT_EQ(urls[1].display_url, std::optional<std::string>("d"));
}

TEST(Jsonl, AMissingFileIsNotFound) {
  try {
    load_json_lines<Part>("/nonexistent/serbench/part.jsonl");
    ADD_FAILURE();
  } catch (const Failure& f) {
    EXPECT_EQ(f.kind(), Kind::not_found);
  }
}

TEST(Jsonl, DoublesAreCorrectlyRounded) {
  std::mt19937_64 rng(42);
  json_in::JsonPool pool;
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, 8);
    if (!std::isfinite(v)) continue;
    for (int precision : {0, 17}) {
      char text[64];
      auto end = precision
                     ? std::to_chars(text, text + 63, v, std::chars_format::general, precision).ptr
                     : std::to_chars(text, text + 63, v).ptr;
      *end = '\0';
      const double parsed = json_in::read_f64(pool.parse(text));
      ASSERT_EQ(std::memcmp(&parsed, &v, 8), 0) << text;
    }
  }
}

TEST(Order, KeyFirstThenEveryField) {
  Part a, b;
  a.partkey = 1;
  a.name = "z";
  b.partkey = 2;
  b.name = "a";
  EXPECT_LT(total_compare(a, b), 0);

  EXPECT_LT(compare(-0.0, 0.0), 0);
  EXPECT_FALSE(total_equal(-0.0, 0.0));
  EXPECT_LT(compare(std::optional<int64_t>{}, std::optional<int64_t>{INT64_MIN}), 0);
  EXPECT_LT(compare(std::vector<int32_t>{1, 2}, std::vector<int32_t>{1, 3}), 0);
  EXPECT_GT(compare(std::vector<int32_t>{1, 2}, std::vector<int32_t>{1}), 0);
  EXPECT_GT(compare(std::string("\xef\xbc\xa1"), std::string("\xc3\xa9")), 0);  // UTF-8 bytes
  EXPECT_LT(compare(std::string("Z"), std::string("a")), 0);

  LineItem x, y;
  x.orderkey = y.orderkey = 5;
  x.linenumber = 1;
  y.linenumber = 2;
  x.part.partkey = 9;
  y.part.partkey = 1;
  EXPECT_LT(total_compare(x, y), 0);  // orderkey, then linenumber, before the rest
  EXPECT_GT(compare(x, y), 0);        // in field order the part comes first
}

}  // namespace
}  // namespace serbench::test
