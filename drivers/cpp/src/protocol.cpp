#include "protocol.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>

#include "model/utf8.h"

namespace serbench {

namespace {

constexpr std::array<std::string_view, 8> kKindIds{
    "unsupported",   "bad_request",  "not_found",         "wrong_file",
    "corrupt_input", "out_of_range", "checksum_mismatch", "internal"};

constexpr std::array<std::string_view, 4> kDepthIds{"", "materialize", "access", "key"};

// Iterative parsing: a hostile line cannot exhaust the stack; strings must be UTF-8.
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag |
                                 rapidjson::kParseFullPrecisionFlag |
                                 rapidjson::kParseValidateEncodingFlag;

std::string to_json_text(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

rapidjson::Document parse_json(std::string_view text, std::string_view what) {
  rapidjson::Document doc;
  doc.Parse<kParseFlags>(text.data(), text.size());
  if (doc.HasParseError()) {
    throw bad_request(std::string(what) +
                      " is not JSON: " + rapidjson::GetParseError_En(doc.GetParseError()) +
                      " (offset " + std::to_string(doc.GetErrorOffset()) + ")");
  }
  return doc;
}

std::optional<std::string> string_member(const rapidjson::Value& request, const char* key) {
  auto it = request.FindMember(key);
  if (it == request.MemberEnd() || it->value.IsNull()) return std::nullopt;
  if (!it->value.IsString()) throw bad_request(std::string(key) + " must be a string");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

std::string_view kind_id(Kind kind) { return kKindIds[std::size_t(kind)]; }

std::string_view depth_id(Depth depth) { return kDepthIds[std::size_t(depth)]; }

Depth parse_depth(std::string_view id) {
  for (std::size_t i = 0; i < kDepthIds.size(); ++i) {
    if (kDepthIds[i] == id) return Depth(i);
  }
  throw bad_request("unknown depth '" + std::string(id) +
                    "'; known depths: materialize, access, key");
}

// ---- params -----------------------------------------------------------------------------

struct Params::Doc {
  rapidjson::Document doc;
};

Params::Params() : doc_(std::make_unique<Doc>()) { doc_->doc.SetObject(); }
Params::~Params() = default;
Params::Params(Params&&) noexcept = default;
Params& Params::operator=(Params&&) noexcept = default;

Params Params::parse(std::string_view object_json) {
  Params params;
  params.doc_->doc = parse_json(object_json, "params");
  if (!params.doc_->doc.IsObject()) throw bad_request("params must be an object");
  return params;
}

namespace {

const rapidjson::Value& get(const rapidjson::Document& doc, std::string_view key) {
  auto it = doc.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
  if (it == doc.MemberEnd()) throw bad_request("params." + std::string(key) + " is required");
  return it->value;
}

Failure wrong(std::string_view key, std::string_view what, const rapidjson::Value& value) {
  return bad_request("params." + std::string(key) + " must be " + std::string(what) + ", got " +
                     to_json_text(value));
}

// The value of one lowercase hex digit; -1 for anything else.
int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

bool Params::has(std::string_view key) const {
  return doc_->doc.HasMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
}

std::string Params::path(std::string_view key) const {
  const auto& v = get(doc_->doc, key);
  if (!v.IsString() || v.GetStringLength() == 0) throw wrong(key, "a non-empty path", v);
  return {v.GetString(), v.GetStringLength()};
}

std::string Params::string(std::string_view key) const {
  const auto& v = get(doc_->doc, key);
  if (!v.IsString()) throw wrong(key, "a string", v);
  return {v.GetString(), v.GetStringLength()};
}

uint64_t Params::u64(std::string_view key) const {
  const auto& v = get(doc_->doc, key);
  if (!v.IsUint64()) throw wrong(key, "a non-negative integer", v);
  return v.GetUint64();
}

uint64_t Params::u64_or(std::string_view key, uint64_t fallback) const {
  return has(key) ? u64(key) : fallback;
}

bool Params::boolean(std::string_view key) const {
  const auto& v = get(doc_->doc, key);
  if (!v.IsBool()) throw wrong(key, "true or false", v);
  return v.GetBool();
}

std::optional<uint32_t> Params::page_size() const {
  if (!has("page_size")) return std::nullopt;
  const auto& v = get(doc_->doc, "page_size");
  if (!v.IsUint64() || v.GetUint64() < 64 || v.GetUint64() > UINT32_MAX) {
    throw wrong("page_size", "between 64 and 2^32 - 1", v);
  }
  return uint32_t(v.GetUint64());
}

RunStamp Params::run_stamp() const {
  RunStamp stamp{};
  if (!has("run_stamp")) return stamp;
  const auto& v = get(doc_->doc, "run_stamp");
  if (!v.IsString() || v.GetStringLength() != 2 * stamp.size()) {
    throw wrong("run_stamp", "32 lowercase hex digits", v);
  }
  const char* hex = v.GetString();
  for (std::size_t i = 0; i < stamp.size(); ++i) {
    const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw wrong("run_stamp", "32 lowercase hex digits", v);
    stamp[i] = uint8_t(hi << 4 | lo);
  }
  return stamp;
}

// ---- requests and responses ---------------------------------------------------------------

void parse_request(std::string_view line, Request& req) {
  rapidjson::Document doc = parse_json(line, "the request");
  if (!doc.IsObject()) throw bad_request("the request is not a JSON object");
  // looked up through a const view: a mutable MemberIterator's != is ambiguous in C++20
  // (clang's -Wambiguous-reversed-operator on rapidjson 1.1)
  const rapidjson::Value& root = doc;
  if (auto it = root.FindMember("id"); it != root.MemberEnd()) {
    req.id_json = to_json_text(it->value);
  }
  auto op = string_member(doc, "op");
  if (!op) throw bad_request("the request has no op");
  req.op = *op;
  req.model = string_member(doc, "model");
  req.method = string_member(doc, "method");
  req.depth = string_member(doc, "depth");
  req.variant = string_member(doc, "variant");
  req.task = string_member(doc, "task");
  if (auto it = root.FindMember("params"); it != root.MemberEnd() && !it->value.IsNull()) {
    if (!it->value.IsObject()) throw bad_request("params must be an object");
    req.params = Params::parse(to_json_text(it->value));
  }
}

std::string ok_response(const std::string& id_json, const Json& result) {
  return Json::object({{"id", Json::raw(id_json)}, {"status", "ok"}, {"result", result}}).dump();
}

namespace {

void escape_byte(std::string& out, uint8_t byte) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 15];
}

// A message as one readable line of valid UTF-8: a library quoting a damaged field name
// puts its raw bytes in the reason; control characters and bytes that are not UTF-8 are
// written as \xNN.
std::string readable(const std::string& message) {
  const auto* p = reinterpret_cast<const uint8_t*>(message.data());
  const std::size_t n = message.size();
  std::string out;
  out.reserve(n);
  for (std::size_t i = 0; i < n;) {
    const std::size_t valid_end = i + utf8_check(p + i, n - i);
    for (; i < valid_end; ++i) {
      if (p[i] < 0x20 || p[i] == 0x7f) {
        escape_byte(out, p[i]);
      } else {
        out += char(p[i]);
      }
    }
    if (i < n) escape_byte(out, p[i++]);
  }
  return out;
}

}  // namespace

std::string failure_response(const std::string& id_json, const Failure& failure) {
  if (failure.kind() == Kind::unsupported) {
    return Json::object({{"id", Json::raw(id_json)},
                         {"status", "unsupported"},
                         {"message", readable(failure.message())}})
        .dump();
  }
  return Json::object({{"id", Json::raw(id_json)},
                       {"status", "error"},
                       {"error", Json::object({{"kind", kind_id(failure.kind())},
                                               {"message", readable(failure.message())}})}})
      .dump();
}

}  // namespace serbench
