#include "methods/cereal.h"

#include <cereal/archives/binary.hpp>
#include <cereal/types/string.hpp>
#include <exception>
#include <istream>
#include <ostream>

#include "methods/archive_walk.h"
#include "methods/instantiate.h"
#include "methods/streams.h"

namespace serbench {

namespace {

class Writer {
 public:
  explicit Writer(cereal::BinaryOutputArchive& ar) : ar_(ar) {}
  template <class T>
  void put(const T& x) {
    ar_(x);
  }
  void put_size(std::size_t n) { ar_(cereal::make_size_tag(cereal::size_type(n))); }
  void put_str(const std::string& s) { ar_(s); }
  template <class T>
  void put_numbers(const T* p, std::size_t n) {
    ar_(cereal::binary_data(p, n * sizeof(T)));
  }

 private:
  cereal::BinaryOutputArchive& ar_;
};

// Reads what Writer wrote; a string's bytes are read as cereal's own string loader does,
// after archive_walk has bounded its length.
class Reader {
 public:
  Reader(cereal::BinaryInputArchive& ar, const SpanSource& source) : ar_(ar), source_(source) {}
  std::size_t position() const { return source_.position(); }
  std::size_t left() const { return source_.left(); }
  template <class T>
  void get(T& x) {
    ar_(x);
  }
  uint64_t get_size() {
    cereal::size_type n;
    ar_(cereal::make_size_tag(n));
    return n;
  }
  void get_chars(std::string& s, std::size_t n) {
    s.resize(n);
    ar_(cereal::binary_data(s.data(), n));
  }
  template <class T>
  void get_numbers(T* p, std::size_t n) {
    ar_(cereal::binary_data(p, n * sizeof(T)));
  }

 private:
  cereal::BinaryInputArchive& ar_;
  const SpanSource& source_;
};

}  // namespace

// cereal's archives speak iostreams; the streams are built once over the reused streambufs.
struct Cereal::State {
  BytesSink sink;
  SpanSource source;
  std::ostream os{&sink};
  std::istream is{&source};
};

Cereal::Cereal() : state_(std::make_unique<State>()) {}
Cereal::~Cereal() = default;

template <class M>
void Cereal::encode(const M& value, Bytes& out) {
  state_->sink.target(out);
  cereal::BinaryOutputArchive ar(state_->os);
  Writer writer(ar);
  archive_walk::save(writer, value);
}

template <class M>
M Cereal::decode(std::span<const uint8_t> bytes) {
  SpanSource& source = state_->source;
  source.reset(bytes);
  M value;
  try {
    cereal::BinaryInputArchive ar(state_->is);
    Reader reader(ar, source);
    archive_walk::load(reader, value, 0);
  } catch (const std::exception& e) {
    decode_error(source.position(), std::string("cereal: ") + e.what());
  }
  if (source.left() != 0) {
    decode_error(source.position(),
                 std::to_string(source.left()) + " trailing bytes after the object");
  }
  return value;
}

template <class M>
void Cereal::fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
  if (mode.depth != Depth::materialize) depth_error(id, mode.depth);
  serbench::fold(h, decode<M>(bytes));
}

SERBENCH_INSTANTIATE(Cereal)

}  // namespace serbench
