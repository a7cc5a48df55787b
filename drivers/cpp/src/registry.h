#pragma once
// THE registry of this driver: every method and every task, one line each. Methods and tasks
// are two axes; registry_fill.h compiles every task, and the protocol's other operations, for
// every method and every model (in shards, registry.cpp joins them).

#include "methods/boost_binary.h"
#include "methods/boost_text.h"
#include "methods/bson.h"
#include "methods/capnp.h"
#include "methods/cereal.h"
#include "methods/flatbuffers.h"
#include "methods/handcoded.h"
#include "methods/inplace.h"
#include "methods/json.h"
#include "methods/json_gzip.h"
#include "methods/msgpack.h"
#include "methods/msgpack_arrays.h"
#include "methods/protobuf.h"
#include "methods/raw.h"
#include "model/record.h"
#include "tasks/read_rand.h"
#include "tasks/read_seq.h"
#include "tasks/write.h"
// the tasks of PROTOCOL.md 5.1-5.4
#include "tasks/memory.h"
#include "tasks/micro.h"
#include "tasks/read_par.h"
#include "tasks/sort_dedup.h"

namespace serbench {

// clang-format off
using Methods = TypeList<
    Handcoded,
    InPlaceMethod,
    Raw,
    Protobuf,
    FlatBuffers,
    Capnp,
    // serialization libraries
    BoostText,
    BoostBinary,
    Cereal,
    Msgpack,
    MsgpackArrays,
    Bson,
    JsonMethod,
    JsonGzip>;

using Tasks = TypeList<
    Write,
    ReadSeq,
    ReadRand,
    ReadPar,
    SortDedup,
    Memory,
    Micro>;
// clang-format on

template <class... T>
constexpr std::size_t type_count(TypeList<T...>) {
  return sizeof...(T);
}
inline constexpr std::size_t kMethodCount = type_count(Methods{});

// Calls f(std::type_identity<Meth>{}) for every method that decodes objects (all but `raw`,
// which copies bytes), in registry order: the fuzz target `methods` picks one by this order.
template <class F>
constexpr void for_each_reader(F&& f) {
  for_each_type(Methods{}, [&](auto method) {
    if constexpr (!decltype(method)::type::depths.empty()) f(method);
  });
}

}  // namespace serbench
