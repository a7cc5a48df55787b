// The request loop: request lines in, response lines out; every failure is a response.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sstream>

#include "model/utf8.h"
#include "serve.h"
#include "test_support.h"

namespace serbench::test {
namespace {

// Values are compared through their getters: RapidJSON 1.1's operator== recurses forever
// under C++20's reversed comparison candidates.
rapidjson::Document answer(const std::string& line) {
  bool shutdown = false;
  rapidjson::Document doc;
  doc.Parse(handle_line(line, shutdown).c_str());
  EXPECT_FALSE(doc.HasParseError()) << line;
  return doc;
}

std::string status(const rapidjson::Document& d) { return d["status"].GetString(); }
std::string kind(const rapidjson::Document& d) {
  return d.HasMember("error") ? d["error"]["kind"].GetString() : status(d);
}

std::string request(const std::string& op, const std::string& fields) {
  return R"({"id":1,"op":")" + op + "\"" + (fields.empty() ? "" : "," + fields) + "}";
}

// A library quoting a damaged field name puts raw bytes in a reason: the response holds
// them escaped, one line of valid UTF-8 (text that is valid stays as it is).
TEST(Protocol, ARawByteInAReasonIsEscaped) {
  rapidjson::Document doc;
  const std::string response =
      failure_response("1", corrupt("unknown field `a\x01\xff\nb` of Caf\xc3\xa9"));
  doc.Parse(response.c_str());
  ASSERT_FALSE(doc.HasParseError()) << response;
  EXPECT_STREQ(doc["error"]["message"].GetString(),
               "unknown field `a\\x01\\xff\\x0ab` of Caf\xc3\xa9");
  EXPECT_TRUE(valid_utf8(response.data(), response.size()));
}

TEST(Protocol, EveryFailureIsAResponse) {
  EXPECT_EQ(kind(answer("not json")), "bad_request");
  EXPECT_TRUE(answer("not json")["id"].IsNull());
  EXPECT_EQ(kind(answer(R"({"id":"x"})")), "bad_request");
  EXPECT_STREQ(answer(R"({"id":"x"})")["id"].GetString(), "x");
  EXPECT_EQ(kind(answer(request("fly", ""))), "bad_request");
  EXPECT_EQ(kind(answer(request("load", R"("model":"planet","params":{"input":"x"})"))),
            "bad_request");
  EXPECT_EQ(
      kind(answer(request(
          "scan", R"("model":"part","method":"pigeon","depth":"access","params":{"input":"x"})"))),
      "bad_request");
  EXPECT_EQ(
      kind(answer(request(
          "scan", R"("model":"part","method":"handcoded","depth":"deep","params":{"input":"x"})"))),
      "bad_request");
  EXPECT_EQ(
      kind(answer(request(
          "scan", R"("model":"part","method":"handcoded","depth":"key","params":{"input":"x"})"))),
      "unsupported");
  EXPECT_EQ(
      kind(answer(request(
          "scan",
          R"("model":"part","method":"inplace","depth":"access","variant":"turbo","params":{"input":"x"})"))),
      "unsupported");
  EXPECT_EQ(
      kind(answer(request(
          "encode",
          R"("model":"part","method":"raw","depth":"","params":{"input":"x","output":"y"})"))),
      "unsupported");
  EXPECT_EQ(
      kind(answer(request(
          "scan",
          R"("model":"part","method":"handcoded","depth":"access","params":{"input":"/nonexistent/x"})"))),
      "not_found");
  EXPECT_EQ(kind(answer(request(
                "scan", R"("model":"part","method":"handcoded","depth":"access","params":{})"))),
            "bad_request");
  EXPECT_EQ(
      kind(answer(request(
          "run",
          R"("task":"sort_dedup","model":"part","method":"handcoded","depth":"access","params":{})"))),
      "unsupported");
  EXPECT_EQ(
      kind(answer(request(
          "run",
          R"("task":"juggle","model":"part","method":"handcoded","depth":"access","params":{})"))),
      "bad_request");
}

TEST(Protocol, ResponsesAreValidUtf8EvenWhenTheInputIsNot) {
  bool shutdown = false;
  const std::string bad_request = handle_line("{\"id\":4,\"op\":\"\xff\"}", shutdown);
  EXPECT_TRUE(valid_utf8(bad_request.data(), bad_request.size())) << bad_request;
  Scratch dir;
  write_bytes(dir.path("bad.jsonl"), "{\"\xff\xfe\":1}\n");
  const std::string bad_data = handle_line(
      request("load", R"("model":"part","params":{"input":")" + dir.path("bad.jsonl") + "\"}"),
      shutdown);
  EXPECT_TRUE(valid_utf8(bad_data.data(), bad_data.size())) << bad_data;
  // the bytes named as they are (not as U+FFFD, which hid which bytes they were)
  EXPECT_NE(bad_data.find("\\\\xff\\\\xfe: unknown field of Part"), std::string::npos)
      << bad_data;
}

TEST(Protocol, InfoListsTheCapabilityMatrix) {
  const auto info = answer(request("info", ""));
  ASSERT_EQ(status(info), "ok");
  const auto& result = info["result"];
  EXPECT_STREQ(result["language"].GetString(), "cpp");
  EXPECT_EQ(result["models"].Size(), kModelCount);
  EXPECT_TRUE(result["methods"].HasMember("handcoded"));
  EXPECT_STREQ(result["methods"]["inplace"]["variants"][0].GetString(), "validate");
  EXPECT_EQ(result["methods"]["raw"]["depths"].Size(), 0u);
}

// The versions themselves are checked against the installed packages by
// tests/test_cpp_libraries.py, apart from the macros that give them here.
TEST(Protocol, InfoNamesEveryMethodsLibrariesAmongTheLinkedOnes) {
  const auto info = answer(request("info", ""));
  const auto& result = info["result"];
  for (const auto& method : result["methods"].GetObject()) {
    const auto& libraries = method.value["libraries"];
    ASSERT_TRUE(libraries.IsObject()) << method.name.GetString() << " names no libraries";
    for (const auto& library : libraries.GetObject()) {
      EXPECT_TRUE(result["libraries"].HasMember(library.name.GetString()))
          << method.name.GetString() << ": " << library.name.GetString();
    }
  }
  const auto& json_gzip = result["methods"]["json_gzip"]["libraries"];
  EXPECT_TRUE(json_gzip.HasMember("rapidjson") && json_gzip.HasMember("zlib"));
  EXPECT_EQ(result["methods"]["handcoded"]["libraries"].MemberCount(), 0u);
}

TEST(Protocol, WriteThenReadThroughRun) {
  Scratch dir;
  const std::string input = vectors_file("org");
  const std::string base = dir.path("org");
  const std::string reps =
      R"("cold":true,"warmups":1,"repetitions":2,"run_stamp":"5e4b0102030405060708090a0b0c0d0e")";
  auto write = answer(request(
      "run", R"("task":"write","model":"org","method":"inplace","depth":"","variant":"validate",)"
             R"("params":{"input":")" +
                 input + R"(","output":")" + base + R"(","page_size":4096,)" + reps + "}"));
  ASSERT_EQ(status(write), "ok");
  EXPECT_EQ(write["result"]["samples"].Size(), 3u);
  EXPECT_EQ(write["result"]["counters"]["objects"].GetUint64(), 2u);
  EXPECT_STREQ(write["result"]["checksum"]["sum"].GetString(), "52c436535f3b1be6");

  auto seq = answer(request(
      "run", R"("task":"read_seq","model":"org","method":"inplace","depth":"access","variant":"",)"
             R"("params":{"input":")" +
                 base + R"(","start":1,"n":1,)" + reps + "}"));
  ASSERT_EQ(status(seq), "ok");
  EXPECT_STREQ(seq["result"]["checksum"]["sum"].GetString(), "6e07e67a3a0f3297");
  EXPECT_STREQ(seq["result"]["eviction"].GetString(), "fadvise_dontneed");
  const auto& sample = seq["result"]["samples"][2];
  EXPECT_EQ(sample["rep"].GetUint64(), 1u);
  EXPECT_FALSE(sample["warmup"].GetBool());
  EXPECT_EQ(sample["total_ns"].GetUint64(),
            sample["cpu_ns"].GetUint64() + sample["io_ns"].GetUint64());

  const std::string ids = dir.path("ids");
  const uint64_t list[] = {1, 0, 1};
  write_bytes(ids, std::string(reinterpret_cast<const char*>(list), sizeof list));
  auto rand = answer(request(
      "run",
      R"("task":"read_rand","model":"org","method":"inplace","depth":"materialize","variant":"validate",)"
      R"("params":{"input":")" +
          base + R"(","ids":")" + ids + R"(","n":3,)" + reps + "}"));
  ASSERT_EQ(status(rand), "ok");
  EXPECT_EQ(rand["result"]["checksum"]["count"].GetUint64(), 3u);

  auto raw = answer(
      request("run", R"("task":"read_seq","model":"org","method":"raw","depth":"","variant":"",)"
                     R"("params":{"input":")" +
                         base + R"(","start":0,"n":2,)" + reps + "}"));
  ASSERT_EQ(status(raw), "ok");

  auto beyond = answer(request(
      "run", R"("task":"read_seq","model":"org","method":"inplace","depth":"access","variant":"",)"
             R"("params":{"input":")" +
                 base + R"(","start":1,"n":2,)" + reps + "}"));
  EXPECT_EQ(kind(beyond), "out_of_range");
  auto wrong = answer(request(
      "run",
      R"("task":"read_seq","model":"org","method":"handcoded","depth":"access","variant":"",)"
      R"("params":{"input":")" +
          base + R"(","start":0,"n":1,)" + reps + "}"));
  EXPECT_EQ(kind(wrong), "wrong_file");

  // the trusting read takes only its own run's files; a stamp is 32 lowercase hex digits
  auto read_seq_in_run = [&](const std::string& stamp) {
    return answer(request(
        "run", R"("task":"read_seq","model":"org","method":"inplace","depth":"access","variant":"",)"
               R"("params":{"input":")" +
                   base + R"(","start":0,"n":1,"cold":false,"warmups":0,"repetitions":1,)" +
                   stamp + "}"));
  };
  EXPECT_EQ(kind(read_seq_in_run(R"("run_stamp":"5e4b0102030405060708090a0b0c0d0f")")),
            "wrong_file");
  EXPECT_EQ(kind(read_seq_in_run(R"("run_stamp":"5E4B0102030405060708090A0B0C0D0E")")),
            "bad_request");
  EXPECT_EQ(kind(read_seq_in_run(R"("run_stamp":"5e4b")")), "bad_request");
}

TEST(Protocol, TheLoopAnswersEveryLineAndStopsAtShutdown) {
  std::istringstream in("not json\n\n" + request("info", "") + "\n" + request("shutdown", "") +
                        "\n" + request("info", "") + "\n");
  std::ostringstream out;
  EXPECT_EQ(serve(in, out), 0);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<std::string> responses;
  while (std::getline(lines, line)) responses.push_back(line);
  ASSERT_EQ(responses.size(), 3u);
  EXPECT_EQ(responses[2], R"({"id":1,"status":"ok","result":{}})");
}

}  // namespace
}  // namespace serbench::test
