#pragma once
// `read_par` (PROTOCOL.md 5.1): T threads read disjoint contiguous slices of the selection
// (objects start..start+n, or the first n ids), each exactly like read_seq / read_rand with
// its own method instance, file handles, index check and page buffer. The threads wait at a
// latch and start together; each reports its own time (`thread_ns`), and the sample's io
// is the mean of the threads' time inside read calls.

#include <exception>
#include <latch>
#include <memory>
#include <thread>

#include "tasks/read_rand.h"

namespace serbench {

struct ReadPar {
  static constexpr std::string_view id = "read_par";
  // More threads than this is a request error, not a measurement.
  static constexpr uint64_t kMaxThreads = 1024;

  template <class M, class Meth>
  static Json run(Meth&, const TaskRequest& request) {
    const Params& params = request.params;
    Repetitions reps(params);
    const std::string base = params.path("input");
    const uint64_t threads = params.u64("threads");
    if (threads == 0 || threads > kMaxThreads) {
      throw bad_request("params.threads must be 1.." + std::to_string(kMaxThreads) + ", got " +
                        std::to_string(threads));
    }
    const std::string mode = params.string("mode");
    const uint64_t n = params.u64("n");
    std::vector<uint64_t> ids;
    uint64_t start = 0;
    if (mode == "seq") {
      start = params.u64("start");
    } else if (mode == "rand") {
      ids = read_ids(params.path("ids"), n);
    } else {
      throw bad_request("params.mode must be \"seq\" or \"rand\", got \"" + mode + "\"");
    }
    auto slice = [&](uint64_t t) {
      const uint64_t from = t * n / threads, to = (t + 1) * n / threads;
      if (mode == "seq") return Selection{Selection::Kind::range, start + from, to - from, {}};
      return Selection{Selection::Kind::ids, 0, to - from,
                       std::span<const uint64_t>(ids).subspan(from, to - from)};
    };
    const auto page_size = params.page_size();
    // per thread, reused by every repetition (a method may keep reusable state)
    auto methods = std::make_unique<Meth[]>(threads);
    std::vector<Bytes> pages(threads);
    auto [samples, outcome] = reps.run(&base, [&](Sample& sample) {
      std::vector<Slice> slices(threads);
      std::latch go{std::ptrdiff_t(threads)};
      {
        std::vector<std::jthread> running;
        for (uint64_t t = 0; t < threads; ++t) {
          auto body = [&, t] {
            Slice& s = slices[t];
            go.arrive_and_wait();
            const uint64_t begin = now_ns();
            try {
              s.read = read_objects<M>(methods[t], request.mode, base, slice(t), page_size,
                                       s.io, pages[t]);
            } catch (...) {
              s.failure = std::current_exception();
            }
            s.ns = now_ns() - begin;
          };
          try {
            running.emplace_back(body);
          } catch (...) {
            go.count_down(std::ptrdiff_t(threads - t));  // release the started ones
            throw;
          }
        }
      }  // joined
      return combine(slices, sample);
    });
    return Json::object({{"samples", std::move(samples)},
                         {"counters", Json::object({{"objects", outcome.checksum.count},
                                                    {"threads", threads},
                                                    {"pages_read", outcome.pages_read}})},
                         {"checksum", checksum_json(outcome.checksum)},
                         {"eviction", reps.eviction()}});
  }

 private:
  // What one thread did in one repetition.
  struct Slice {
    ReadOutcome read;
    IoTimer io;
    uint64_t ns = 0;
    std::exception_ptr failure;
  };

  // The first thread's failure, else the union of the slices; fills the sample's io (the
  // mean over threads) and thread_ns.
  static ReadOutcome combine(const std::vector<Slice>& slices, Sample& sample) {
    ReadOutcome all;
    Json::Array thread_ns;
    uint64_t io = 0;
    for (const Slice& s : slices) {
      if (s.failure) std::rethrow_exception(s.failure);
      all.checksum.count += s.read.checksum.count;
      all.checksum.sum += s.read.checksum.sum;
      all.pages_read += s.read.pages_read;
      io += s.io.ns();
      thread_ns.emplace_back(s.ns);
    }
    all.writer = slices.front().read.writer;
    sample.io.add(io / slices.size());
    sample.set("thread_ns", Json(std::move(thread_ns)));
    return all;
  }
};

}  // namespace serbench
