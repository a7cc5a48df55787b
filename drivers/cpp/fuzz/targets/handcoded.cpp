// The `handcoded` decoder: every model (first byte), every depth, re-encoding.
#include "harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  serbench::fuzz::decoder<serbench::Handcoded>({data, size}, 0, true);
  return 0;
}
