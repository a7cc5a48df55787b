#include "json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "model/utf8.h"

namespace serbench {

namespace {

// Responses must be valid UTF-8 even when a message quotes bad input: each invalid byte
// becomes U+FFFD.
std::string repaired_utf8(const std::string& s) {
  auto* p = reinterpret_cast<const uint8_t*>(s.data());
  std::size_t bad = utf8_check(p, s.size());
  if (bad == s.size()) return s;
  std::string out(s, 0, bad);
  while (bad < s.size()) {
    out += "\xEF\xBF\xBD";
    std::size_t next = bad + 1;
    std::size_t end = utf8_error_at(p, s.size(), next);
    out.append(s, next, end - next);
    bad = end;
  }
  return out;
}

template <class Writer>
void write_string(Writer& w, const std::string& s) {
  const std::string text = repaired_utf8(s);
  w.String(text.data(), rapidjson::SizeType(text.size()));
}

}  // namespace

Json& Json::set(std::string key, Json value) {
  auto& members = std::get<Object>(value_);
  for (auto& [k, v] : members) {
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  }
  members.emplace_back(std::move(key), std::move(value));
  return *this;
}

template <class Writer>
void Json::write(Writer& w) const {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) {
          w.Null();
        } else if constexpr (std::is_same_v<T, bool>) {
          w.Bool(v);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          w.Int64(v);
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          w.Uint64(v);
        } else if constexpr (std::is_same_v<T, double>) {
          w.Double(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          write_string(w, v);
        } else if constexpr (std::is_same_v<T, Array>) {
          w.StartArray();
          for (const auto& item : v) item.write(w);
          w.EndArray();
        } else if constexpr (std::is_same_v<T, Object>) {
          w.StartObject();
          for (const auto& [key, item] : v) {
            const std::string text = repaired_utf8(key);
            w.Key(text.data(), rapidjson::SizeType(text.size()));
            item.write(w);
          }
          w.EndObject();
        } else {
          w.RawValue(v.text.data(), v.text.size(), rapidjson::kObjectType);
        }
      },
      value_);
}

std::string Json::dump() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  write(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace serbench
