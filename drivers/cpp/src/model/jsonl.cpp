#include "model/jsonl.h"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "protocol.h"

namespace serbench {

void DataError::prefix(std::string_view segment) {
  std::string joined(segment);
  if (!path_.empty()) {
    if (path_.front() != '[') joined += '.';
    joined += path_;
  }
  path_ = std::move(joined);
  update();
}

namespace json_in {

namespace {

// Iterative: no recursion on hostile nesting; full precision: correctly rounded doubles, so
// checksums match the Python reference bit for bit.
constexpr unsigned kLineFlags = rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag |
                                rapidjson::kParseFullPrecisionFlag;
constexpr std::size_t kPoolBytes = 1 << 16;

Failure io_failure(const std::string& path, int error) {
  return {error == ENOENT ? Kind::not_found : Kind::internal, path + ": " + std::strerror(error)};
}

}  // namespace

std::string describe(const rapidjson::Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "bool";
  if (v.IsInt64() || v.IsUint64()) return "integer";
  if (v.IsNumber()) return "number";
  if (v.IsString()) return "string";
  if (v.IsArray()) return "list";
  return "object";
}

std::string text_of(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

void fail(std::string message) { throw DataError("", std::move(message)); }

namespace {

// How deep a JSON text nests (brackets outside strings), before parsing it.
int json_depth(const char* text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (; *text; ++text) {
    const char c = *text;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

void parse_line(char* line, rapidjson::Document& doc) {
  // PROTOCOL.md 2.1: the JSON text's depth, the same limit in every language (the typed read
  // below also bounds its own recursion, on tweet levels only)
  if (const int depth = json_depth(line); depth > kMaxNesting) {
    fail("nested " + std::to_string(depth) + " levels deep; canonical objects nest at most " +
         std::to_string(kMaxNesting));
  }
  doc.ParseInsitu<kLineFlags>(line);
  if (doc.HasParseError()) {
    fail(std::string("invalid JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) +
         " (column " + std::to_string(doc.GetErrorOffset() + 1) + ")");
  }
}

bool blank(const char* line) {
  for (; *line; ++line) {
    if (*line != ' ' && *line != '\t' && *line != '\r') return false;
  }
  return true;
}

LineReader::LineReader(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) throw io_failure(path, errno);
}

LineReader::~LineReader() {
  std::free(buf_);
  if (file_) std::fclose(file_);
}

char* LineReader::next() {
  errno = 0;
  ssize_t n = ::getline(&buf_, &cap_, file_);
  if (n < 0) {
    if (errno != 0 && !std::feof(file_)) throw io_failure(path_, errno);
    return nullptr;
  }
  ++line_;
  if (n > 0 && buf_[n - 1] == '\n') buf_[n - 1] = '\0';
  return buf_;
}

void fail_line(const LineReader& reader, const DataError& e) {
  throw corrupt(reader.path() + ":" + std::to_string(reader.line()) + ": " + e.what());
}

JsonPool::JsonPool()
    : buffer_(new char[kPoolBytes]), pool_(buffer_.get(), kPoolBytes), doc_(&pool_) {}

rapidjson::Document& JsonPool::parse(char* line) {
  pool_.Clear();  // the previous line's values are dead: reuse their memory
  parse_line(line, doc_);
  return doc_;
}

}  // namespace json_in
}  // namespace serbench
