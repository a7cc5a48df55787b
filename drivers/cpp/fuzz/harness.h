#pragma once
// What the libFuzzer targets of targets/ run (one call each).
// A bad input must come back as a DecodeError or a Failure; anything else is a finding:
// a sanitizer report, another exception, or a broken promise checked below (abort).
//
// Input formats, the same as the Rust driver's (the first byte picks the model):
// - decoder: [model byte][one object's bytes]
// - paged:   [flags][index length, u32 LE][index file][data file]; flags: bits 0-2 the
//            model, bit 3 read through `raw` instead of `handcoded`, bit 4 recompute the
//            entries hash first (so mutated entries reach the entry checks and the reads).

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "methods/handcoded.h"
#include "methods/inplace.h"
#include "methods/raw.h"
#include "model/model_id.h"
#include "model/order.h"
#include "tasks/task.h"

namespace serbench::fuzz {

inline constexpr uint8_t kRawBit = 1 << 3;
inline constexpr uint8_t kFixHashBit = 1 << 4;

// A broken promise of a reader: abort, so libFuzzer keeps the input.
inline void promise(bool kept, const char* what) {
  if (kept) return;
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::abort();
}

inline ModelId model_of(uint8_t byte) { return ModelId(byte % kModelCount); }

// Decodes one object of model M with Meth at every depth, in read mode `variant`. When the
// bytes decode, every depth gives the decoded value's checksum, and the value encodes to
// bytes that decode to it again (`canonical`: to the very same bytes).
template <class Meth, class M>
bool decode_as(std::span<const uint8_t> bytes, std::size_t variant, bool canonical) {
  Meth method;
  std::optional<M> value;
  try {
    value = method.template decode<M>(bytes);
  } catch (const DecodeError&) {
  }
  for (Depth depth : Meth::depths) {
    Hasher h;
    bool folded = true;
    try {
      method.template fold<M>(bytes, ReadMode{depth, variant}, h);
    } catch (const DecodeError&) {
      folded = false;
    }
    promise(folded == value.has_value(), "a depth and decode disagree on whether it is valid");
    if (folded) promise(h.finish() == object_hash(*value), "a depth's checksum differs");
  }
  if (!value) return false;
  Bytes again;
  method.template encode<M>(*value, again);
  if (canonical) {
    promise(again.size() == bytes.size() && std::memcmp(again.data(), bytes.data(), bytes.size()) == 0,
            "the encoding of the decoded value differs");
  }
  const M back = method.template decode<M>(std::span<const uint8_t>(again.data(), again.size()));
  promise(total_equal(back, *value), "re-encoding changed the value");
  return true;
}

// The object is copied into a 64-byte aligned buffer first, as a page read puts it. Returns
// whether it decoded.
template <class Meth>
bool decoder(std::span<const uint8_t> data, std::size_t variant, bool canonical) {
  if (data.empty()) return false;
  Bytes object;
  object.append(data.data() + 1, data.size() - 1);
  const std::span<const uint8_t> bytes(object.data(), object.size());
  return with_model(model_of(data[0]), [&](auto model) {
    return decode_as<Meth, typename decltype(model)::type>(bytes, variant, canonical);
  });
}

struct PagedInput {
  uint8_t flags;
  std::span<const uint8_t> index, pages;
};

inline std::optional<PagedInput> split_paged(std::span<const uint8_t> data) {
  if (data.size() < 5) return std::nullopt;
  uint32_t len;
  std::memcpy(&len, data.data() + 1, 4);
  if (len > data.size() - 5) return std::nullopt;
  return PagedInput{data[0], data.subspan(5, len), data.subspan(5 + len)};
}

// Rewrites the header's entries hash over the entries the index holds (a whole number of
// them, whatever the header's count says).
inline void fix_entries_hash(std::string& index) {
  if (index.size() < kHeaderBytes) return;
  EntriesHash hash;
  for (std::size_t at = kHeaderBytes; at + kEntryBytes <= index.size(); at += kEntryBytes) {
    hash.add(Entry::from_bytes(reinterpret_cast<const uint8_t*>(index.data()) + at));
  }
  const uint64_t sum = hash.finish();
  std::memcpy(index.data() + 40, &sum, 8);
}

// One file base per process (libFuzzer's forks and jobs are processes), reused by every
// input.
inline const std::string& scratch_base() {
  static const std::string base = [] {
    auto dir = std::filesystem::temp_directory_path() /
               ("serbench-fuzz-cpp-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    return (dir / "input").string();
  }();
  return base;
}

inline void write_whole(const std::string& path, const void* bytes, std::size_t n) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  promise(f != nullptr, "cannot create the fuzz scratch file");
  promise(std::fwrite(bytes, 1, n, f) == n && std::fclose(f) == 0,
          "cannot write the fuzz scratch file");
}

// Reads a paged file (index and data from the input) with the driver's real reader, and
// every object with `handcoded` (or `raw`), as read_seq does. Failures are the expected
// outcome of most inputs; nullopt when the input does not split.
inline std::optional<ReadOutcome> paged(std::span<const uint8_t> data) {
  const auto input = split_paged(data);
  if (!input) return std::nullopt;
  std::string index(reinterpret_cast<const char*>(input->index.data()), input->index.size());
  if (input->flags & kFixHashBit) fix_entries_hash(index);
  const std::string& base = scratch_base();
  write_whole(index_path(base), index.data(), index.size());
  write_whole(data_path(base), input->pages.data(), input->pages.size());
  auto read = [&]<class Meth>(Meth method, auto model) {
    using M = typename decltype(model)::type;
    const ReadMode mode{Meth::depths.empty() ? Depth::none : Meth::depths.back(), 0};
    IoTimer timer;
    Bytes page;
    return read_objects<M>(method, mode, base, Selection{}, std::nullopt, timer, page);
  };
  try {
    return with_model(model_of(input->flags), [&](auto model) {
      return input->flags & kRawBit ? read(Raw{}, model) : read(Handcoded{}, model);
    });
  } catch (const Failure&) {
    return std::nullopt;
  }
}

}  // namespace serbench::fuzz
