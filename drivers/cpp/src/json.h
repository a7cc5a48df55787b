#pragma once
// A small JSON value for building responses (results are small; bulk data never crosses
// the pipe). Serialised with RapidJSON's writer, so strings are escaped correctly.

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace serbench {

class Json {
 public:
  using Array = std::vector<Json>;
  using Member = std::pair<std::string, Json>;
  using Object = std::vector<Member>;

  Json() : value_(nullptr) {}
  Json(std::nullptr_t) : value_(nullptr) {}
  Json(bool b) : value_(b) {}
  template <std::integral I>  // bool takes the exact overload above
  Json(I i) {
    if constexpr (std::is_signed_v<I>) {
      value_ = int64_t(i);
    } else {
      value_ = uint64_t(i);
    }
  }
  Json(double d) : value_(d) {}
  Json(std::string s) : value_(std::move(s)) {}
  Json(std::string_view s) : value_(std::string(s)) {}
  Json(const char* s) : value_(std::string(s)) {}
  Json(Array a) : value_(std::move(a)) {}

  static Json object(std::initializer_list<Member> members = {}) { return Json(Object(members)); }
  template <class Range>
  static Json array_of(const Range& items) {
    Array a;
    for (const auto& item : items) a.emplace_back(item);
    return Json(std::move(a));
  }
  // Text that already is JSON (a request's id, echoed as it came).
  static Json raw(std::string text) { return Json(Raw{std::move(text)}); }

  // Adds or replaces a member of an object.
  Json& set(std::string key, Json value);
  std::string dump() const;

 private:
  struct Raw {
    std::string text;
  };
  explicit Json(Object o) : value_(std::move(o)) {}
  explicit Json(Raw r) : value_(std::move(r)) {}
  template <class Writer>
  void write(Writer& w) const;

  std::variant<std::nullptr_t, bool, int64_t, uint64_t, double, std::string, Array, Object, Raw>
      value_;
};

}  // namespace serbench
