// The tasks of PROTOCOL.md 5.1-5.4 (read_par, sort_dedup, memory, micro) and the raw
// method's write and sort floors (5, 5.2.1) through the protocol, checked against the Python
// reference's golden checksums (vectors/) and against generated files whose distinct objects
// and order are known by construction.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstring>
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
  for (const auto model : builtin_model_names()) {
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
    for_each_type(BuiltinModelTypes{},
                  [&](auto t) { sort_golden<typename decltype(t)::type>(method); });
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
  EXPECT_EQ(kind(answer(run("sort_dedup", "trade", "inplace", "materialize",
                            sort_params(dir.path("input"), dir.path("out"), 4096, 4096)))),
            "wrong_file");
}

// ---- the raw floors: write and sort_dedup with raw ------------------------------------------

// Where the paged file `base` places its objects, and their bytes.
struct Stored {
  std::vector<Entry> entries;
  std::vector<std::string> objects;
};

Stored stored(const std::string& model, const std::string& base) {
  IoTimer timer;
  Bytes page;
  PageReader reader(base, Expect{model, std::nullopt, std::nullopt}, timer, page);
  Stored out;
  for (uint64_t n = 0; n < reader.count(); ++n) {
    out.entries.push_back(reader.entry(n));
    const auto bytes = reader.object(n);
    out.objects.emplace_back(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  return out;
}

// The raw read's checksum (read_seq with raw) of every object of the paged file `base`.
SetChecksum raw_read(const std::string& model, const std::string& base) {
  IoTimer timer;
  Bytes page;
  const uint64_t count =
      PageReader(base, Expect{model, std::nullopt, std::nullopt}, timer, page).count();
  const auto reply = answer(run("read_seq", model, "raw", "",
                                str("input", base) + "," + num("start", 0) + "," +
                                    num("n", count)));
  EXPECT_EQ(kind(reply), "ok") << message(reply);
  return checksum_of(reply);
}

std::string header_of(const std::string& base) {
  return read_file(index_path(base)).substr(0, kHeaderBytes);
}

TEST(WriteFloor, CopiesAnotherMethodsFileByteForByte) {
  // handcoded and json pack objects back to back, inplace and capnp 8-byte aligned with zero
  // padding between; at 64-byte pages the golden objects span pages and move to the next one
  for (const char* method : {"handcoded", "json", "inplace", "capnp"}) {
    for (const auto model_id : builtin_model_names()) {
      for (uint32_t page_size : {64u, 4096u}) {
        const std::string model(model_id);
        SCOPED_TRACE(std::string(method) + " " + model + " " + std::to_string(page_size));
        Scratch dir;
        const std::string source = dir.path("source"), copy = dir.path("copy");
        encode_golden(model, method, source, page_size);
        const auto reply = answer(run("write", model, "raw", "",
                                      str("input", source) + "," + str("output", copy) + "," +
                                          num("page_size", page_size)));
        ASSERT_EQ(kind(reply), "ok") << message(reply);
        // the data byte for byte; the index too (the same entries, model and method; both
        // written by this driver without a run stamp)
        const std::string data = read_file(data_path(source));
        EXPECT_EQ(read_file(data_path(copy)), data);
        EXPECT_EQ(read_file(index_path(copy)), read_file(index_path(source)));
        const uint64_t n = expected(model).hashes.size();
        EXPECT_EQ(checksum_of(reply), raw_read(model, source));
        EXPECT_EQ(checksum_of(reply).count, n);
        const auto& counters = reply["result"]["counters"];
        EXPECT_EQ(counters["objects"].GetUint64(), n);
        EXPECT_EQ(counters["bytes"].GetUint64(), data.size());
        EXPECT_EQ(counters["pages"].GetUint64(), (data.size() + page_size - 1) / page_size);
      }
    }
  }
}

TEST(WriteFloor, TheCopyIsThisDriversWithTheRequestsRunStampAndTheFilesPages) {
  Scratch dir;
  const std::string source = dir.path("source"), copy = dir.path("copy");
  {
    // another writer's file, whose pages no object starts on stay zero pages
    IoTimer timer;
    PageWriter writer(source, 64, timer);
    const std::string a(40, 'a'), b(100, 'b'), c(10, 'c');
    auto at = [](uint64_t page, uint32_t offset, const std::string& s) {
      return std::pair{Entry{page, offset, uint32_t(s.size())},
                       std::span(reinterpret_cast<const uint8_t*>(s.data()), s.size())};
    };
    for (const auto& [entry, bytes] : {at(0, 3, a), at(2, 0, b), at(5, 8, c), at(5, 30, c)}) {
      writer.place_at(entry, bytes);
    }
    writer.finish("part", "handcoded", "java");
    EXPECT_THROW(
        {
          PageWriter out_of_order(dir.path("x"), 64, timer);
          out_of_order.place_at(at(1, 0, a).first, at(1, 0, a).second);
          out_of_order.place_at(at(0, 50, c).first, at(0, 50, c).second);
        },
        Failure);
  }
  const std::string data = read_file(data_path(source));
  ASSERT_EQ(data.size(), 5 * 64 + 40u);
  EXPECT_EQ(data.substr(0, 3), std::string(3, '\0'));
  EXPECT_EQ(data.substr(43, 85), std::string(85, '\0'));  // the rest of page 0 and page 1
  EXPECT_EQ(data.substr(228, 100), std::string(100, '\0'));  // after b, page 4, before c
  const std::string stamp = "00112233445566778899aabbccddeeff";
  const auto reply = answer(run("write", "part", "raw", "",
                                str("input", source) + "," + str("output", copy) + "," +
                                    num("page_size", 64) + "," + str("run_stamp", stamp)));
  ASSERT_EQ(kind(reply), "ok") << message(reply);
  EXPECT_EQ(read_file(data_path(copy)), data);
  const std::string from = read_file(index_path(source)), to = read_file(index_path(copy));
  EXPECT_EQ(to.substr(kHeaderBytes), from.substr(kHeaderBytes));
  EXPECT_EQ(to.substr(0, 96), from.substr(0, 96));  // magic .. method
  EXPECT_EQ(to.substr(96, 8), std::string("cpp\0\0\0\0\0", 8));
  EXPECT_EQ(to.substr(104, 16), std::string("\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb"
                                            "\xcc\xdd\xee\xff",
                                            16));
  EXPECT_EQ(checksum_of(reply), raw_read("part", source));
  EXPECT_EQ(checksum_of(reply).count, 4u);
  // the file's page size is the request's, or the request is for another file
  EXPECT_EQ(kind(answer(run("write", "part", "raw", "",
                            str("input", source) + "," + str("output", copy) + "," +
                                num("page_size", 128)))),
            "wrong_file");
  EXPECT_EQ(kind(answer(run("write", "org", "raw", "",
                            str("input", source) + "," + str("output", copy) + "," +
                                num("page_size", 64)))),
            "wrong_file");
}

// What the sort floor does with objects of these lengths (PROTOCOL.md 5.2.1), worked out
// from the text: the input objects' numbers in the order `sorted` must hold them, the
// phase-1 runs and the merge passes.
struct FloorPlan {
  std::vector<uint64_t> order;
  uint64_t runs = 0, passes = 0;
};

FloorPlan floor_plan(const std::vector<Entry>& entries, uint64_t budget, uint64_t fan_in) {
  std::vector<std::vector<uint64_t>> runs;
  uint64_t held = 0;
  for (uint64_t n = 0; n < entries.size(); ++n) {
    if (runs.empty() || held + entries[n].length > budget) {
      runs.emplace_back();
      held = 0;
    }
    runs.back().push_back(n);
    held += entries[n].length;
  }
  // the i-th object of every run that has one, for i = 0, 1, ...
  auto interleave = [](std::span<const std::vector<uint64_t>> group) {
    std::size_t longest = 0;
    for (const auto& run : group) longest = std::max(longest, run.size());
    std::vector<uint64_t> out;
    for (std::size_t i = 0; i < longest; ++i) {
      for (const auto& run : group) {
        if (i < run.size()) out.push_back(run[i]);
      }
    }
    return out;
  };
  FloorPlan plan;
  plan.runs = runs.size();
  while (runs.size() > fan_in) {
    std::vector<std::vector<uint64_t>> merged;
    for (std::size_t i = 0; i < runs.size(); i += fan_in) {
      const std::size_t k = std::min<std::size_t>(fan_in, runs.size() - i);
      merged.push_back(interleave(std::span(runs).subspan(i, k)));
    }
    runs = std::move(merged);
    ++plan.passes;
  }
  plan.order = interleave(runs);
  ++plan.passes;
  return plan;
}

// Sorts `input` (of `model`) with raw at `budget` and `page_size` and checks `sorted` against
// the plan worked out from the text: every input object (its bytes, duplicates kept) in
// the interleaved order, the runs, the passes, the counters and phase times.
rapidjson::Document sort_floor(const std::string& model, const std::string& input,
                               const std::string& out, uint64_t budget, uint32_t page_size) {
  auto reply =
      answer(run("sort_dedup", model, "raw", "", sort_params(input, out, budget, page_size)));
  EXPECT_EQ(kind(reply), "ok") << message(reply);
  if (kind(reply) != "ok") return reply;
  const Stored source = stored(model, input);
  const uint64_t n = source.entries.size();
  const FloorPlan plan =
      floor_plan(source.entries, budget, std::max<uint64_t>(2, budget / page_size - 1));

  // `sorted` holds exactly the input's objects: as a set by the raw read, and in the order
  // of the text
  const SetChecksum want = raw_read(model, input);
  EXPECT_EQ(want.count, n);
  EXPECT_EQ(checksum_of(reply), want);
  EXPECT_EQ(raw_read(model, out + "/sorted"), want);
  const Stored sorted = stored(model, out + "/sorted");
  EXPECT_EQ(sorted.objects.size(), plan.order.size());
  const std::size_t both = std::min(sorted.objects.size(), plan.order.size());
  std::size_t in_place = 0;
  while (in_place < both && sorted.objects[in_place] == source.objects[plan.order[in_place]]) {
    ++in_place;
  }
  EXPECT_EQ(in_place, both) << "sorted's object " << in_place << " is not input object "
                            << plan.order[in_place];
  // runs deleted; `sorted` a file of the input's method, by this driver, at the request's pages
  EXPECT_EQ(files_in(out), (std::vector<std::string>{"sorted.index", "sorted.pages"}));
  const std::string from = header_of(input), to = header_of(out + "/sorted");
  EXPECT_EQ(to.substr(48, 48), from.substr(48, 48));  // model, method
  EXPECT_EQ(to.substr(96, 8), std::string("cpp\0\0\0\0\0", 8));
  uint32_t sorted_page_size;
  std::memcpy(&sorted_page_size, to.data() + 12, 4);
  EXPECT_EQ(sorted_page_size, page_size);

  const auto& counters = reply["result"]["counters"];
  EXPECT_EQ(counters["input_objects"].GetUint64(), n);
  EXPECT_EQ(counters["output_objects"].GetUint64(), n);
  EXPECT_EQ(counters["runs"].GetUint64(), plan.runs);
  EXPECT_EQ(counters["merge_passes"].GetUint64(), plan.passes);
  EXPECT_EQ(counters["budget_bytes"].GetUint64(), budget);
  EXPECT_EQ(counters["output_bytes"].GetUint64(), read_file(data_path(out + "/sorted")).size());
  EXPECT_TRUE(counters.HasMember("peak_rss_bytes") && counters.HasMember("rss_start_bytes"));
  for (const auto& sample : reply["result"]["samples"].GetArray()) {
    EXPECT_LE(sample["phase1_ns"].GetUint64() + sample["phase2_ns"].GetUint64(),
              sample["total_ns"].GetUint64());
    EXPECT_EQ(sample["runs"].GetUint64(), plan.runs);
  }
  return reply;
}

TEST(SortFloor, RunsInInputOrderAreInterleavedInOnePass) {
  Scratch dir;
  // 50 distinct trades 6 times over: the floor drops none of the duplicates
  write_trades(dir.path("input"), 300, 50, 4096);
  std::filesystem::create_directory(dir.path("out"));
  // 8 KiB and 256-byte pages: fan-in 31; about 45 trades a run
  const auto reply = sort_floor("trade", dir.path("input"), dir.path("out"), 8192, 256);
  ASSERT_EQ(kind(reply), "ok");
  const auto& counters = reply["result"]["counters"];
  EXPECT_GT(counters["runs"].GetUint64(), 1u);
  EXPECT_EQ(counters["merge_passes"].GetUint64(), 1u);
}

TEST(SortFloor, TooManyRunsAreMergedInSeveralPasses) {
  Scratch dir;
  write_trades(dir.path("input"), 6000, 1000, 4096);
  std::filesystem::create_directory(dir.path("out"));
  // 16 KiB and 4 KiB pages: fan-in 3; about 85 trades a run
  const auto reply = sort_floor("trade", dir.path("input"), dir.path("out"), 16384, 4096);
  ASSERT_EQ(kind(reply), "ok");
  const auto& counters = reply["result"]["counters"];
  EXPECT_GT(counters["runs"].GetUint64(), 9u);
  EXPECT_GT(counters["merge_passes"].GetUint64(), 2u);
  EXPECT_GT(counters["run_bytes"].GetUint64(), 2 * counters["output_bytes"].GetUint64());
}

TEST(SortFloor, AlignedMethodsRunsAndOutputStayFilesOfTheirMethod) {
  for (const auto model_id : builtin_model_names()) {
    const std::string model(model_id);
    SCOPED_TRACE(model);
    Scratch dir;
    encode_golden(model, "inplace", dir.path("input"), 4096);
    std::filesystem::create_directory(dir.path("out"));
    // 384-byte budget and 128-byte pages: fan-in 2, a golden object or two a run
    const auto reply = sort_floor(model, dir.path("input"), dir.path("out"), 384, 128);
    ASSERT_EQ(kind(reply), "ok");
    // inplace objects stay 8-byte aligned: its validating read takes `sorted`
    for (const Entry& e : stored(model, dir.path("out") + "/sorted").entries) {
      EXPECT_EQ(e.offset % 8, 0u);
    }
    const Expected golden = expected(model);
    const auto read = answer(run("read_seq", model, "inplace", "access",
                                 str("input", dir.path("out") + "/sorted") + "," +
                                     num("start", 0) + "," + num("n", golden.hashes.size()),
                                 "validate"));
    ASSERT_EQ(kind(read), "ok") << message(read);
    EXPECT_EQ(checksum_of(read), golden.set);
  }
}

TEST(SortFloor, AMethodThisDriverLacksIsPackedBackToBack) {
  Scratch dir;
  {
    // a file of a method only another driver has, its objects of every length 1 .. 40
    IoTimer timer;
    PageWriter writer(dir.path("input"), 4096, timer);
    for (std::size_t length = 1; length <= 40; ++length) {
      writer.push(8, [&](Bytes& out) {
        for (std::size_t i = 0; i < length; ++i) out.push(uint8_t('a' + length % 26));
      });
    }
    writer.finish("part", "rkyv", "rust");
  }
  std::filesystem::create_directory(dir.path("out"));
  // 256-byte budget and 64-byte pages: fan-in 3
  const auto reply = sort_floor("part", dir.path("input"), dir.path("out"), 256, 64);
  ASSERT_EQ(kind(reply), "ok");
  EXPECT_GT(reply["result"]["counters"]["merge_passes"].GetUint64(), 1u);
  const Stored sorted = stored("part", dir.path("out") + "/sorted");
  uint64_t packed = 0;
  for (std::size_t k = 1; k < sorted.entries.size(); ++k) {
    const Entry &a = sorted.entries[k - 1], &b = sorted.entries[k];
    if (a.page != b.page) continue;
    EXPECT_EQ(b.offset, a.offset + a.length) << "object " << k;
    ++packed;
  }
  EXPECT_GT(packed, 5u);
}

TEST(SortFloor, ImpossibleParamsAreNamed) {
  Scratch dir;
  write_trades(dir.path("input"), 10, 5, 4096);
  std::filesystem::create_directory(dir.path("out"));
  auto ask = [&](const std::string& params) {
    return answer(run("sort_dedup", "trade", "raw", "", params));
  };
  const auto zero = ask(sort_params(dir.path("input"), dir.path("out"), 0, 4096));
  EXPECT_EQ(kind(zero), "bad_request");
  EXPECT_NE(message(zero).find("params.budget_bytes"), std::string::npos);
  const auto full = ask(sort_params(dir.path("input"), dir.path(""), 4096, 4096));
  EXPECT_EQ(kind(full), "bad_request");
  EXPECT_NE(message(full).find("params.output"), std::string::npos);
  EXPECT_EQ(kind(answer(run("sort_dedup", "trade", "raw", "materialize",
                            sort_params(dir.path("input"), dir.path("out"), 4096, 4096)))),
            "unsupported");
  EXPECT_EQ(kind(answer(run("sort_dedup", "org", "raw", "",
                            sort_params(dir.path("input"), dir.path("out"), 4096, 4096)))),
            "wrong_file");
}

TEST(Floors, InfoListsTheWriteAndSortFloorsUnderRawOnly) {
  const auto info = answer(R"({"id":1,"op":"info"})");
  for (const auto& [name, spec] : info["result"]["methods"].GetObject()) {
    SCOPED_TRACE(name.GetString());
    if (std::string(name.GetString()) != "raw") {
      EXPECT_FALSE(spec.HasMember("floors"));
      continue;
    }
    ASSERT_TRUE(spec.HasMember("floors"));
    std::vector<std::string> floors;
    for (const auto& f : spec["floors"].GetArray()) floors.push_back(f.GetString());
    EXPECT_EQ(floors, (std::vector<std::string>{"write", "sort_dedup"}));
  }
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
  for (const auto model : builtin_model_names()) {
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
  const auto reply = answer(run("micro", "trade", "handcoded", "materialize",
                                str("input", vectors_file("trade")) + "," + num("n", 1) + "," +
                                    num("iterations", 1) + "," + str("buffer", "reused") + "," +
                                    num("warmup_ms", 50)));
  ASSERT_EQ(kind(reply), "ok") << message(reply);
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
