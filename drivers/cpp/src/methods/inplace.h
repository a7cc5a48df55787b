#pragma once
// `inplace`: objects built directly in the page buffer and read by a cast, never parsed.
//
// Layout. The model records are instantiated with the InPlace policy: scalars and nested
// records inline, as C++ lays them out; strings and lists as {int32 offset, uint32 length};
// optional records and recursive tweets as an int32 offset (0 = absent); other optionals
// inline as {value, presence byte}. Every offset is self-relative (target address minus the
// address of the offset field), so an object stays valid wherever its bytes are loaded or
// moved. The whole object graph lives inside the object's extent: the root record at offset
// 0, then everything it points to, depth-first in field order, each part aligned to its type
// (at most 8; objects are 8-aligned within their page). Padding bytes are zero.
//
// Writing. A sizing pass over the native object gives the exact extent; the object is then
// built at the end of the page buffer by a bump allocator over that many zeroed bytes. An
// object that crosses the page end is moved whole to the next page by the page writer; the
// self-relative offsets survive the move.
//
// Reading. Variant "" trusts the bytes: the read is a cast and a walk through the offsets.
// It is only ever used on files this driver wrote itself in this run (the reader checks the
// index's writer and run stamp, tasks/task.h). Variant "validate" first checks
// every offset and length against the object's extent (each target aligned, inside the
// object, after everything claimed before it, so no sharing and no cycles), every bool and
// presence byte, enum ordinal and string's UTF-8, and turns the first bad one into a
// DecodeError (corrupt_input), before anything is accessed.

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "methods/method.h"
#include "model/record.h"
#include "model/utf8.h"

namespace serbench {

namespace inplace {

inline const uint8_t* at_offset(const void* self, int32_t off) {
  return static_cast<const uint8_t*>(self) + off;
}
inline int32_t offset_to(const void* self, const void* target) {
  return int32_t(static_cast<const uint8_t*>(target) - static_cast<const uint8_t*>(self));
}

// The parts below are only ever viewed in place: copying one would break its offset.
struct Pinned {
  Pinned() = default;
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
};

struct Str : Pinned {
  static constexpr Shape shape = Shape::str;
  int32_t off;
  uint32_t len;
  operator std::string_view() const {
    return {reinterpret_cast<const char*>(at_offset(this, off)), len};
  }
  void set(const uint8_t* bytes, uint32_t n) {
    off = offset_to(this, bytes);
    len = n;
  }
};

template <class T>
struct Vec : Pinned {
  static constexpr Shape shape = Shape::list;
  int32_t off;
  uint32_t count;
  const T* begin() const { return reinterpret_cast<const T*>(at_offset(this, off)); }
  const T* end() const { return begin() + count; }
  std::size_t size() const { return count; }
  const T& operator[](std::size_t i) const { return begin()[i]; }
  void set(const T* items, uint32_t n) {
    off = offset_to(this, items);
    count = n;
  }
};

// An offset to a record elsewhere in the object; 0 is absent (nothing points at itself).
template <class T>
struct Ptr : Pinned {
  static constexpr Shape shape = Shape::optional;
  int32_t off;
  explicit operator bool() const { return off != 0; }
  const T& operator*() const { return *reinterpret_cast<const T*>(at_offset(this, off)); }
  void set(const T* target) { off = offset_to(this, target); }
};

// An optional stored inline: the value, then a presence byte. (Not Pinned itself: a second
// empty base next to a Pinned value would cost padding.)
template <class T>
struct Maybe {
  static constexpr Shape shape = Shape::optional;
  T value;
  bool present;
  explicit operator bool() const { return present; }
  const T& operator*() const { return value; }
};

template <class T>
inline constexpr bool is_ptr = is_specialization<T, Ptr>;

}  // namespace inplace

struct InPlace {
  using Str = inplace::Str;
  template <class T>
  using Vec = inplace::Vec<T>;
  template <class T>
  using Opt = std::conditional_t<Record<T>, inplace::Ptr<T>, inplace::Maybe<T>>;
  template <class T>
  using Box = inplace::Ptr<T>;
};

namespace inplace {

inline std::size_t round_up(std::size_t n, std::size_t align) {
  return (n + align - 1) / align * align;
}

// Counts what the build will allocate.
class Sizer {
 public:
  void alloc(std::size_t n, std::size_t align) { used_ = round_up(used_, align) + n; }
  std::size_t used() const { return used_; }

 private:
  std::size_t used_ = 0;
};

// A bump allocator over the object's zeroed extent.
class Arena {
 public:
  Arena(uint8_t* base, std::size_t size) : base_(base), size_(size) {}
  uint8_t* alloc(std::size_t n, std::size_t align) {
    used_ = round_up(used_, align);
    uint8_t* at = base_ + used_;
    used_ += n;
    if (used_ > size_) throw Failure(Kind::internal, "inplace: the build outgrew its sizing pass");
    return at;
  }
  std::size_t used() const { return used_; }

 private:
  uint8_t* base_;
  std::size_t size_;
  std::size_t used_ = 0;
};

// The out-of-line parts of a native value v whose in-place type is D, in build order.
template <class D, class N>
void measure(Sizer& s, const N& v) {
  constexpr Shape shape = shape_v<N>;
  if constexpr (shape == Shape::str) {
    if (!v.empty()) s.alloc(v.size(), 1);
  } else if constexpr (shape == Shape::list) {
    using DE = element_t<D>;
    if (v.empty()) return;
    s.alloc(v.size() * sizeof(DE), alignof(DE));
    if constexpr (!is_plain_number<DE>) {
      for (const auto& e : v) measure<DE>(s, e);
    }
  } else if constexpr (shape == Shape::optional) {
    using DV = value_t<D>;
    if (!v) return;
    if constexpr (is_ptr<D>) s.alloc(sizeof(DV), alignof(DV));
    measure<DV>(s, *v);
  } else if constexpr (shape == Shape::record) {
    for_each_field_pair<D, N>(
        [&](auto fd, auto fn) { measure<typename decltype(fd)::type>(s, v.*fn.member); });
  }
}

// Writes v into dst (zeroed memory inside the arena), allocating its out-of-line parts.
template <class D, class N>
void build(Arena& a, D& dst, const N& v) {
  constexpr Shape shape = shape_v<N>;
  if constexpr (shape == Shape::str) {
    if (v.empty()) return;
    uint8_t* bytes = a.alloc(v.size(), 1);
    std::memcpy(bytes, v.data(), v.size());
    dst.set(bytes, uint32_t(v.size()));
  } else if constexpr (shape == Shape::list) {
    using DE = element_t<D>;
    if (v.empty()) return;
    auto* items = reinterpret_cast<DE*>(a.alloc(v.size() * sizeof(DE), alignof(DE)));
    dst.set(items, uint32_t(v.size()));
    if constexpr (is_plain_number<DE>) {
      std::memcpy(items, v.data(), v.size() * sizeof(DE));
    } else {
      for (std::size_t i = 0; i < v.size(); ++i) build(a, items[i], v[i]);
    }
  } else if constexpr (shape == Shape::optional) {
    using DV = value_t<D>;
    if (!v) return;
    if constexpr (is_ptr<D>) {
      auto* target = reinterpret_cast<DV*>(a.alloc(sizeof(DV), alignof(DV)));
      dst.set(target);
      build(a, *target, *v);
    } else {
      dst.present = true;
      build(a, dst.value, *v);
    }
  } else if constexpr (shape == Shape::record) {
    for_each_field_pair<D, N>([&](auto fd, auto fn) { build(a, dst.*fd.member, v.*fn.member); });
  } else {
    dst = v;
  }
}

// Native value from an in-place one (depth materialize).
template <class N, class D>
void convert(N& out, const D& v) {
  constexpr Shape shape = shape_v<N>;
  if constexpr (shape == Shape::str) {
    out = std::string_view(v);
  } else if constexpr (shape == Shape::list) {
    out.resize(v.size());
    if constexpr (is_plain_number<element_t<N>>) {
      if (v.size()) std::memcpy(out.data(), v.begin(), v.size() * sizeof(element_t<N>));
    } else {
      for (std::size_t i = 0; i < v.size(); ++i) convert(out[i], v[i]);
    }
  } else if constexpr (shape == Shape::optional) {
    if (!v) {
      out.reset();
    } else if constexpr (is_specialization<N, std::unique_ptr>) {
      out = std::make_unique<value_t<N>>();
      convert(*out, *v);
    } else {
      out.emplace();
      convert(*out, *v);
    }
  } else if constexpr (shape == Shape::record) {
    for_each_field_pair<N, D>([&](auto fn, auto fd) { convert(out.*fn.member, v.*fd.member); });
  } else {
    out = v;
  }
}

// The "validate" variant's checks over one object's extent.
class Checker {
 public:
  explicit Checker(std::span<const uint8_t> bytes)
      : begin_(address(bytes.data())), end_(begin_ + bytes.size()), cursor_(begin_) {}

  static uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }
  std::size_t pos(const void* p) const { return address(p) - begin_; }

  // The target of a self-relative offset, computed without forming an out-of-range pointer.
  static uintptr_t target(const void* self, int32_t off) {
    return address(self) + uintptr_t(intptr_t(off));
  }

  // Claims [at, at + n) for one part: aligned, inside the object, after every part claimed
  // before it (so parts never overlap and the walk is bounded by the object's size).
  void claim(const void* field, uintptr_t at, uint64_t n, std::size_t align, const char* what) {
    if (at % align != 0) {
      fail(field, std::string(what) + " at offset " + std::to_string(int64_t(at - begin_)) +
                      " is not aligned to " + std::to_string(align));
    }
    if (at < cursor_ || at > end_ || n > end_ - at) {
      fail(field, std::string(what) + " at offset " + std::to_string(int64_t(at - begin_)) + " (" +
                      std::to_string(n) + " bytes) lies outside the object's " +
                      std::to_string(end_ - begin_) + " bytes or overlaps an earlier part");
    }
    cursor_ = at + n;
  }
  void flag(const void* byte, const char* what) const {
    uint8_t b;
    std::memcpy(&b, byte, 1);
    if (b > 1) fail(byte, std::string(what) + " byte " + std::to_string(b) + " is not 0 or 1");
  }
  void enter(const void* field) {
    if (++nesting_ > kMaxNesting)
      fail(field, "nested deeper than " + std::to_string(kMaxNesting) + " levels");
  }
  void leave() { --nesting_; }
  [[noreturn]] void fail(const void* field, std::string message) const {
    decode_error(pos(field), std::move(message));
  }

 private:
  uintptr_t begin_, end_, cursor_;
  int nesting_ = 0;
};

// Checks the value v, whose own bytes are known to lie inside the object, and every part it
// points to.
template <class D>
void check(Checker& c, const D& v) {
  constexpr Shape shape = shape_v<D>;
  if constexpr (shape == Shape::boolean) {
    c.flag(&v, "bool");
  } else if constexpr (shape == Shape::enumeration) {
    uint8_t b;
    std::memcpy(&b, &v, 1);
    if (b >= EnumSymbols<D>::names.size())
      c.fail(&v, "enum ordinal " + std::to_string(b) + " is out of range");
  } else if constexpr (shape == Shape::str) {
    if (v.len == 0) return;
    uintptr_t at = Checker::target(&v, v.off);
    c.claim(&v, at, v.len, 1, "string");
    auto* bytes = reinterpret_cast<const uint8_t*>(at);
    if (std::size_t bad = utf8_check(bytes, v.len); bad != v.len) {
      c.fail(bytes + bad, "invalid UTF-8 in a string");
    }
  } else if constexpr (shape == Shape::list) {
    using DE = element_t<D>;
    if (v.count == 0) return;
    c.claim(&v, Checker::target(&v, v.off), uint64_t(v.count) * sizeof(DE), alignof(DE), "list");
    if constexpr (!is_plain_number<DE>) {
      for (const auto& e : v) check(c, e);
    }
  } else if constexpr (shape == Shape::optional) {
    if constexpr (is_ptr<D>) {
      if (!v) return;
      using DV = value_t<D>;
      c.enter(&v);
      c.claim(&v, Checker::target(&v, v.off), sizeof(DV), alignof(DV), "record");
      check(c, *v);
      c.leave();
    } else {
      c.flag(&v.present, "optional presence");
      if (v.present) check(c, v.value);
    }
  } else if constexpr (shape == Shape::record) {
    for_each_field<D>([&](auto f) { check(c, v.*f.member); });
  }
}

}  // namespace inplace

struct InPlaceMethod {
  static constexpr std::string_view id = "inplace";
  static constexpr std::array depths{Depth::access, Depth::materialize};
  static constexpr std::array variants{std::string_view("validate")};
  static constexpr std::array files{std::string_view("drivers/cpp/src/methods/inplace.h")};
  static constexpr bool writes = true;
  static constexpr std::size_t alignment = 8;
  static constexpr std::size_t kValidate = 1;

  template <class M>
  using Layout = Rebind<M, InPlace>;

  template <class M>
  void encode(const M& value, Bytes& out) {
    using D = Layout<M>;
    static_assert(alignof(D) <= alignment);
    if (out.size() % alignment != 0)
      throw Failure(Kind::internal, "inplace: unaligned object start");
    inplace::Sizer sizer;
    sizer.alloc(sizeof(D), alignof(D));
    inplace::measure<D>(sizer, value);
    const std::size_t size = sizer.used();
    if (size > INT32_MAX) {
      throw Failure(Kind::internal, "inplace: an object of " + std::to_string(size) +
                                        " bytes is beyond 32-bit offsets");
    }
    inplace::Arena arena(out.grow_zeroed(size), size);
    auto* root = reinterpret_cast<D*>(arena.alloc(sizeof(D), alignof(D)));
    inplace::build(arena, *root, value);
    if (arena.used() != size)
      throw Failure(Kind::internal, "inplace: the build and its sizing pass disagree");
  }

  template <class M>
  M decode(std::span<const uint8_t> bytes) {
    M value;
    inplace::convert(value, view<M>(bytes, true));
    return value;
  }

  template <class M>
  void fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
    const auto& root = view<M>(bytes, mode.variant == kValidate);
    if (mode.depth == Depth::access) {
      serbench::fold(h, root);
    } else if (mode.depth == Depth::materialize) {
      M value;
      inplace::convert(value, root);
      serbench::fold(h, value);
    } else {
      depth_error(id, mode.depth);
    }
  }

  // The object's root record: a cast, after the checks when `validate`.
  template <class M>
  static const Layout<M>& view(std::span<const uint8_t> bytes, bool validate) {
    using D = Layout<M>;
    if (validate) {
      inplace::Checker c(bytes);
      c.claim(bytes.data(), inplace::Checker::address(bytes.data()), sizeof(D), alignof(D),
              "root record");
      inplace::check(c, *reinterpret_cast<const D*>(bytes.data()));
    }
    return *reinterpret_cast<const D*>(bytes.data());
  }
};

}  // namespace serbench
