#include "methods/boost_text.h"

#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <exception>
#include <istream>
#include <ostream>

#include "methods/boost_archive.h"
#include "methods/instantiate.h"

namespace serbench {

// Text archives speak iostreams; the streams are built once over the reused streambufs.
struct BoostText::State {
  BytesSink sink;
  SpanSource source;
  std::ostream os{&sink};
  std::istream is{&source};
};

BoostText::BoostText() : state_(std::make_unique<State>()) {}
BoostText::~BoostText() = default;

template <class M>
void BoostText::encode(const M& value, Bytes& out) {
  state_->sink.target(out);
  // the archive ends the object with a newline when it is destroyed
  boost::archive::text_oarchive ar(state_->os, boost_archive::kFlags);
  boost_archive::Writer writer(ar);
  archive_walk::save(writer, value);
}

template <class M>
M BoostText::decode(std::span<const uint8_t> bytes) {
  SpanSource& source = state_->source;
  source.reset(bytes);
  state_->is.clear();
  M value;
  try {
    boost::archive::text_iarchive ar(state_->is, boost_archive::kFlags);
    boost_archive::Reader<boost::archive::text_iarchive, true> reader(ar, source);
    archive_walk::load(reader, value, 0);
  } catch (const std::exception& e) {
    // Boost's stream error says only that the std::istream failed
    const std::string what = e.what();
    decode_error(source.position(),
                 "boost text archive: " + what +
                     (what == "input stream error"
                          ? " (text where a number or length belongs, or the object ends early)"
                          : ""));
  }
  if (source.left() != 1 || *source.next() != '\n') {
    decode_error(source.position(), "the object does not end after its final newline");
  }
  return value;
}

template <class M>
void BoostText::fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
  if (mode.depth != Depth::materialize) depth_error(id, mode.depth);
  serbench::fold(h, decode<M>(bytes));
}

SERBENCH_INSTANTIATE(BoostText)

}  // namespace serbench
