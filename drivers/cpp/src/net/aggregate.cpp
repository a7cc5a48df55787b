// `net_aggregate` (PROTOCOL.md 10.6): a binary tree sums sparse vectors. Each node holds one
// vector (its JSON Lines input); per repetition it receives every child's stream (a thread
// per child), decodes the one vector each holds and sums its own vector, then each child's
// sum in name order: entries merged by position, values added where both have one (the order
// fixes the floating-point result). A node with a parent sends the sum up as one stream; the
// root writes it as the paged file `<output>/sum` (fsynced).

#include <exception>
#include <thread>
#include <type_traits>
#include <vector>

#include "net/aggregate.h"
#include "net/dispatch.h"
#include "net/pages.h"
#include "net/tasks.h"
#include "tasks/task.h"

namespace serbench::net {

SparseVector merge_sum(const SparseVector& a, const SparseVector& b) {
  if (a.dimension != b.dimension) {
    throw corrupt("vectors of dimensions " + std::to_string(a.dimension) + " and " +
                  std::to_string(b.dimension) + " cannot be summed");
  }
  const auto &x = a.entries, &y = b.entries;
  SparseVector out;
  out.dimension = a.dimension;
  out.entries.reserve(x.size() + y.size());
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (x[i].position < y[j].position) {
      out.entries.push_back(x[i++]);
    } else if (y[j].position < x[i].position) {
      out.entries.push_back(y[j++]);
    } else {
      auto e = x[i++];
      e.value += y[j++].value;
      out.entries.push_back(e);
    }
  }
  out.entries.insert(out.entries.end(), x.begin() + i, x.end());
  out.entries.insert(out.entries.end(), y.begin() + j, y.end());
  return out;
}

namespace {

template <class Meth>
class TreeSum final : public Role {
 public:
  explicit TreeSum(const Setup& setup) {
    const Params& params = setup.params;
    const std::string input = params.path("input");
    std::vector<SparseVector> vectors = load_json_lines<SparseVector>(input);
    if (vectors.size() != 1) {
      throw bad_request(input + ": a node's input holds its one vector, this holds " +
                        std::to_string(vectors.size()));
    }
    own_ = std::move(vectors[0]);
    page_size_ = params.page_size().value_or(kDefaultPageSize);
    budget_ = net_page_bytes(params.u64_or("net_page_bytes", kDefaultNetPage), page_size_,
                             net_frame_bytes(params));
    if (params.has("output")) output_ = params.path("output") + "/sum";
  }

  void check_links(const Links& links) override {
    check_tree_links("net_aggregate", links, output_.has_value());
  }

  Outcome repetition(Links& links, IoTimer& timer) override {
    const std::size_t n = links.accepted.size();
    std::vector<SparseVector> received(n);
    std::vector<uint64_t> io(n);
    std::vector<std::exception_ptr> failed(n);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        try {
          IoTimer t;
          received[i] = receive(links.accepted[i], t);
          io[i] = t.ns();
        } catch (...) {
          failed[i] = std::current_exception();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (auto& f : failed) {
      if (f) std::rethrow_exception(f);
    }
    if (n > 0) {
      uint64_t total = 0;
      for (uint64_t ns : io) total += ns;
      timer.add(total / n);
    }
    SparseVector sum = own_;
    for (const SparseVector& child : received) sum = merge_sum(sum, child);
    SetChecksum checksum;
    checksum.add(object_hash(sum));
    if (!links.dialed.empty()) {
      Link& parent = links.dialed[0];
      Packer packer(page_size_, budget_);
      packer.push(
          Meth::alignment, [&](Bytes& out) { method_.template encode<SparseVector>(sum, out); },
          parent, timer);
      const Streamed sent = packer.finish(parent, timer);
      parent.send_json(FrameKind::end, end_summary(sent, page_size_), timer);
    } else {
      const std::vector<SparseVector> one{sum};
      write_file(method_, one, *output_, page_size_, timer);
    }
    Outcome out{1, checksum, {}};
    out.extra.emplace_back("entries", uint64_t(sum.entries.size()));
    return out;
  }

 private:
  // One child's vector: its stream received, checked and decoded.
  SparseVector receive(Link& link, IoTimer& timer) {
    Bytes payload;
    Meth method;
    std::vector<SparseVector> vectors;
    Streamed arrived;
    for (;;) {
      const FrameKind kind = link.recv(payload, timer);
      if (kind == FrameKind::end) break;
      if (kind != FrameKind::pages) {
        throw PeerFailure(link.peer, "a " + std::string(frame_kind_name(kind)) +
                                         " frame inside a stream");
      }
      const auto [count, pages] = for_each_object(
          {payload.data(), payload.size()}, page_size_, link.peer, arrived.frames,
          [&](const Entry&, std::span<const uint8_t> bytes) {
            vectors.push_back(method.template decode<SparseVector>(bytes));
          });
      arrived.add(count, pages);
    }
    check_end({payload.data(), payload.size()}, arrived, page_size_, link.peer);
    if (vectors.size() != 1) {
      throw PeerFailure(link.peer, "sent " + std::to_string(vectors.size()) + " vectors, not one");
    }
    return std::move(vectors[0]);
  }

  Meth method_;
  SparseVector own_;
  uint32_t page_size_ = 0;
  std::size_t budget_ = 0;
  std::optional<std::string> output_;
};

}  // namespace

void run_aggregate(const Setup& setup, Node& node) {
  if (setup.role != "tree") throw bad_request("net_aggregate role '" + setup.role + "': tree");
  with_method_model(setup, [&]<class Meth, class M>() {
    if constexpr (std::is_same_v<M, SparseVector>) {
      TreeSum<Meth> role(setup);
      node.drive(role);
    } else {
      throw unsupported("net_aggregate sums sparse vectors, not " + setup.model);
    }
  });
}

}  // namespace serbench::net
