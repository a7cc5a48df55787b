#pragma once
// Canonical JSON and JSON Lines: strict reading (unknown keys rejected, absent or null
// optionals accepted, integers range-checked, strings valid UTF-8) with errors that name the
// line and the field path, e.g. `data.jsonl:3: orders[2].lineitems[0].part.name: missing
// required field`.

#include <rapidjson/document.h>

#include <array>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/record.h"
#include "model/utf8.h"

namespace serbench {

// A JSON value that is not a valid value of its model; `path` names the field
// (`orders[2].clerk`), empty when the whole value is at fault.
class DataError : public std::exception {
 public:
  DataError(std::string path, std::string message)
      : path_(std::move(path)), message_(std::move(message)) {
    update();
  }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }
  const char* what() const noexcept override { return text_.c_str(); }
  // Puts a parent's segment (a field name or "[i]") in front of the path.
  void prefix(std::string_view segment);

 private:
  void update() { text_ = path_.empty() ? message_ : path_ + ": " + message_; }
  std::string path_, message_, text_;
};

namespace json_in {

std::string describe(const rapidjson::Value& v);
std::string text_of(const rapidjson::Value& v);
[[noreturn]] void fail(std::string message);

template <class T>
void read(const rapidjson::Value& v, T& out, int nesting);

template <class T>
T read_int(const rapidjson::Value& v) {
  // appended, not `"i" + std::to_string(...)`: GCC 12 warns (-Wrestrict) about that operator+
  // inlined here, a known false positive
  std::string kind = "i";
  kind += std::to_string(8 * sizeof(T));
  if (v.IsInt64()) {
    int64_t x = v.GetInt64();
    if (x < std::numeric_limits<T>::min() || x > std::numeric_limits<T>::max()) {
      fail(std::to_string(x) + " out of range for " + kind);
    }
    return T(x);
  }
  if (v.IsUint64()) fail(std::to_string(v.GetUint64()) + " out of range for " + kind);
  fail("expected " + kind + ", got " + describe(v));
}

inline double read_f64(const rapidjson::Value& v) {
  // JSON writers may print an integral double without a fraction.
  if (v.IsInt64()) return double(v.GetInt64());
  if (v.IsUint64()) return double(v.GetUint64());
  if (!v.IsNumber()) fail("expected f64, got " + describe(v));
  return v.GetDouble();  // the parser refuses infinities and NaN
}

template <class E>
E read_enum(const rapidjson::Value& v) {
  constexpr auto& names = EnumSymbols<E>::names;
  if (v.IsString()) {
    std::string_view s(v.GetString(), v.GetStringLength());
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == s) return E(i);
    }
  }
  std::string expected;
  for (auto name : names) {
    if (!expected.empty()) expected += '/';
    expected += name;
  }
  fail("expected one of " + expected + ", got " + text_of(v));
}

template <Record T>
constexpr auto field_names() {
  return std::apply([](auto... f) { return std::array<std::string_view, sizeof...(f)>{f.name...}; },
                    T::fields());
}

// The index of the field named `key`, trying `guess` first (canonical JSON lists the fields
// in order); field_count<T> when there is none.
template <Record T>
std::size_t find_field(std::string_view key, std::size_t guess) {
  static constexpr auto names = field_names<T>();
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::size_t i = (guess + k) % names.size();
    if (names[i] == key) return i;
  }
  return names.size();
}

template <Record T>
void read_field(std::size_t index, const rapidjson::Value& v, T& out, int nesting) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    auto one = [&](auto f) {
      try {
        read(v, out.*f.member, nesting);
      } catch (DataError& e) {
        e.prefix(f.name);
        throw;
      }
    };
    ((index == I ? one(std::get<I>(T::fields())) : void()), ...);
  }
  (std::make_index_sequence<field_count<T>>{});
}

template <Record T>
void read_record(const rapidjson::Value& v, T& out, int nesting) {
  if (!v.IsObject()) fail("expected " + std::string(T::name_of) + " object, got " + describe(v));
  std::array<bool, field_count<T>> seen{};
  std::size_t guess = 0;
  for (const auto& m : v.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    std::size_t i = find_field<T>(key, guess);
    if (i == seen.size())
      throw DataError(std::string(key), "unknown field of " + std::string(T::name_of));
    seen[i] = true;
    guess = i + 1;
    read_field(i, m.value, out, nesting);
  }
  std::size_t i = 0;
  for_each_field<T>([&](auto f) {
    using F = typename decltype(f)::type;
    if (!seen[i++] && shape_v<F> != Shape::optional) {
      throw DataError(std::string(f.name), "missing required field");
    }
  });
}

template <class T>
void read(const rapidjson::Value& v, T& out, int nesting) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    if (!v.IsBool()) fail("expected bool, got " + describe(v));
    out = v.GetBool();
  } else if constexpr (shape == Shape::integer) {
    out = read_int<T>(v);
  } else if constexpr (shape == Shape::f64) {
    out = read_f64(v);
  } else if constexpr (shape == Shape::enumeration) {
    out = read_enum<T>(v);
  } else if constexpr (shape == Shape::str) {
    if (!v.IsString()) fail("expected str, got " + describe(v));
    if (!valid_utf8(v.GetString(), v.GetStringLength())) fail("string is not valid UTF-8");
    out.assign(v.GetString(), v.GetStringLength());
  } else if constexpr (shape == Shape::list) {
    if (!v.IsArray()) fail("expected list, got " + describe(v));
    out.clear();
    out.resize(v.Size());
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      try {
        read(v[i], out[i], nesting);
      } catch (DataError& e) {
        e.prefix("[" + std::to_string(i) + "]");
        throw;
      }
    }
  } else if constexpr (shape == Shape::optional) {
    if (v.IsNull()) {
      out.reset();
    } else if constexpr (is_specialization<T, std::unique_ptr>) {
      if (nesting >= kMaxNesting)
        fail("nested deeper than " + std::to_string(kMaxNesting) + " levels");
      out = std::make_unique<value_t<T>>();
      read(v, *out, nesting + 1);
    } else {
      out.emplace();
      read(v, *out, nesting);
    }
  } else {
    read_record(v, out, nesting);
  }
}

// Parses one line into `doc` (in place: `line` is modified and must be NUL-terminated);
// a syntax error is a DataError with an empty path.
void parse_line(char* line, rapidjson::Document& doc);

// Reads a file line by line; `next` returns false at the end. I/O errors are Failures.
class LineReader {
 public:
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  // The next line without its newline, NUL-terminated and writable; nullptr at the end.
  char* next();
  uint64_t line() const { return line_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  char* buf_ = nullptr;
  std::size_t cap_ = 0;
  uint64_t line_ = 0;
};

// corrupt_input naming FILE:LINE and the field.
[[noreturn]] void fail_line(const LineReader& reader, const DataError& e);
bool blank(const char* line);

// Parser state reused line after line: memory comes from one pool, cleared per line.
class JsonPool {
 public:
  JsonPool();
  rapidjson::Document& parse(char* line);

 private:
  std::unique_ptr<char[]> buffer_;
  rapidjson::MemoryPoolAllocator<> pool_;
  rapidjson::Document doc_;
};

}  // namespace json_in

// One canonical JSON value of model M (throws DataError).
template <class M>
M from_json(const rapidjson::Value& v) {
  M out;
  json_in::read(v, out, 0);
  return out;
}

// Calls `fn(M&&)` with every object of a JSON Lines file of model M in order, blank lines
// skipped, holding one object at a time: verifying or encoding a file needs memory bounded by
// its largest object, not by its size. A missing file is not_found, a bad line corrupt_input
// "FILE:LINE: path: message".
template <class M, class Fn>
void for_each_json_line(const std::string& path, Fn&& fn) {
  json_in::LineReader reader(path);
  json_in::JsonPool pool;
  while (char* line = reader.next()) {
    if (json_in::blank(line)) continue;
    M object;
    try {
      object = from_json<M>(pool.parse(line));
    } catch (const DataError& e) {
      json_in::fail_line(reader, e);
    }
    fn(std::move(object));
  }
}

// Every object of a JSON Lines file of model M, for the tasks that time work on objects
// held in memory (errors as for_each_json_line).
template <class M>
std::vector<M> load_json_lines(const std::string& path) {
  std::vector<M> objects;
  for_each_json_line<M>(path, [&](M&& object) { objects.push_back(std::move(object)); });
  return objects;
}

}  // namespace serbench
