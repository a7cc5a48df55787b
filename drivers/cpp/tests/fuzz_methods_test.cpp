// The fuzz target `methods` (fuzz/targets/methods.cpp) and its seeds: every reader's
// encodings of the golden objects, [reader index][model byte][object], the reader index in
// for_each_reader's order. Damaged seeds must be DecodeErrors, never a crash (under the
// sanitizers, as scripts/test builds this).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "registry.h"
#include "test_support.h"

namespace serbench::test {
namespace {

namespace fs = std::filesystem;

struct Seed {
  std::string name;
  std::string bytes;
};

// Calls f.template operator()<Meth, M>(seed, golden object) for every seed.
template <class F>
void for_each_seed(F&& f) {
  uint8_t reader = 0;
  for_each_reader([&](auto method) {
    using Meth = typename decltype(method)::type;
    for_each_type(BuiltinModelTypes{}, [&](auto model) {
      using M = typename decltype(model)::type;
      const std::vector<M> values = golden<M>();
      for (std::size_t i = 0; i < values.size(); ++i) {
        Bytes b;
        Meth{}.encode(values[i], b);
        Seed seed{std::string(Meth::id) + "-" + std::string(model_name<M>()) + "-" +
                      std::to_string(i),
                  std::string{char(reader), char(Model<M>::id)}};
        seed.bytes.append(reinterpret_cast<const char*>(b.data()), b.size());
        f.template operator()<Meth, M>(seed, values[i]);
      }
    });
    ++reader;
  });
}

// Decodes and folds (every depth, the validating variant) what follows a seed's two bytes,
// as the target does; a DecodeError is an answer, anything else fails the test. Returns the
// checksums of decode and of each depth, or none when any of them refused the bytes.
template <class Meth, class M>
std::optional<std::vector<uint64_t>> read_as(std::string_view seed) {
  Bytes object;
  if (seed.size() > 2) {
    object.append(reinterpret_cast<const uint8_t*>(seed.data()) + 2, seed.size() - 2);
  }
  const std::span<const uint8_t> bytes(object.data(), object.size());
  Meth method;
  std::vector<uint64_t> sums;
  try {
    sums.push_back(object_hash(method.template decode<M>(bytes)));
    for (Depth depth : Meth::depths) {
      Hasher h;
      method.template fold<M>(bytes, ReadMode{depth, validating_variant<Meth>()}, h);
      sums.push_back(h.finish());
    }
  } catch (const DecodeError&) {
    return std::nullopt;
  }
  return sums;
}

// After a change of an encoding: SERBENCH_BLESS_SEEDS=1 rewrites them, and the test, having
// checked nothing, is skipped (a failure under CI=true); the next run checks them.
TEST(FuzzMethods, CommittedSeedsAreCurrent) {
  std::map<std::string, std::string> seeds;
  for_each_seed([&]<class Meth, class M>(const Seed& seed, const M&) {
    seeds[seed.name] = seed.bytes;
  });
  const fs::path dir = fs::path(SERBENCH_FUZZ_SEEDS_DIR) / "methods";
  if (std::getenv("SERBENCH_BLESS_SEEDS") != nullptr) {
    rewrite_seeds(dir, seeds);
    SERBENCH_REQUIRE(false, "SERBENCH_BLESS_SEEDS: the seeds were rewritten, not checked");
  }
  EXPECT_EQ(read_seeds(dir), seeds) << "stale seeds; rerun this test with SERBENCH_BLESS_SEEDS=1";
}

TEST(FuzzMethods, EverySeedReadsBackWhole) {
  for_each_seed([&]<class Meth, class M>(const Seed& seed, const M& value) {
    const auto sums = read_as<Meth, M>(seed.bytes);
    ASSERT_TRUE(sums.has_value()) << seed.name;
    for (uint64_t sum : *sums) EXPECT_EQ(sum, object_hash(value)) << seed.name;
  });
}

TEST(FuzzMethods, CutAndFlippedSeedsAreErrorsNotCrashes) {
  for_each_seed([&]<class Meth, class M>(const Seed& seed, const M&) {
    const std::string& s = seed.bytes;
    for (std::size_t cut : {std::size_t(2), std::size_t(3), std::size_t(7), s.size() / 2 + 1,
                            s.size() - 1}) {
      read_as<Meth, M>(std::string_view(s).substr(0, cut));
    }
    std::string flipped = s;
    for (std::size_t i = 2; i < flipped.size(); i += 7) flipped[i] ^= 0x5a;
    read_as<Meth, M>(flipped);
  });
}

// Found by the cut seeds: libbson aborted (a failed precondition) on the null pointer of an
// empty object instead of the reader refusing it.
TEST(FuzzMethods, BsonRefusesNoBytes) {
  Bson method;
  EXPECT_THROW(method.decode<Org>({}), DecodeError);
  for (Depth depth : Bson::depths) {
    Hasher h;
    EXPECT_THROW(method.fold<Org>({}, ReadMode{depth}, h), DecodeError);
  }
}

}  // namespace
}  // namespace serbench::test
