// The schema-compiled methods (protobuf, flatbuffers, capnp): the byte contract of
// PROTOCOL.md 9 (one bare message per object), absent vs empty optionals, and damaged bytes
// that become a DecodeError, never a crash. Round trips of the golden vectors at every depth
// and variant are in golden_test.cpp.

#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <random>

#include "methods/capnp.h"
#include "methods/flatbuffers.h"
#include "methods/protobuf.h"
#include "model/order.h"
#include "test_support.h"

namespace serbench::test {
namespace {

template <class Meth, class M>
std::string encoded(const M& value) {
  Bytes out;
  Meth{}.template encode<M>(value, out);
  return {reinterpret_cast<const char*>(out.data()), out.size()};
}

// Bytes copied into 8-aligned storage, as pages hold them.
class Aligned {
 public:
  explicit Aligned(const std::string& s) { b_.append(s.data(), s.size()); }
  std::span<const uint8_t> span() const { return {b_.data(), b_.size()}; }

 private:
  Bytes b_;
};

// The hash a read at `mode` gives, or the DecodeError's text.
struct Outcome {
  std::optional<uint64_t> hash;
  std::string error;
};

template <class Meth, class M>
Outcome read(Meth& method, const std::string& bytes, const ReadMode& mode) {
  const Aligned a(bytes);
  Hasher h;
  try {
    method.template fold<M>(a.span(), mode, h);
  } catch (const DecodeError& e) {
    return {std::nullopt, e.text()};
  }
  return {h.finish(), ""};
}

template <class Meth>
std::vector<ReadMode> modes() {
  std::vector<ReadMode> out;
  for (Depth depth : Meth::depths) {
    for (std::size_t variant = 0; variant <= Meth::variants.size(); ++variant)
      out.push_back({depth, variant});
  }
  return out;
}

template <class Meth>
class SchemaMethod : public ::testing::Test {};
using SchemaMethods = ::testing::Types<Protobuf, FlatBuffers, Capnp>;
TYPED_TEST_SUITE(SchemaMethod, SchemaMethods);

// Every prefix of every tweet: protobuf cannot tell a cut at a field boundary from a shorter
// message, so there the read must at least not claim the original object; a flatbuffer cut
// only in its trailing padding still holds the whole object; a capnp segment table gives
// the exact length, so every cut is an error.
TYPED_TEST(SchemaMethod, TruncatedBytesAreAnErrorOrNotTheObject) {
  TypeParam method;
  for (const Tweet& tweet : golden<Tweet>()) {
    const std::string bytes = encoded<TypeParam>(tweet);
    const uint64_t whole = object_hash(tweet);
    std::size_t errors = 0;
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      for (const ReadMode& mode : modes<TypeParam>()) {
        const Outcome got = read<TypeParam, Tweet>(method, bytes.substr(0, n), mode);
        if (!got.hash) {
          ++errors;
          EXPECT_NE(got.error, "");
        } else if constexpr (std::is_same_v<TypeParam, Protobuf>) {
          EXPECT_NE(*got.hash, whole) << n;
        } else if constexpr (std::is_same_v<TypeParam, FlatBuffers>) {
          EXPECT_EQ(*got.hash, whole) << n;
        } else {
          ADD_FAILURE() << "a capnp message cut to " << n << " bytes was read";
        }
      }
    }
    EXPECT_GT(errors, 0u);
  }
}

TYPED_TEST(SchemaMethod, GarbageIsANamedError) {
  TypeParam method;
  const std::string garbage(64, '\xff');
  for (const ReadMode& mode : modes<TypeParam>()) {
    const Outcome got = read<TypeParam, Customer>(method, garbage, mode);
    ASSERT_FALSE(got.hash);
    EXPECT_NE(got.error.find(std::string(TypeParam::id) == "flatbuffers" ? "Verifier" : "valid"),
              std::string::npos)
        << got.error;
    EXPECT_NE(got.error.find("Customer"), std::string::npos) << got.error;
  }
  EXPECT_THROW(method.template decode<Customer>(Aligned(garbage).span()), DecodeError);
}

// Run under -fsanitize=address,undefined (README) to see that nothing reads out of bounds.
TYPED_TEST(SchemaMethod, RandomDamageNeverCrashes) {
  TypeParam method;
  std::mt19937_64 rng(11);
  for (const Tweet& tweet : golden<Tweet>()) {
    const std::string bytes = encoded<TypeParam>(tweet);
    for (int round = 0; round < 500; ++round) {
      std::string damaged = bytes;
      for (int k = 0; k < 3; ++k) damaged[rng() % damaged.size()] = char(rng());
      for (const ReadMode& mode : modes<TypeParam>()) read<TypeParam, Tweet>(method, damaged, mode);
    }
  }
}

// Absent and present-but-empty optionals stay apart (docs/schemas.md).
TYPED_TEST(SchemaMethod, AbsentAndEmptyOptionalsDiffer) {
  TypeParam method;
  Tweet absent;
  Tweet empty;
  empty.user.location = "";
  empty.user.url = "";
  empty.display_text_range = std::vector<int32_t>{};
  empty.in_reply_to_status_id = 0;
  ASSERT_NE(object_hash(absent), object_hash(empty));
  for (const Tweet* t : {&absent, &empty}) {
    const std::string bytes = encoded<TypeParam>(*t);
    for (const ReadMode& mode : modes<TypeParam>()) {
      const Outcome got = read<TypeParam, Tweet>(method, bytes, mode);
      EXPECT_EQ(got.hash, object_hash(*t)) << got.error;
    }
    EXPECT_TRUE(total_equal(method.template decode<Tweet>(Aligned(bytes).span()), *t));
  }
}

TEST(Protobuf, AnObjectIsTheMessagesWireBytes) {
  Arrays arrays;
  arrays.strings = {"a"};
  arrays.ints = {1, -1};
  // field 1 "a"; field 2 packed: 1, then -1 as a ten-byte varint
  const std::string want("\x0a\x01"
                         "a"
                         "\x12\x0b\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
                         16);
  EXPECT_EQ(encoded<Protobuf>(arrays), want);
}

// Stored objects are at least one byte: an all-default message is its first packable field
// written explicitly empty.
TEST(Protobuf, AnEmptyMessageIsStoredAsOneExplicitDefault) {
  EXPECT_EQ(encoded<Protobuf>(Arrays{}), std::string("\x12\x00", 2));  // ints, packed, empty
  EXPECT_EQ(encoded<Protobuf>(SparseVector{}), std::string("\x08\x00", 2));  // dimension 0
  EXPECT_EQ(encoded<Protobuf>(Org{}), std::string("\x0a\x00", 2));  // name ""
  Protobuf method;
  for (const ReadMode& mode : modes<Protobuf>()) {
    const Outcome got = read<Protobuf, Arrays>(method, encoded<Protobuf>(Arrays{}), mode);
    EXPECT_EQ(got.hash, object_hash(Arrays{})) << got.error;
  }
}

TEST(Protobuf, AnUnknownEnumValueIsAnError) {
  pb::Org org;
  org.set_type(pb::OrgType(7));
  const std::string bytes = org.SerializeAsString();
  Protobuf method;
  for (const ReadMode& mode : modes<Protobuf>()) {
    const Outcome got = read<Protobuf, Org>(method, bytes, mode);
    EXPECT_EQ(got.error, "byte 0: enum ordinal 7 is out of range");
  }
}

TEST(FlatBuffers, AnObjectIsOneFinishedBufferWithoutPrefix) {
  Org org;
  org.name = "n";
  const std::string bytes = encoded<FlatBuffers>(org);
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ASSERT_TRUE(verifier.VerifyBuffer<fb::Org>(nullptr));
  const auto* root = flatbuffers::GetRoot<fb::Org>(bytes.data());
  EXPECT_EQ(root->name()->str(), "n");
  EXPECT_EQ(root->country(), nullptr);  // empty required strings are omitted
}

TEST(FlatBuffers, AMissingRequiredTableIsAnError) {
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fb::CreateLineItem(fbb));  // no part, no supplier
  const std::string bytes(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  FlatBuffers method;
  for (const ReadMode& mode : modes<FlatBuffers>()) {
    const Outcome got = read<FlatBuffers, LineItem>(method, bytes, mode);
    EXPECT_EQ(got.error, "byte 0: required Part is missing");
  }
}

// A tweet whose quoted and retweeted statuses are one table, `levels` deep: a few hundred
// bytes that read as 2^levels tweets, all sharing one user and one entities table.
std::string shared_tweets(int levels) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto user = fb::CreateUser(fbb);
  const auto entities = fb::CreateEntities(fbb);
  flatbuffers::Offset<fb::Tweet> child;
  for (int level = 0; level <= levels; ++level) {
    fb::TweetBuilder b(fbb);
    b.add_user(user);
    b.add_entities(entities);
    if (level > 0) {
      b.add_quoted_status(child);
      b.add_retweeted_status(child);
    }
    child = b.Finish();
  }
  fbb.Finish(child);
  return {reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize()};
}

TEST(FlatBuffers, TablesSharedBetweenFieldsAreRefusedByTheCountOfTables) {
  FlatBuffers method;
  const Outcome honest = read<FlatBuffers, Tweet>(method, shared_tweets(0), {Depth::access, 0});
  EXPECT_EQ(honest.error, "");
  const std::string bomb = shared_tweets(17);
  const std::string limit = std::to_string(fbuf::verifier_options(bomb.size()).max_tables);
  for (const ReadMode& mode : modes<FlatBuffers>()) {
    const Outcome got = read<FlatBuffers, Tweet>(method, bomb, mode);
    EXPECT_NE(got.error.find("(at most " + limit + " tables"), std::string::npos) << got.error;
  }
}

TEST(FlatBuffers, AStringSharedByManyElementsIsRefusedByTheBytesRead) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto text = fbb.CreateString(std::string(8192, 'x'));
  const std::vector<flatbuffers::Offset<flatbuffers::String>> same(8192, text);
  fbb.Finish(fb::CreateArrays(fbb, fbb.CreateVector(same)));
  const std::string bomb(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  FlatBuffers method;
  for (const ReadMode& mode : modes<FlatBuffers>()) {
    const Outcome got = read<FlatBuffers, Arrays>(method, bomb, mode);
    EXPECT_NE(got.error.find("a string of 8192 bytes is more than the"), std::string::npos)
        << got.error;
  }
}

TEST(FlatBuffers, AStringThatIsNotUtf8IsAnError) {
  Org org;
  org.name = "lavender";
  std::string bytes = encoded<FlatBuffers>(org);
  const std::size_t at = bytes.find("lavender") + 3;
  bytes[at] = '\xff';
  FlatBuffers method;
  for (const ReadMode& mode : modes<FlatBuffers>()) {
    const Outcome got = read<FlatBuffers, Org>(method, bytes, mode);
    EXPECT_EQ(got.error, "byte " + std::to_string(at) + ": invalid UTF-8 in a string");
  }
}

// `levels` tweets, each the quoted status of the one before, the innermost with one media
// (its sizes are the deepest tables of a tweet).
Tweet nested(int levels) {
  Tweet root;
  Tweet* last = &root;
  for (int i = 0; i < levels; ++i) {
    last->quoted_status = std::make_unique<Tweet>();
    last = last->quoted_status.get();
  }
  last->entities.media.emplace().emplace_back();
  return root;
}

TEST(FlatBuffers, TweetsNestAsDeepAsTheNestingLimitAndNoDeeper) {
  FlatBuffers method;
  const Tweet deepest = nested(kMaxNesting);
  const Outcome got =
      read<FlatBuffers, Tweet>(method, encoded<FlatBuffers>(deepest), {Depth::access, 0});
  EXPECT_EQ(got.hash, object_hash(deepest)) << got.error;
  const std::string deeper = encoded<FlatBuffers>(nested(kMaxNesting + 1));
  const std::string limit = std::to_string(fbuf::verifier_options(deeper.size()).max_depth);
  for (const ReadMode& mode : modes<FlatBuffers>()) {
    const Outcome refused = read<FlatBuffers, Tweet>(method, deeper, mode);
    EXPECT_NE(refused.error.find("nested " + limit + " deep)"), std::string::npos) << refused.error;
  }
}

TEST(Capnp, AnObjectIsTheStandardUnpackedMessage) {
  Org org;
  org.name = "n";
  org.type = OrgType::BAZ;
  capnp::MallocMessageBuilder message;
  auto root = message.initRoot<cp::Org>();
  root.setName("n");
  root.setType(cp::OrgType::BAZ);
  const auto words = capnp::messageToFlatArray(message);
  const auto flat = words.asChars();
  EXPECT_EQ(encoded<Capnp>(org), std::string(flat.begin(), flat.size()));
}

TEST(Capnp, TrailingBytesAreAnError) {
  const std::string bytes = encoded<Capnp>(golden<Org>()[0]);
  Capnp method;
  const Outcome got = read<Capnp, Org>(method, bytes + std::string(8, '\0'), {Depth::access, 0});
  EXPECT_EQ(got.error, "byte " + std::to_string(bytes.size()) +
                           ": trailing bytes after the capnp message");
  const Outcome odd = read<Capnp, Org>(method, bytes + "x", {Depth::access, 0});
  EXPECT_NE(odd.error.find("8-byte words"), std::string::npos) << odd.error;
}

}  // namespace
}  // namespace serbench::test
