// A network node's untrusted input (PROTOCOL.md 10.2, 10.3): frame headers, hellos, and a
// pages frame's entries with every object they admit decoded by `handcoded`. The input is
// the Rust driver's `net` target's, so both start from drivers/rust/fuzz/seeds/net:
// [page size byte: 64 << (b % 8)][model byte][frame payload (or a header, or a hello)].
#include "harness.h"
#include "net/pages.h"
#include "net/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace serbench;
  if (size < 2) return 0;
  const uint32_t page_size = 64u << (data[0] % 8);
  const ModelId model = fuzz::model_of(data[1]);
  // copied into an aligned buffer, as a received frame's payload lies
  Bytes payload;
  payload.append(data + 2, size - 2);
  const std::span<const uint8_t> frame(payload.data(), payload.size());
  if (frame.size() >= net::kFrameHeader) {
    try {
      const auto [kind, len] =
          net::parse_header(std::span<const uint8_t, net::kFrameHeader>(frame.data(), 5),
                            net::kMaxFrame, "fuzz");
      fuzz::promise(len <= net::kMaxFrame && uint8_t(kind) >= 1 && uint8_t(kind) <= 6,
                    "a header accepted beyond its rules");
    } catch (const net::PeerFailure&) {
    }
  }
  try {
    net::Hello::parse(frame, "fuzz");
  } catch (const net::PeerFailure&) {
  }
  try {
    net::for_each_object(frame, page_size, "fuzz", 0, [&](const Entry&, auto bytes) {
      fuzz::promise(bytes.data() >= frame.data() && !bytes.empty() &&
                        bytes.data() + bytes.size() <= frame.data() + frame.size(),
                    "an entry admitted an object outside its frame");
      with_model(model, [&](auto m) {
        return fuzz::decode_as<Handcoded, typename decltype(m)::type>(bytes, 0, false);
      });
    });
  } catch (const Failure&) {
  }
  return 0;
}
