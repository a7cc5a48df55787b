#pragma once
// `micro` (PROTOCOL.md 5.4): encode and decode in memory, hot. A pass encodes the first n
// objects in order, then decodes and visits every encoded object at the cell's depth
// (folding its hash: the read tasks' per-object work without pages). `fresh` gives every
// object a new buffer, as a naive caller would (released after the pass's decode loop);
// `reused` appends all objects to one buffer, cleared each pass, that keeps its capacity.

#include "tasks/task.h"

namespace serbench {

struct Micro {
  static constexpr std::string_view id = "micro";

  template <class M, class Meth>
  static Json run(Meth& method, const TaskRequest& request) {
    if constexpr (!Meth::writes) {
      throw unsupported(std::string(Meth::id) + " encodes nothing");
    } else {
      return measure<M>(method, request);
    }
  }

 private:
  struct Extent {
    std::size_t start, length;
  };

  // What every repetition must reproduce.
  struct Outcome {
    SetChecksum checksum;
    uint64_t encoded_bytes = 0;
    bool operator==(const Outcome&) const = default;
  };

  // The objects' encodings of one pass, in one of the two buffer disciplines.
  struct Encoded {
    bool fresh;
    std::vector<Bytes> own;  // fresh: one buffer per object
    Bytes shared;            // reused: every object, back to back at its method's alignment
    std::vector<Extent> extents;

    std::span<const uint8_t> object(std::size_t i) const {
      if (fresh) return {own[i].data(), own[i].size()};
      return {shared.data() + extents[i].start, extents[i].length};
    }
  };

  template <class M, class Meth>
  static Json measure(Meth& method, const TaskRequest& request) {
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string input = params.path("input");
    const uint64_t n = params.u64("n");
    const uint64_t iterations = params.u64("iterations");
    const std::string buffer = params.string("buffer");
    if (n == 0) throw bad_request("params.n must be at least 1");
    if (iterations == 0) throw bad_request("params.iterations must be at least 1");
    if (buffer != "fresh" && buffer != "reused") {
      throw bad_request("params.buffer must be \"fresh\" or \"reused\", got \"" + buffer + "\"");
    }
    std::vector<M> objects = load_json_lines<M>(input);
    if (n > objects.size()) out_of_range(input, "objects 0.." + std::to_string(n), objects.size());
    objects.erase(objects.begin() + std::ptrdiff_t(n), objects.end());
    Encoded encoded{buffer == "fresh", {}, {}, {}};
    encoded.own.reserve(n);
    encoded.extents.reserve(n);
    // cold is ignored: micro reads no file
    auto [samples, outcome] = reps.run(nullptr, [&](Sample& sample) {
      Outcome out;
      uint64_t encode_ns = 0, decode_ns = 0;
      for (uint64_t pass = 0; pass < iterations; ++pass) {
        const uint64_t t0 = now_ns();
        encode_all(method, objects, encoded);
        const uint64_t t1 = now_ns();
        const SetChecksum checksum = decode_all<M>(method, request.mode, encoded, n);
        const uint64_t t2 = now_ns();
        encode_ns += t1 - t0;
        decode_ns += t2 - t1;
        if (pass == 0) {
          out.checksum = checksum;
          for (std::size_t i = 0; i < n; ++i) out.encoded_bytes += encoded.object(i).size();
        } else if (checksum != out.checksum) {
          throw Failure(Kind::checksum_mismatch, "micro pass " + std::to_string(pass) +
                                                     " decoded another set checksum than pass 0");
        }
        encoded.own.clear();
      }
      sample.set("encode_ns", encode_ns);
      sample.set("decode_ns", decode_ns);
      return out;
    });
    return Json::object({{"samples", std::move(samples)},
                         {"counters", Json::object({{"objects", n},
                                                    {"iterations", iterations},
                                                    {"encoded_bytes", outcome.encoded_bytes},
                                                    {"buffer", buffer}})},
                         {"checksum", checksum_json(outcome.checksum)},
                         {"eviction", "none"}});
  }

  template <class M, class Meth>
  static void encode_all(Meth& method, const std::vector<M>& objects, Encoded& encoded) {
    if (encoded.fresh) {
      for (const M& object : objects) method.template encode<M>(object, encoded.own.emplace_back());
      return;
    }
    encoded.shared.clear();
    encoded.extents.clear();
    for (const M& object : objects) {
      const std::size_t start =
          (encoded.shared.size() + Meth::alignment - 1) / Meth::alignment * Meth::alignment;
      encoded.shared.resize(start);
      method.template encode<M>(object, encoded.shared);
      encoded.extents.push_back({start, encoded.shared.size() - start});
    }
  }

  template <class M, class Meth>
  static SetChecksum decode_all(Meth& method, const ReadMode& mode, const Encoded& encoded,
                                std::size_t n) {
    SetChecksum checksum;
    std::size_t i = 0;
    try {
      for (; i < n; ++i) {
        Hasher h;
        method.template fold<M>(encoded.object(i), mode, h);
        checksum.add(h.finish());
      }
    } catch (const DecodeError& e) {
      throw Failure(Kind::checksum_mismatch, "micro object " + std::to_string(i) +
                                                 ": reading back its own encoding failed: " +
                                                 e.text());
    }
    return checksum;
  }
};

}  // namespace serbench
