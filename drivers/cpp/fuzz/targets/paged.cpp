// The index and page reader, and `handcoded` or `raw` over every object it serves.
#include "harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  serbench::fuzz::paged({data, size});
  return 0;
}
