// Every method's reader, as the Rust driver's `methods` target: [method byte][model byte]
// [object bytes], the method the n-th (modulo) of registry.h's for_each_reader, read through
// its validating variant where it lists one, every depth, re-encoding (not canonical: a
// library may accept more than one encoding of a value). Seeds: seeds/methods/.
#include "harness.h"
#include "registry.h"

namespace {

constexpr std::size_t reader_count() {
  std::size_t n = 0;
  serbench::for_each_reader([&](auto) { ++n; });
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace serbench;
  if (size == 0) return 0;
  const std::size_t pick = data[0] % reader_count();
  std::size_t n = 0;
  for_each_reader([&](auto method) {
    using Meth = typename decltype(method)::type;
    if (n++ == pick) fuzz::decoder<Meth>({data + 1, size - 1}, validating_variant<Meth>(), false);
  });
  return 0;
}
