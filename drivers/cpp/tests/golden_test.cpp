// Golden vectors: every method reproduces, at every depth and variant, the expected hash of
// every object of vectors/<model>.jsonl, in memory and through paged files.

#include <gtest/gtest.h>

#include "model/order.h"
#include "registry.h"
#include "test_support.h"

namespace serbench::test {
namespace {

template <class Meth, class F>
void for_each_mode(F&& f) {
  for (Depth depth : Meth::depths) {
    for (std::size_t variant = 0; variant <= Meth::variants.size(); ++variant)
      f(ReadMode{depth, variant});
  }
}

template <class Meth>
std::string describe(std::string_view model, const ReadMode& mode) {
  std::string variant = mode.variant ? std::string(Meth::variants[mode.variant - 1]) : "";
  return std::string(Meth::id) + " " + std::string(model) + " depth " +
         std::string(depth_id(mode.depth)) + (variant.empty() ? "" : " variant " + variant);
}

// Calls f.template operator()<Meth, M>() for every writing method and every model.
template <class F>
void for_each_cell(F&& f) {
  for_each_type(Methods{}, [&](auto method) {
    using Meth = typename decltype(method)::type;
    if constexpr (Meth::writes) {
      for_each_type(BuiltinModelTypes{}, [&](auto model) {
        using M = typename decltype(model)::type;
        f.template operator()<Meth, M>();
      });
    }
  });
}

TEST(Golden, NativeObjectsHashAsTheVectorsSay) {
  for_each_type(BuiltinModelTypes{}, [](auto model) {
    using M = typename decltype(model)::type;
    const auto objects = golden<M>();
    const Expected want = expected(model_name<M>());
    ASSERT_EQ(objects.size(), want.hashes.size()) << model_name<M>();
    SetChecksum set;
    for (std::size_t i = 0; i < objects.size(); ++i) {
      EXPECT_EQ(object_hash(objects[i]), want.hashes[i]) << model_name<M>() << " line " << i + 1;
      set.add(object_hash(objects[i]));
    }
    EXPECT_EQ(set, want.set) << model_name<M>();
  });
}

TEST(Golden, EveryMethodEveryDepthInMemory) {
  for_each_cell([]<class Meth, class M>() {
    const auto objects = golden<M>();
    const Expected want = expected(model_name<M>());
    Meth method;
    Bytes buf;
    for (std::size_t i = 0; i < objects.size(); ++i) {
      buf.clear();
      method.template encode<M>(objects[i], buf);
      const std::span<const uint8_t> bytes(buf.data(), buf.size());
      for_each_mode<Meth>([&](const ReadMode& mode) {
        Hasher h;
        method.template fold<M>(bytes, mode, h);
        EXPECT_EQ(h.finish(), want.hashes[i])
            << describe<Meth>(model_name<M>(), mode) << " line " << i + 1;
      });
      EXPECT_TRUE(total_equal(method.template decode<M>(bytes), objects[i]))
          << Meth::id << " " << model_name<M>() << " line " << i + 1;
    }
  });
}

TEST(Golden, EveryMethodEveryDepthThroughPagedFiles) {
  for_each_cell([]<class Meth, class M>() {
    const auto objects = golden<M>();
    const Expected want = expected(model_name<M>());
    // pages of 64 bytes make most vectors span several pages
    for (uint32_t page_size : {64u, 100u, 262144u}) {
      Scratch dir;
      const std::string base = dir.path("golden");
      Meth method;
      IoTimer timer;
      Bytes page;
      const WriteCounters written = write_file(method, objects, base, page_size, timer, kTestRun);
      EXPECT_EQ(written.objects, objects.size());
      for_each_mode<Meth>([&](const ReadMode& mode) {
        const ReadOutcome read = read_objects<M>(method, {mode.depth, mode.variant, kTestRun}, base,
                                                 Selection{}, page_size, timer, page);
        EXPECT_EQ(read.checksum, want.set)
            << describe<Meth>(model_name<M>(), mode) << " pages of " << page_size;
        EXPECT_EQ(read.writer, "cpp");
      });
      Raw raw;
      const ReadOutcome bytes =
          read_objects<M>(raw, ReadMode{}, base, Selection{}, page_size, timer, page);
      EXPECT_EQ(bytes.checksum.count, objects.size());
    }
  });
}

}  // namespace
}  // namespace serbench::test
