#pragma once
// Standard streambufs over this driver's buffers, for the libraries that speak iostreams
// (Boost.Serialization, cereal): writing appends straight to the page's Bytes, reading
// serves the object's bytes in place. Both are reused from object to object (no copies, no
// allocation per object).

#include <cstdint>
#include <span>
#include <streambuf>

#include "bytes.h"

namespace serbench {

// Appends everything written to a Bytes buffer.
class BytesSink : public std::streambuf {
 public:
  void target(Bytes& out) { out_ = &out; }

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_->append(s, std::size_t(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) out_->push(uint8_t(c));
    return traits_type::not_eof(c);
  }

 private:
  Bytes* out_ = nullptr;
};

// Serves one object's bytes; knows where it is, so errors can name the byte and counts can
// be bounded by what is left before anything is allocated for them.
class SpanSource : public std::streambuf {
 public:
  void reset(std::span<const uint8_t> bytes) {
    // the get area is read only: std::streambuf merely spells its pointers without const
    char* begin = const_cast<char*>(reinterpret_cast<const char*>(bytes.data()));
    setg(begin, begin, begin + bytes.size());
  }
  std::size_t position() const { return std::size_t(gptr() - eback()); }
  std::size_t left() const { return std::size_t(egptr() - gptr()); }
  const char* next() const { return gptr(); }
};

}  // namespace serbench
