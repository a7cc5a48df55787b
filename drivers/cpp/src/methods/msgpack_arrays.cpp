#include "methods/msgpack_arrays.h"

#include "methods/instantiate.h"
#include "methods/msgpack_codec.h"

namespace serbench {

using msgpack_codec::Structs;

struct MsgpackArrays::State : msgpack_codec::Unpacked {};

MsgpackArrays::MsgpackArrays() : state_(std::make_unique<State>()) {}
MsgpackArrays::~MsgpackArrays() = default;

template <class M>
void MsgpackArrays::encode(const M& value, Bytes& out) {
  msgpack_codec::encode<Structs::arrays>(value, out);
}

template <class M>
M MsgpackArrays::decode(std::span<const uint8_t> bytes) {
  return msgpack_codec::decode<Structs::arrays, M>(*state_, bytes);
}

template <class M>
void MsgpackArrays::fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
  msgpack_codec::fold<Structs::arrays, M>(id, *state_, bytes, mode, h);
}

SERBENCH_INSTANTIATE(MsgpackArrays)

}  // namespace serbench
