#include "methods/json.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <string>

#include "methods/instantiate.h"
#include "model/jsonl.h"
#include "model/utf8.h"

namespace serbench {

namespace {

// RapidJSON's Writer, with strings and doubles written as the shared contract says
// (PROTOCOL.md 8.1): lowercase \u00xx escapes, and shortest round-trip doubles positional
// for decimal exponents -5 <= E < 16, else d[.ddd]e+E / e-E.
class Writer : public rapidjson::Writer<rapidjson::StringBuffer> {
 public:
  using rapidjson::Writer<rapidjson::StringBuffer>::Writer;

  bool String(const char* s, rapidjson::SizeType n) {
    Prefix(rapidjson::kStringType);
    os_->Reserve(6 * std::size_t(n) + 2);  // every byte escaped at worst
    os_->PutUnsafe('"');
    for (rapidjson::SizeType i = 0; i < n; ++i) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20 && c != '"' && c != '\\') {
        os_->PutUnsafe(char(c));
      } else {
        put_escape(c);
      }
    }
    os_->PutUnsafe('"');
    return EndValue(true);
  }

  bool Double(double v) {
    char text[40];
    const std::size_t n = format_double(v, text);
    return RawValue(text, n, rapidjson::kNumberType);
  }

 private:
  void put_escape(unsigned char c) {
    os_->PutUnsafe('\\');
    switch (c) {
      case '"': os_->PutUnsafe('"'); return;
      case '\\': os_->PutUnsafe('\\'); return;
      case '\b': os_->PutUnsafe('b'); return;
      case '\f': os_->PutUnsafe('f'); return;
      case '\n': os_->PutUnsafe('n'); return;
      case '\r': os_->PutUnsafe('r'); return;
      case '\t': os_->PutUnsafe('t'); return;
      default:
        for (char x : {'u', '0', '0', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]}) {
          os_->PutUnsafe(x);
        }
    }
  }

  // The contract's text of a finite double into out (40 bytes suffice); its length.
  static std::size_t format_double(double v, char* out) {
    char sci[32];
    // the shortest digits that read back to v, as d.ddde[+-]XX
    const char* end = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific).ptr;
    const char* p = sci;
    char* o = out;
    if (*p == '-') *o++ = *p++;
    const char* e = std::find(p, end, 'e');
    char digits[20];
    std::size_t nd = 0;
    for (const char* q = p; q < e; ++q) {
      if (*q != '.') digits[nd++] = *q;
    }
    int exp = 0;
    std::from_chars(e + (e[1] == '+' ? 2 : 1), end, exp);
    if (v == 0) exp = 0;
    if (exp >= -5 && exp < 16) {
      if (exp < 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = -1; i > exp; --i) *o++ = '0';
        o = std::copy(digits, digits + nd, o);
      } else {
        const std::size_t whole = std::size_t(exp) + 1;
        for (std::size_t i = 0; i < whole; ++i) *o++ = i < nd ? digits[i] : '0';
        *o++ = '.';
        if (nd > whole) {
          o = std::copy(digits + whole, digits + nd, o);
        } else {
          *o++ = '0';
        }
      }
    } else {
      *o++ = digits[0];
      if (nd > 1) {
        *o++ = '.';
        o = std::copy(digits + 1, digits + nd, o);
      }
      *o++ = 'e';
      *o++ = exp < 0 ? '-' : '+';
      o = std::to_chars(o, o + 4, exp < 0 ? -exp : exp).ptr;
    }
    return std::size_t(o - out);
  }
};

// Full precision: correctly rounded doubles, so checksums match bit for bit; iterative: no
// recursion on hostile nesting; stop when done: the reader itself checks that the value ends
// the object (RapidJSON would take a NUL byte for the end of the text).
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag |
                                 rapidjson::kParseStopWhenDoneFlag;

template <class T>
void write(Writer& w, const T& v) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    w.Bool(v);
  } else if constexpr (shape == Shape::integer) {
    if constexpr (sizeof(T) == 8) {
      w.Int64(v);
    } else {
      w.Int(v);
    }
  } else if constexpr (shape == Shape::f64) {
    w.Double(v);
  } else if constexpr (shape == Shape::enumeration) {
    const std::string_view name = EnumSymbols<T>::names[std::size_t(v)];
    w.String(name.data(), rapidjson::SizeType(name.size()));
  } else if constexpr (shape == Shape::str) {
    w.String(v.data(), rapidjson::SizeType(v.size()));
  } else if constexpr (shape == Shape::list) {
    w.StartArray();
    for (const auto& e : v) write(w, e);
    w.EndArray();
  } else if constexpr (shape == Shape::optional) {
    write(w, *v);  // the record leaves absent optionals out
  } else {
    w.StartObject();
    for_each_field<T>([&](auto f) {
      const auto& value = v.*f.member;
      if constexpr (shape_v<typename decltype(f)::type> == Shape::optional) {
        if (!value) return;
      }
      w.Key(f.name.data(), rapidjson::SizeType(f.name.size()));
      write(w, value);
    });
    w.EndObject();
  }
}

// ---- access: the checksum straight from the DOM ----------------------------------------

template <class T>
void visit(const rapidjson::Value& v, Hasher& h, int nesting);

// A record's field values in canonical order; members are looked up where canonical JSON
// puts them first, anywhere else next. Every member must be one of the fields.
template <class T>
void visit_record(const rapidjson::Value& v, Hasher& h, int nesting) {
  if (!v.IsObject()) json_in::fail("expected " + std::string(T::name_of) + " object, got " + json_in::describe(v));
  auto next = v.MemberBegin();
  rapidjson::SizeType used = 0;
  for_each_field<T>([&](auto f) {
    using F = typename decltype(f)::type;
    const rapidjson::Value key(rapidjson::StringRef(f.name.data(), rapidjson::SizeType(f.name.size())));
    auto m = next != v.MemberEnd() && next->name == key ? next : v.FindMember(key);
    const bool present = m != v.MemberEnd() && !m->value.IsNull();
    if (m != v.MemberEnd()) {
      ++used;
      next = m + 1;
    }
    try {
      if constexpr (shape_v<F> == Shape::optional) {
        h.word(present);
        if (!present) return;
        if constexpr (is_specialization<F, std::unique_ptr>) {
          if (nesting >= kMaxNesting) {
            json_in::fail("nested deeper than " + std::to_string(kMaxNesting) + " levels");
          }
          visit<value_t<F>>(m->value, h, nesting + 1);
        } else {
          visit<value_t<F>>(m->value, h, nesting);
        }
      } else {
        if (m == v.MemberEnd()) json_in::fail("missing required field");
        visit<F>(m->value, h, nesting);
      }
    } catch (DataError& e) {
      e.prefix(f.name);
      throw;
    }
  });
  if (used != v.MemberCount()) {
    json_in::fail(std::to_string(v.MemberCount() - used) + " unknown or repeated fields of " +
                  std::string(T::name_of));
  }
}

template <class T>
void visit(const rapidjson::Value& v, Hasher& h, int nesting) {
  constexpr Shape shape = shape_v<T>;
  if constexpr (shape == Shape::boolean) {
    if (!v.IsBool()) json_in::fail("expected bool, got " + json_in::describe(v));
    h.word(v.GetBool());
  } else if constexpr (shape == Shape::integer) {
    h.integer(json_in::read_int<T>(v));
  } else if constexpr (shape == Shape::f64) {
    h.f64(json_in::read_f64(v));
  } else if constexpr (shape == Shape::enumeration) {
    h.integer(int64_t(json_in::read_enum<T>(v)));
  } else if constexpr (shape == Shape::str) {
    if (!v.IsString()) json_in::fail("expected str, got " + json_in::describe(v));
    if (!valid_utf8(v.GetString(), v.GetStringLength())) json_in::fail("string is not valid UTF-8");
    h.bytes(v.GetString(), v.GetStringLength());
  } else if constexpr (shape == Shape::list) {
    if (!v.IsArray()) json_in::fail("expected list, got " + json_in::describe(v));
    h.word(v.Size());
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      try {
        visit<element_t<T>>(v[i], h, nesting);
      } catch (DataError& e) {
        e.prefix("[" + std::to_string(i) + "]");
        throw;
      }
    }
  } else {
    visit_record<T>(v, h, nesting);
  }
}

}  // namespace

struct JsonMethod::State {
  rapidjson::StringBuffer text;
  rapidjson::MemoryPoolAllocator<> pool;
  rapidjson::Document doc{&pool};

  // The DOM of one object's text; a syntax error names its byte.
  const rapidjson::Document& parse(std::span<const uint8_t> bytes) {
    pool.Clear();  // the previous object's values are dead: reuse their memory
    rapidjson::MemoryStream text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    doc.ParseStream<kParseFlags, rapidjson::UTF8<>>(text);
    if (doc.HasParseError()) {
      decode_error(doc.GetErrorOffset(),
                   std::string("invalid JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()));
    }
    if (text.Tell() != bytes.size()) {
      decode_error(text.Tell(), std::to_string(bytes.size() - text.Tell()) +
                                    " trailing bytes after the JSON value");
    }
    return doc;
  }
};

JsonMethod::JsonMethod() : state_(std::make_unique<State>()) {}
JsonMethod::~JsonMethod() = default;

template <class M>
void JsonMethod::encode(const M& value, Bytes& out) {
  state_->text.Clear();
  Writer writer(state_->text);
  write(writer, value);
  out.append(state_->text.GetString(), state_->text.GetSize());
}

template <class M>
M JsonMethod::decode(std::span<const uint8_t> bytes) {
  const rapidjson::Document& doc = state_->parse(bytes);
  try {
    return from_json<M>(doc);
  } catch (const DataError& e) {
    decode_error(0, std::string("JSON: ") + e.what());
  }
}

template <class M>
void JsonMethod::fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
  if (mode.depth == Depth::materialize) {
    serbench::fold(h, decode<M>(bytes));
  } else if (mode.depth == Depth::access) {
    const rapidjson::Document& doc = state_->parse(bytes);
    try {
      visit<M>(doc, h, 0);
    } catch (const DataError& e) {
      decode_error(0, std::string("JSON: ") + e.what());
    }
  } else {
    depth_error(id, mode.depth);
  }
}

SERBENCH_INSTANTIATE(JsonMethod)

}  // namespace serbench
