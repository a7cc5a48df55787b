#include "methods/msgpack.h"

#include "methods/instantiate.h"
#include "methods/msgpack_codec.h"

namespace serbench {

using msgpack_codec::Structs;

struct Msgpack::State : msgpack_codec::Unpacked {};

Msgpack::Msgpack() : state_(std::make_unique<State>()) {}
Msgpack::~Msgpack() = default;

template <class M>
void Msgpack::encode(const M& value, Bytes& out) {
  msgpack_codec::encode<Structs::maps>(value, out);
}

template <class M>
M Msgpack::decode(std::span<const uint8_t> bytes) {
  return msgpack_codec::decode<Structs::maps, M>(*state_, bytes);
}

template <class M>
void Msgpack::fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
  msgpack_codec::fold<Structs::maps, M>(id, *state_, bytes, mode, h);
}

SERBENCH_INSTANTIATE(Msgpack)

}  // namespace serbench
