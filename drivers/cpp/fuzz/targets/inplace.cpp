// The `inplace` validator (variant `validate`): every bad offset, length or byte must be a
// DecodeError before anything is accessed; the sanitizers catch any read it lets through.
// The trusting variant "" is never given foreign bytes, so it is not fuzzed.
#include "harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // not canonical: offsets may point anywhere valid, not only where the writer puts parts
  serbench::fuzz::decoder<serbench::InPlaceMethod>({data, size},
                                                   serbench::InPlaceMethod::kValidate, false);
  return 0;
}
