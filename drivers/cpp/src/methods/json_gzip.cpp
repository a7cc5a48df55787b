#include "methods/json_gzip.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <string>

#include "methods/instantiate.h"

namespace serbench {

namespace {

// windowBits 15 plus 16: a gzip wrapper instead of zlib's.
constexpr int kGzipWindow = 15 + 16;
// Deflate cannot expand data by more than this factor: it bounds what a corrupted member
// can make the reader allocate.
constexpr std::size_t kMaxRatio = 1032;

}  // namespace

struct JsonGzip::Streams {
  z_stream deflate{};
  z_stream inflate{};
  // the contract's header: no flags, MTIME 0, OS 255 (zlib derives XFL 0 from level 6)
  gz_header header{};
  Streams() {
    header.os = 255;
    if (deflateInit2(&deflate, kLevel, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK ||
        inflateInit2(&inflate, kGzipWindow) != Z_OK) {
      throw std::bad_alloc();
    }
  }
  ~Streams() {
    deflateEnd(&deflate);
    inflateEnd(&inflate);
  }
  Streams(const Streams&) = delete;
  Streams& operator=(const Streams&) = delete;
};

JsonGzip::JsonGzip() : streams_(std::make_unique<Streams>()) {}
JsonGzip::~JsonGzip() = default;

Json JsonGzip::settings() {
  return Json::object({{"gzip_level", kLevel}, {"gzip_backend", "zlib " + std::string(zlibVersion())}});
}

template <class M>
void JsonGzip::encode(const M& value, Bytes& out) {
  text_.clear();
  json_.encode(value, text_);
  z_stream& z = streams_->deflate;
  deflateReset(&z);
  deflateSetHeader(&z, &streams_->header);
  const std::size_t start = out.size();
  const std::size_t bound = deflateBound(&z, uLong(text_.size()));
  uint8_t* dst = out.grow_zeroed(bound);
  z.next_in = text_.data();
  z.avail_in = uInt(text_.size());
  z.next_out = dst;
  z.avail_out = uInt(bound);
  // the bound holds the whole member, so one call finishes it
  if (::deflate(&z, Z_FINISH) != Z_STREAM_END) throw Failure(Kind::internal, "deflate did not finish");
  out.resize(start + (bound - z.avail_out));
}

std::span<const uint8_t> JsonGzip::inflate(std::span<const uint8_t> bytes) {
  z_stream& z = streams_->inflate;
  inflateReset(&z);
  const std::size_t limit = bytes.size() * kMaxRatio;
  text_.clear();
  // the trailer states the size (mod 2^32): a first guess at the output, within the bound
  std::size_t guess = bytes.size() * 4;
  if (bytes.size() >= 4) {
    uint32_t stated;
    std::memcpy(&stated, bytes.data() + bytes.size() - 4, 4);
    if (stated <= limit) guess = std::max<std::size_t>(stated, 1);
  }
  text_.resize(std::min(guess, limit));
  z.next_in = const_cast<Bytef*>(bytes.data());  // zlib never writes its input
  z.avail_in = uInt(bytes.size());
  std::size_t produced = 0;
  for (;;) {
    z.next_out = text_.data() + produced;
    z.avail_out = uInt(text_.size() - produced);
    const int status = ::inflate(&z, Z_NO_FLUSH);
    produced = text_.size() - z.avail_out;
    const std::size_t at = bytes.size() - z.avail_in;
    if (status == Z_STREAM_END) break;
    if (status == Z_DATA_ERROR) decode_error(at, std::string("gzip member: ") + (z.msg ? z.msg : "bad data"));
    if (status == Z_MEM_ERROR) throw std::bad_alloc();
    if (z.avail_in == 0) decode_error(at, "truncated gzip member");
    if (z.avail_out == 0) {
      if (text_.size() >= limit) decode_error(at, "gzip member inflates beyond any deflate ratio");
      text_.resize(std::min(text_.size() * 2, limit));
    }
  }
  if (z.avail_in != 0) {
    decode_error(bytes.size() - z.avail_in,
                 std::to_string(z.avail_in) + " trailing bytes after the gzip member");
  }
  return {text_.data(), produced};
}

template <class M>
M JsonGzip::decode(std::span<const uint8_t> bytes) {
  return json_.decode<M>(inflate(bytes));
}

template <class M>
void JsonGzip::fold(std::span<const uint8_t> bytes, const ReadMode& mode, Hasher& h) {
  if (mode.depth != Depth::materialize && mode.depth != Depth::access) depth_error(id, mode.depth);
  json_.fold<M>(inflate(bytes), mode, h);
}

SERBENCH_INSTANTIATE(JsonGzip)

}  // namespace serbench
