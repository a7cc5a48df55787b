#pragma once
// Methods built on heavy library headers define their member templates in their own .cpp
// and instantiate them there for every model, so the registry (and every other translation
// unit) sees only declarations and the libraries compile once, in parallel.

#include "model/models.h"

#define SERBENCH_INSTANTIATE_FOR(Meth, M)                     \
  template void Meth::encode<M>(const M&, Bytes&);            \
  template M Meth::decode<M>(std::span<const uint8_t>);       \
  template void Meth::fold<M>(std::span<const uint8_t>, const ReadMode&, Hasher&);

// Every root type of model/model_id.h.
#define SERBENCH_INSTANTIATE(Meth)                  \
  SERBENCH_INSTANTIATE_FOR(Meth, Part)              \
  SERBENCH_INSTANTIATE_FOR(Meth, LineItem)          \
  SERBENCH_INSTANTIATE_FOR(Meth, Customer)          \
  SERBENCH_INSTANTIATE_FOR(Meth, Tweet)             \
  SERBENCH_INSTANTIATE_FOR(Meth, SparseVector)      \
  SERBENCH_INSTANTIATE_FOR(Meth, Trade)             \
  SERBENCH_INSTANTIATE_FOR(Meth, Org)               \
  SERBENCH_INSTANTIATE_FOR(Meth, Arrays)
