#include "methods/boost_binary.h"

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <exception>

#include "methods/boost_archive.h"
#include "methods/instantiate.h"

namespace serbench {

struct BoostBinary::State {
  BytesSink sink;
  SpanSource source;
};

BoostBinary::BoostBinary() : state_(std::make_unique<State>()) {}
BoostBinary::~BoostBinary() = default;

template <class M>
void BoostBinary::encode(const M& value, Bytes& out) {
  state_->sink.target(out);
  boost::archive::binary_oarchive ar(state_->sink, boost_archive::kFlags);
  boost_archive::Writer writer(ar);
  archive_walk::save(writer, value);
}

template <class M>
M BoostBinary::decode(std::span<const uint8_t> bytes) {
  SpanSource& source = state_->source;
  source.reset(bytes);
  M value;
  try {
    boost::archive::binary_iarchive ar(source, boost_archive::kFlags);
    boost_archive::Reader<boost::archive::binary_iarchive, false> reader(ar, source);
    archive_walk::load(reader, value, 0);
  } catch (const std::exception& e) {
    decode_error(source.position(), std::string("boost binary archive: ") + e.what());
  }
  if (source.left() != 0) {
    decode_error(source.position(),
                 std::to_string(source.left()) + " trailing bytes after the object");
  }
  return value;
}

template <class M>
void BoostBinary::fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
  if (mode.depth != Depth::materialize) depth_error(id, mode.depth);
  serbench::fold(h, decode<M>(bytes));
}

SERBENCH_INSTANTIATE(BoostBinary)

}  // namespace serbench
