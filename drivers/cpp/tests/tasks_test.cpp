// The tasks of PROTOCOL.md 5.1-5.4 (read_par, sort_dedup, memory, micro) through the
// protocol, checked against the Python reference's golden checksums (vectors/) and against
// generated files whose distinct objects and order are known by construction.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "memstat/heap.h"
#include "registry.h"
#include "serve.h"
#include "test_support.h"

namespace serbench::test {
namespace {

constexpr const char* kReps = R"("cold":true,"warmups":1,"repetitions":2)";

rapidjson::Document answer(const std::string& line) {
  bool shutdown = false;
  rapidjson::Document doc;
  doc.Parse(handle_line(line, shutdown).c_str());
  EXPECT_FALSE(doc.HasParseError()) << line;
  return doc;
}

std::string kind(const rapidjson::Document& d) {
  return d.HasMember("error") ? d["error"]["kind"].GetString() : d["status"].GetString();
}

std::string message(const rapidjson::Document& d) {
  return d.HasMember("error") ? d["error"]["message"].GetString() : "";
}

// A `run` request; `params` are the task's own, without the braces.
std::string run(const std::string& task, const std::string& model, const std::string& method,
                const std::string& depth, const std::string& params,
                const std::string& variant = "") {
  return R"({"id":1,"op":"run","task":")" + task + R"(","model":")" + model +
         R"(","method":")" + method + R"(","depth":")" + depth + R"(","variant":")" + variant +
         R"(","params":{)" + params + "," + kReps + "}}";
}

std::string str(const std::string& key, const std::string& value) {
  return "\"" + key + "\":\"" + value + "\"";
}

std::string num(const std::string& key, uint64_t value) {
  return "\"" + key + "\":" + std::to_string(value);
}

uint64_t hex(const rapidjson::Value& v) { return std::stoull(v.GetString(), nullptr, 16); }

SetChecksum checksum_of(const rapidjson::Document& d) {
  const auto& c = d["result"]["checksum"];
  return {c["count"].GetUint64(), hex(c["sum"])};
}

// The golden vectors of `model` encoded with `method` as the paged file `base`.
void encode_golden(const std::string& model, const std::string& method, const std::string& base,
                   uint32_t page_size) {
  const auto reply = answer(R"({"id":1,"op":"encode","model":")" + model + R"(","method":")" +
                            method + R"(","variant":"","depth":"","params":{)" +
                            str("input", vectors_file(model)) + "," + str("output", base) + "," +
                            num("page_size", page_size) + "}}");
  ASSERT_EQ(kind(reply), "ok") << message(reply);
}

void write_ids(const std::string& path, const std::vector<uint64_t>& ids) {
  write_bytes(path, std::string(reinterpret_cast<const char*>(ids.data()), ids.size() * 8));
}

// ---- read_par ------------------------------------------------------------------------------

TEST(ReadPar, EverySliceOfEveryModelAddsUpToTheGoldenChecksum) {
  for (const auto model : kModelNames) {
    SCOPED_TRACE(std::string(model));
    Scratch dir;
    const std::string base = dir.path("file");
    encode_golden(std::string(model), "handcoded", base, 64);
    const Expected golden = expected(model);
    const uint64_t n = golden.hashes.size();
    for (uint64_t threads : {uint64_t(1), uint64_t(2), n + 3}) {
      const auto seq = answer(run("read_par", std::string(model), "handcoded", "access",
                                  str("input", base) + "," + num("threads", threads) + "," +
                                      str("mode", "seq") + "," + num("start", 0) + "," +
                                      num("n", n)));
      ASSERT_EQ(kind(seq), "ok") << message(seq);
      EXPECT_EQ(checksum_of(seq), golden.set);
      const auto& counters = seq["result"]["counters"];
      EXPECT_EQ(counters["objects"].GetUint64(), n);
      EXPECT_EQ(counters["threads"].GetUint64(), threads);
      const auto& samples = seq["result"]["samples"];
      ASSERT_EQ(samples.Size(), 3u);
      for (const auto& sample : samples.GetArray()) {
        ASSERT_EQ(sample["thread_ns"].Size(), threads);
        for (const auto& t : sample["thread_ns"].GetArray()) {
          EXPECT_LE(t.GetUint64(), sample["total_ns"].GetUint64());
        }
        EXPECT_EQ(sample["total_ns"].GetUint64(),
                  sample["cpu_ns"].GetUint64() + sample["io_ns"].GetUint64());
      }
    }
  }
}

TEST(ReadPar, RandomSlicesCountRepeatsAndRawReadsTheSamePages) {
  Scratch dir;
  const std::string base = dir.path("part");
  encode_golden("part", "inplace", base, 4096);
  const Expected golden = expected("part");
  const std::vector<uint64_t> ids{3, 0, 3, 1, 2, 2, 0};
  write_ids(dir.path("ids"), ids);
  SetChecksum want;
  for (uint64_t id : ids) want.add(golden.hashes[id]);
  const std::string params = str("input", base) + "," + num("threads", 3) + "," +
                             str("mode", "rand") + "," + str("ids", dir.path("ids")) + "," +
                             num("n", ids.size());
  const auto rand = answer(run("read_par", "part", "inplace", "materialize", params, "validate"));
  ASSERT_EQ(kind(rand), "ok") << message(rand);
  EXPECT_EQ(checksum_of(rand), want);

  // raw folds bytes, not fields: the same as read_rand's raw cell over the same ids
  const auto raw_par = answer(run("read_par", "part", "raw", "", params));
  const auto raw_rand = answer(run("read_rand", "part", "raw", "",
                                   str("input", base) + "," + str("ids", dir.path("ids")) + "," +
                                       num("n", ids.size())));
  ASSERT_EQ(kind(raw_par), "ok") << message(raw_par);
  ASSERT_EQ(kind(raw_rand), "ok") << message(raw_rand);
  EXPECT_EQ(checksum_of(raw_par), checksum_of(raw_rand));
}

TEST(ReadPar, ImpossibleParamsAreNamed) {
  Scratch dir;
  const std::string base = dir.path("org");
  encode_golden("org", "handcoded", base, 4096);
  auto ask = [&](const std::string& params) {
    return answer(run("read_par", "org", "handcoded", "access", str("input", base) + "," + params));
  };
  const auto zero = ask(num("threads", 0) + "," + str("mode", "seq") + ",\"start\":0,\"n\":1");
  EXPECT_EQ(kind(zero), "bad_request");
  EXPECT_NE(message(zero).find("params.threads"), std::string::npos);
  const auto mode = ask(num("threads", 2) + "," + str("mode", "zigzag") + ",\"start\":0,\"n\":1");
  EXPECT_EQ(kind(mode), "bad_request");
  EXPECT_NE(message(mode).find("params.mode"), std::string::npos);
  const auto no_start = ask(num("threads", 2) + "," + str("mode", "seq") + ",\"n\":1");
  EXPECT_EQ(kind(no_start), "bad_request");
  EXPECT_NE(message(no_start).find("params.start"), std::string::npos);
  EXPECT_EQ(kind(ask(num("threads", 2) + "," + str("mode", "seq") + ",\"start\":1,\"n\":2")),
            "out_of_range");
}

// ---- sort_dedup ----------------------------------------------------------------------------

// The golden objects r times over (loaded r times: not every model is copyable), in a
// scrambled but fixed order.
template <class M>
std::vector<M> replicated(std::size_t r) {
  std::vector<M> all;
  for (std::size_t i = 0; i < r; ++i) {
    for (M& object : golden<M>()) all.push_back(std::move(object));
  }
  for (std::size_t i = 0; i < all.size(); ++i) std::swap(all[i], all[(i * 7 + 3) % all.size()]);
  return all;
}

template <class M>
std::vector<M> read_back(const std::string& base) {
  IoTimer timer;
  Bytes page;
  PageReader reader(base, Expect{model_name<M>(), std::nullopt, std::nullopt}, timer, page);
  Handcoded handcoded;
  InPlaceMethod inplace;
  std::vector<M> out;
  for (uint64_t n = 0; n < reader.count(); ++n) {
    out.push_back(reader.header().method == "inplace"
                      ? inplace.decode<M>(reader.object(n))
                      : handcoded.decode<M>(reader.object(n)));
  }
  return out;
}

std::string sort_params(const std::string& input, const std::string& output, uint64_t budget,
                        uint32_t page_size) {
  return str("input", input) + "," + str("output", output) + "," + num("budget_bytes", budget) +
         "," + num("page_size", page_size);
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The golden objects three times over, sorted with a budget of a few objects: the output is
// the golden set (the Python reference's hashes), strictly increasing, in both writing
// methods, with several runs and merge passes.
template <class M>
void sort_golden(const std::string& method_id) {
  SCOPED_TRACE(std::string(model_name<M>()) + " " + method_id);
  Scratch dir;
  const std::string input = dir.path("input");
  const std::vector<M> objects = replicated<M>(3);
  IoTimer timer;
  if (method_id == "inplace") {
    InPlaceMethod method;
    write_file(method, objects, input, 256, timer);
  } else {
    Handcoded method;
    write_file(method, objects, input, 256, timer);
  }
  const std::string out = dir.path("out");
  std::filesystem::create_directory(out);
  const auto reply = answer(run("sort_dedup", std::string(model_name<M>()), method_id,
                                "materialize", sort_params(input, out, 3 * sizeof(M), 128)));
  ASSERT_EQ(kind(reply), "ok") << message(reply);
  const Expected golden = expected(model_name<M>());
  const auto& counters = reply["result"]["counters"];
  EXPECT_EQ(counters["input_objects"].GetUint64(), objects.size());
  EXPECT_EQ(counters["output_objects"].GetUint64(), golden.hashes.size());
  // every object is held at sizeof(M) at least: at most 3 objects a run
  EXPECT_GE(counters["runs"].GetUint64(), (objects.size() + 2) / 3);
  EXPECT_GE(counters["merge_passes"].GetUint64(), 1u);
  EXPECT_GT(counters["run_bytes"].GetUint64(), counters["output_bytes"].GetUint64());
  EXPECT_EQ(files_in(out), (std::vector<std::string>{"sorted.index", "sorted.pages"}));

  const std::vector<M> sorted = read_back<M>(out + "/sorted");
  SetChecksum set;
  Hasher sequence;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(total_compare(sorted[i - 1], sorted[i]), 0) << "object " << i;
    }
    set.add(object_hash(sorted[i]));
    sequence.word(object_hash(sorted[i]));
  }
  EXPECT_EQ(set, golden.set);
  EXPECT_EQ(checksum_of(reply), (SetChecksum{sorted.size(), sequence.finish()}));
  for (const auto& sample : reply["result"]["samples"].GetArray()) {
    EXPECT_LE(sample["phase1_ns"].GetUint64() + sample["phase2_ns"].GetUint64(),
              sample["total_ns"].GetUint64());
  }
}

TEST(SortDedup, GoldenObjectsOfEveryModelComeOutDistinctAndInOrder) {
  for (const char* method : {"handcoded", "inplace"}) {
    for_each_type(ModelTypes{}, [&](auto t) { sort_golden<typename decltype(t)::type>(method); });
  }
}

// A trade whose fields all follow from k: distinct k, distinct trades, ordered by k.
Trade trade(int64_t k) {
  Trade t;
  t.source_id = k;
  t.special = k % 3 == 0;
  t.order_code = int32_t(k * 7);
  t.priority = int32_t(k % 5);
  for (int i = 0; i < 10; ++i) {
    t.prices.push_back(double(k) + i / 10.0);
    t.quantities.push_back(k * 10 + i);
  }
  return t;
}

// `objects` trades whose source ids are a scrambled walk over 0..distinct-1, written one at a
// time (the test's own memory stays flat).
void write_trades(const std::string& base, uint64_t objects, uint64_t distinct,
                  uint32_t page_size) {
  Handcoded method;
  IoTimer timer;
  PageWriter writer(base, page_size, timer);
  for (uint64_t i = 0; i < objects; ++i) {
    const Trade t = trade(int64_t(i * 7919 % distinct));
    writer.push(Handcoded::alignment, [&](Bytes& out) { method.encode<Trade>(t, out); });
  }
  writer.finish("trade", "handcoded", "cpp");
}

// The sequence checksum of trades 0..distinct-1 in order.
uint64_t trades_sequence(uint64_t distinct) {
  Hasher h;
  for (uint64_t k = 0; k < distinct; ++k) h.word(object_hash(trade(int64_t(k))));
  return h.finish();
}

TEST(SortDedup, TooManyRunsAreMergedInSeveralPasses) {
  Scratch dir;
  const uint64_t objects = 6000, distinct = 1000;  // 7919 is prime: every k comes 6 times
  write_trades(dir.path("input"), objects, distinct, 4096);
  std::filesystem::create_directory(dir.path("out"));
  // 16 KiB and 4 KiB pages: fan-in 3; about 80 trades a run
  const auto reply = answer(run("sort_dedup", "trade", "handcoded", "materialize",
                                sort_params(dir.path("input"), dir.path("out"), 16384, 4096)));
  ASSERT_EQ(kind(reply), "ok") << message(reply);
  const auto& counters = reply["result"]["counters"];
  const uint64_t runs = counters["runs"].GetUint64();
  EXPECT_GT(runs, 9u);
  uint64_t passes = 0;
  for (uint64_t left = runs; left > 3; left = (left + 2) / 3) ++passes;
  EXPECT_EQ(counters["merge_passes"].GetUint64(), passes + 1);
  EXPECT_EQ(checksum_of(reply), (SetChecksum{distinct, trades_sequence(distinct)}));
  EXPECT_EQ(files_in(dir.path("out")), (std::vector<std::string>{"sorted.index", "sorted.pages"}));
}

TEST(SortDedup, ImpossibleParamsAreNamed) {
  Scratch dir;
  write_trades(dir.path("input"), 10, 5, 4096);
  std::filesystem::create_directory(dir.path("out"));
  auto ask = [&](const std::string& params) {
    return answer(run("sort_dedup", "trade", "handcoded", "materialize", params));
  };
  const auto zero = ask(sort_params(dir.path("input"), dir.path("out"), 0, 4096));
  EXPECT_EQ(kind(zero), "bad_request");
  EXPECT_NE(message(zero).find("params.budget_bytes"), std::string::npos);
  const auto no_page = ask(str("input", dir.path("input")) + "," + str("output", dir.path("out")) +
                           "," + num("budget_bytes", 4096));
  EXPECT_EQ(kind(no_page), "bad_request");
  EXPECT_NE(message(no_page).find("params.page_size"), std::string::npos);
  const auto full = ask(sort_params(dir.path("input"), dir.path(""), 4096, 4096));
  EXPECT_EQ(kind(full), "bad_request");
  EXPECT_NE(message(full).find("params.output"), std::string::npos);
  EXPECT_EQ(kind(ask(sort_params(dir.path("input"), dir.path("none"), 4096, 4096))), "not_found");
  EXPECT_EQ(kind(answer(run("sort_dedup", "trade", "handcoded", "access",
                            sort_params(dir.path("input"), dir.path("out"), 4096, 4096)))),
            "unsupported");
  EXPECT_EQ(kind(answer(run("sort_dedup", "trade", "raw", "",
                            sort_params(dir.path("input"), dir.path("out"), 4096, 4096)))),
            "unsupported");
  EXPECT_EQ(kind(answer(run("sort_dedup", "trade", "inplace", "materialize",
                            sort_params(dir.path("input"), dir.path("out"), 4096, 4096)))),
            "wrong_file");
}

// ---- memory --------------------------------------------------------------------------------

TEST(Memory, TheCountingAllocatorSeesWhatIsLive) {
  const int64_t before = thread_heap_bytes();
  auto* block = new std::vector<char>(1000);
  const int64_t held = thread_heap_bytes() - before;
  EXPECT_GE(held, int64_t(sizeof(std::vector<char>) + 1000));
  EXPECT_LE(held, int64_t(sizeof(std::vector<char>) + 1000 + 64));
  delete block;
  EXPECT_EQ(thread_heap_bytes(), before);
}

TEST(Memory, RetainedBytesAreTheObjectsAndTheirHeap) {
  Scratch dir;
  const uint64_t n = 500;
  write_trades(dir.path("input"), n, n, 4096);
  const auto reply = answer(run("memory", "trade", "handcoded", "materialize",
                                str("input", dir.path("input")) + "," + num("n", n)));
  ASSERT_EQ(kind(reply), "ok") << message(reply);
  SetChecksum want;
  for (uint64_t k = 0; k < n; ++k) want.add(object_hash(trade(int64_t(k * 7919 % n))));
  EXPECT_EQ(checksum_of(reply), want);
  const auto& counters = reply["result"]["counters"];
  EXPECT_STREQ(counters["accounting"].GetString(), "counting_allocator");
  // each trade: its slot in the vector and two lists of 10 eight-byte values, each list's
  // block rounded up by malloc to at most 16 bytes more
  const uint64_t retained = counters["retained_bytes"].GetUint64();
  EXPECT_GE(retained, n * (sizeof(Trade) + 2 * 80));
  EXPECT_LE(retained, n * (sizeof(Trade) + 2 * (80 + 16)) + 64);
  EXPECT_DOUBLE_EQ(counters["retained_bytes_per_object"].GetDouble(), double(retained) / n);
  EXPECT_GE(counters["peak_rss_bytes"].GetUint64(), counters["rss_start_bytes"].GetUint64());
  for (const auto& sample : reply["result"]["samples"].GetArray()) {
    EXPECT_EQ(sample["total_ns"].GetUint64(),
              sample["cpu_ns"].GetUint64() + sample["io_ns"].GetUint64());
  }
}

TEST(Memory, GoldenObjectsAndImpossibleParams) {
  Scratch dir;
  const std::string base = dir.path("tweet");
  encode_golden("tweet", "inplace", base, 4096);
  const Expected golden = expected("tweet");
  auto ask = [&](const std::string& depth, uint64_t n) {
    return answer(run("memory", "tweet", "inplace", depth, str("input", base) + "," + num("n", n),
                      "validate"));
  };
  const auto all = ask("materialize", golden.hashes.size());
  ASSERT_EQ(kind(all), "ok") << message(all);
  EXPECT_EQ(checksum_of(all), golden.set);
  const auto zero = ask("materialize", 0);
  EXPECT_EQ(kind(zero), "bad_request");
  EXPECT_NE(message(zero).find("params.n"), std::string::npos);
  EXPECT_EQ(kind(ask("materialize", golden.hashes.size() + 1)), "out_of_range");
  EXPECT_EQ(kind(ask("access", 1)), "unsupported");
}

// ---- micro ---------------------------------------------------------------------------------

TEST(Micro, BothBuffersOfEveryModelDecodeTheGoldenChecksum) {
  for (const auto model : kModelNames) {
    const Expected golden = expected(model);
    const uint64_t n = golden.hashes.size();
    for (const char* method : {"handcoded", "inplace"}) {
      uint64_t encoded_bytes = 0;
      for (const char* buffer : {"fresh", "reused"}) {
        for (const char* depth : {"materialize", "access"}) {
          SCOPED_TRACE(std::string(model) + " " + method + " " + buffer + " " + depth);
          const auto reply =
              answer(run("micro", std::string(model), method, depth,
                         str("input", vectors_file(model)) + "," + num("n", n) + "," +
                             num("iterations", 3) + "," + str("buffer", buffer)));
          ASSERT_EQ(kind(reply), "ok") << message(reply);
          EXPECT_EQ(checksum_of(reply), golden.set);
          const auto& counters = reply["result"]["counters"];
          EXPECT_EQ(counters["iterations"].GetUint64(), 3u);
          EXPECT_STREQ(counters["buffer"].GetString(), buffer);
          if (encoded_bytes == 0) encoded_bytes = counters["encoded_bytes"].GetUint64();
          EXPECT_EQ(counters["encoded_bytes"].GetUint64(), encoded_bytes);
          for (const auto& sample : reply["result"]["samples"].GetArray()) {
            EXPECT_EQ(sample["io_ns"].GetUint64(), 0u);
            EXPECT_EQ(sample["cpu_ns"].GetUint64(), sample["total_ns"].GetUint64());
            EXPECT_LE(sample["encode_ns"].GetUint64() + sample["decode_ns"].GetUint64(),
                      sample["total_ns"].GetUint64());
          }
        }
      }
    }
  }
}

TEST(Micro, EncodedBytesAreWhatWriteStores) {
  Scratch dir;
  const auto write = answer(run("write", "customer", "handcoded", "",
                                str("input", vectors_file("customer")) + "," +
                                    str("output", dir.path("c")) + "," + num("page_size", 4096)));
  ASSERT_EQ(kind(write), "ok") << message(write);
  const auto& written = write["result"]["counters"];
  const auto micro = answer(run("micro", "customer", "handcoded", "access",
                                str("input", vectors_file("customer")) + "," +
                                    num("n", written["objects"].GetUint64()) + "," +
                                    num("iterations", 1) + "," + str("buffer", "reused")));
  ASSERT_EQ(kind(micro), "ok") << message(micro);
  EXPECT_DOUBLE_EQ(double(micro["result"]["counters"]["encoded_bytes"].GetUint64()),
                   written["avg_object_bytes"].GetDouble() * written["objects"].GetDouble());
}

TEST(Micro, ImpossibleParamsAreNamed) {
  auto ask = [&](const std::string& method, const std::string& depth, uint64_t n,
                 uint64_t iterations, const std::string& buffer) {
    return answer(run("micro", "org", method, depth,
                      str("input", vectors_file("org")) + "," + num("n", n) + "," +
                          num("iterations", iterations) + "," + str("buffer", buffer)));
  };
  const auto buffer = ask("handcoded", "access", 1, 1, "recycled");
  EXPECT_EQ(kind(buffer), "bad_request");
  EXPECT_NE(message(buffer).find("params.buffer"), std::string::npos);
  const auto iterations = ask("handcoded", "access", 1, 0, "fresh");
  EXPECT_EQ(kind(iterations), "bad_request");
  EXPECT_NE(message(iterations).find("params.iterations"), std::string::npos);
  EXPECT_EQ(kind(ask("handcoded", "access", 3, 1, "fresh")), "out_of_range");
  EXPECT_EQ(kind(ask("raw", "", 1, 1, "fresh")), "unsupported");
}

TEST(Micro, WarmUpsGoOnForWarmupMsAndAreNumberedOn) {
  const auto started = std::chrono::steady_clock::now();
  const auto reply = answer(run("micro", "trade", "handcoded", "materialize",
                                str("input", vectors_file("trade")) + "," + num("n", 1) + "," +
                                    num("iterations", 1) + "," + str("buffer", "reused") + "," +
                                    num("warmup_ms", 50)));
  ASSERT_EQ(kind(reply), "ok") << message(reply);
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(50));
  std::vector<uint64_t> warm, measured;
  for (const auto& s : reply["result"]["samples"].GetArray()) {
    (s["warmup"].GetBool() ? warm : measured).push_back(s["rep"].GetUint64());
  }
  ASSERT_GT(warm.size(), 1u);  // one asked (kReps), more to fill the 50 ms
  for (size_t i = 0; i < warm.size(); ++i) EXPECT_EQ(warm[i], i);
  EXPECT_EQ(measured, (std::vector<uint64_t>{0, 1}));
}

// ---- sizes and info ------------------------------------------------------------------------

TEST(Tasks, SizesIsTheHarnessesAndInfoListsTheRest) {
  EXPECT_EQ(kind(answer(run("sizes", "part", "handcoded", "", "\"x\":0"))), "unsupported");
  const auto info = answer(R"({"id":1,"op":"info"})");
  std::vector<std::string> listed;
  for (const auto& t : info["result"]["tasks"].GetArray()) listed.push_back(t.GetString());
  EXPECT_EQ(listed, (std::vector<std::string>{"write", "read_seq", "read_rand", "read_par",
                                              "sort_dedup", "memory", "micro"}));
}

}  // namespace
}  // namespace serbench::test
