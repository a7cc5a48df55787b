// The fuzz targets' seed corpora (seeds/<target>/), generated from the golden vectors: the
// committed files are what the encoders write today (SERBENCH_BLESS_SEEDS=1 rewrites them),
// and every seed reads back whole through the harness.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "../tests/test_support.h"
#include "harness.h"

namespace serbench::test {
namespace {

namespace fs = std::filesystem;

// target -> file name -> bytes
using Corpora = std::map<std::string, std::map<std::string, std::string>>;

template <class Meth, class M>
std::string encoded(const M& object) {
  Bytes out;
  Meth().template encode<M>(object, out);
  return std::string(reinterpret_cast<const char*>(out.data()), out.size());
}

Corpora seeds() {
  Corpora out;
  for_each_type(ModelTypes{}, [&](auto model) {
    using M = typename decltype(model)::type;
    const std::string name(model_name<M>());
    const char m = char(Model<M>::id);
    const auto objects = golden<M>();
    for (std::size_t n = 0; n < objects.size(); ++n) {
      const std::string file = name + "-" + std::to_string(n);
      out["handcoded"][file] = m + encoded<Handcoded>(objects[n]);
      out["inplace"][file] = m + encoded<InPlaceMethod>(objects[n]);
    }
    // pages of 64 bytes: objects share pages, move to the next one, and span several
    Scratch scratch;
    const std::string base = scratch.path("seed");
    IoTimer timer;
    Handcoded method;
    write_file<M>(method, objects, base, 64, timer);
    const std::string index = read_file(index_path(base)), pages = read_file(data_path(base));
    out["paged"][name] = fuzz::join_paged(uint8_t(m), index, pages);
    out["paged"][name + "-raw"] = fuzz::join_paged(uint8_t(m) | fuzz::kRawBit, index, pages);
  });
  return out;
}

std::map<std::string, std::string> committed(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(dir))
    files[entry.path().filename().string()] = read_file(entry.path().string());
  return files;
}

std::span<const uint8_t> span_of(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(FuzzSeeds, CommittedSeedsAreCurrent) {
  const bool bless = std::getenv("SERBENCH_BLESS_SEEDS") != nullptr;
  for (const auto& [target, files] : seeds()) {
    const fs::path dir = fs::path(SERBENCH_FUZZ_SEEDS_DIR) / target;
    if (bless) {
      fs::remove_all(dir);
      fs::create_directories(dir);
      for (const auto& [name, bytes] : files) write_bytes((dir / name).string(), bytes);
    }
    EXPECT_EQ(committed(dir), files) << target << " seeds differ: bless them";
  }
}

TEST(FuzzSeeds, EverySeedReadsBackWhole) {
  const Corpora corpora = seeds();
  for (const auto& [name, bytes] : corpora.at("handcoded"))
    EXPECT_TRUE(fuzz::decoder<Handcoded>(span_of(bytes), 0, true)) << name;
  for (const auto& [name, bytes] : corpora.at("inplace")) {
    EXPECT_TRUE(fuzz::decoder<InPlaceMethod>(span_of(bytes), InPlaceMethod::kValidate, false))
        << name;
  }
  for (const auto& [name, bytes] : corpora.at("paged")) {
    const auto input = fuzz::split_paged(span_of(bytes));
    ASSERT_TRUE(input) << name;
    const auto read = fuzz::paged(span_of(bytes));
    ASSERT_TRUE(read) << name;
    const Expected want = expected(model_name(fuzz::model_of(input->flags)));
    EXPECT_EQ(read->checksum.count, want.set.count) << name;
    if (!(input->flags & fuzz::kRawBit)) EXPECT_EQ(read->checksum, want.set) << name;
  }
}

TEST(FuzzSeeds, DamagedSeedsAreErrorsNotCrashes) {
  for (const auto& [target, files] : seeds()) {
    for (const auto& [name, bytes] : files) {
      std::string flipped = bytes;
      for (std::size_t i = 0; i < flipped.size(); i += 7) flipped[i] ^= 0x5a;
      // the harness aborts on a broken promise; a cut object is always an error
      for (const std::string& input : {bytes.substr(0, bytes.size() / 2), flipped}) {
        const bool cut = input.size() < bytes.size();
        if (target == "handcoded") {
          const bool ok = fuzz::decoder<Handcoded>(span_of(input), 0, true);
          EXPECT_FALSE(cut && ok) << name;
        } else if (target == "inplace") {
          const bool ok =
              fuzz::decoder<InPlaceMethod>(span_of(input), InPlaceMethod::kValidate, false);
          EXPECT_FALSE(cut && ok) << name;
        } else {
          EXPECT_FALSE(fuzz::paged(span_of(input))) << name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace serbench::test
