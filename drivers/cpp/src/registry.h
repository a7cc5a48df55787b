#pragma once
// THE registry of this driver: every method and every task, one line each. Methods and tasks
// are two axes: each method's translation unit (registry/<method>.cpp, made by CMake from
// method_entry.cpp.in) compiles every task, and the protocol's other operations and the
// network roles, for that method and every model (method_entry.h); registry.cpp joins their
// entries. The methods are only declared here, so a change to one method's header rebuilds
// that method's unit and the link, nothing else. Code compiled for every method at once (the
// tests, the fuzz target `methods`) includes methods/all.h.

#include <cstddef>

#include "cell.h"
#include "model/record.h"

namespace serbench {

// each defined in methods/<name>.h
struct Handcoded;
struct InPlaceMethod;
struct Raw;
struct Protobuf;
struct FlatBuffers;
struct Capnp;
class BoostText;
class BoostBinary;
class Cereal;
class Msgpack;
class MsgpackArrays;
class Bson;
class JsonMethod;
class JsonGzip;

// each defined in tasks/<name>.h
struct Write;
struct ReadSeq;
struct ReadRand;
struct ReadPar;
struct SortDedup;
struct Memory;
struct Micro;

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

// The registry's entry of one method: defined in that method's own translation unit.
template <class Meth>
MethodEntry method_entry();

}  // namespace serbench
