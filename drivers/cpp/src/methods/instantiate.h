#pragma once
// Methods built on heavy library headers define their member templates in their own .cpp
// and instantiate them there for every model, so the registry (and every other translation
// unit) sees only declarations and the libraries compile once, in parallel.

#include "model/model_list.h"

#define SERBENCH_INSTANTIATE_FOR(Meth, M)                     \
  template void Meth::encode<M>(const M&, Bytes&);            \
  template M Meth::decode<M>(std::span<const uint8_t>);       \
  template void Meth::fold<M>(std::span<const uint8_t>, const ReadMode&, Hasher&);

// Every root type of model/model_list.h (generated from the model definitions).
#define SERBENCH_INSTANTIATE(Meth) SERBENCH_FOR_EACH_ROOT(SERBENCH_INSTANTIATE_FOR, Meth)
