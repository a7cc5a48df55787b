#pragma once
// The archive_walk adapters over Boost.Serialization archives, shared by boost_text and
// boost_binary (included only by their .cpp files). Strings and sizes use the archives' own
// formats; the reader bounds a string's length before allocating it, then reads its bytes
// as the archive's own string loader would.

#include <boost/archive/basic_archive.hpp>
#include <boost/serialization/array_wrapper.hpp>
#include <cstddef>
#include <string>

#include "methods/archive_walk.h"
#include "methods/streams.h"

namespace serbench::boost_archive {

// No header: one archive per object, the signature and library version would repeat in
// every object. No codecvt: the archive keeps the stream's locale instead of building one.
inline constexpr unsigned kFlags = boost::archive::no_header | boost::archive::no_codecvt;

template <class Archive>
class Writer {
 public:
  explicit Writer(Archive& ar) : ar_(ar) {}
  template <class T>
  void put(const T& x) {
    ar_ << x;
  }
  void put_size(std::size_t n) { ar_ << n; }
  void put_str(const std::string& s) { ar_ << s; }
  template <class T>
  void put_numbers(const T* p, std::size_t n) {
    ar_ << boost::serialization::make_array(p, n);
  }

 private:
  Archive& ar_;
};

// `Text` selects how a string's bytes follow its length: after one space (text archive) or
// directly (binary archive).
template <class Archive, bool Text>
class Reader {
 public:
  Reader(Archive& ar, SpanSource& source) : ar_(ar), source_(source) {}
  std::size_t position() const { return source_.position(); }
  std::size_t left() const { return source_.left(); }
  template <class T>
  void get(T& x) {
    ar_ >> x;
  }
  uint64_t get_size() {
    std::size_t n;
    ar_ >> n;
    return n;
  }
  void get_chars(std::string& s, std::size_t n) {
    s.resize(n);
    if constexpr (Text) {
      if (source_.sbumpc() != ' ') decode_error(position(), "no space before a string's bytes");
      if (std::size_t(source_.sgetn(s.data(), std::streamsize(n))) != n) {
        decode_error(position(), "truncated string");
      }
    } else {
      ar_.load_binary(s.data(), n);
    }
  }
  template <class T>
  void get_numbers(T* p, std::size_t n) {
    ar_ >> boost::serialization::make_array(p, n);
  }

 private:
  Archive& ar_;
  SpanSource& source_;
};

}  // namespace serbench::boost_archive
