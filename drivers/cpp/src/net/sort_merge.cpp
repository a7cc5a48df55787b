// `net_sort_merge` (PROTOCOL.md 10.7): a tree sort of any model by its total order. Every node
// holds a partition of native objects (decoded at setup); per repetition it sorts a copy,
// merges it with its children's sorted streams (each decoded a network page at a time, so a
// node holds a network page per child, not their data) and streams the merged sequence up in
// network pages, or, at the root, writes it as the paged file `<output>/sorted` (fsynced).
// Ties go to the node's own objects, then to its children in name order.

#include <algorithm>
#include <deque>
#include <optional>
#include <vector>

#include "model/order.h"
#include "net/dispatch.h"
#include "net/pages.h"
#include "net/tasks.h"
#include "paged/reader.h"
#include "paged/writer.h"
#include "tasks/task.h"

namespace serbench::net {

namespace {

// One child's sorted stream, decoded a network page at a time.
template <class Meth, class M>
class Incoming {
 public:
  explicit Incoming(Link& link) : link_(&link) {}

  // The next object of the stream; nullopt at its end.
  std::optional<M> next(Meth& method, uint32_t page_size, IoTimer& timer) {
    while (ready_.empty() && !ended_) {
      const FrameKind kind = link_->recv(payload_, timer);
      if (kind == FrameKind::end) {
        check_end({payload_.data(), payload_.size()}, arrived_, page_size, link_->peer);
        ended_ = true;
      } else if (kind == FrameKind::pages) {
        const auto [count, pages] = for_each_object(
            {payload_.data(), payload_.size()}, page_size, link_->peer, arrived_.frames,
            [&](const Entry&, std::span<const uint8_t> bytes) {
              ready_.push_back(method.template decode<M>(bytes));
            });
        arrived_.add(count, pages);
      } else {
        throw PeerFailure(link_->peer, "a " + std::string(frame_kind_name(kind)) +
                                           " frame inside a stream");
      }
    }
    if (ready_.empty()) return std::nullopt;
    std::optional<M> out(std::move(ready_.front()));
    ready_.pop_front();
    return out;
  }

 private:
  Link* link_;
  Bytes payload_;
  Streamed arrived_;
  std::deque<M> ready_;
  bool ended_ = false;
};

template <class Meth, class M>
class TreeSort final : public Role {
 public:
  explicit TreeSort(const Setup& setup) {
    const Params& params = setup.params;
    const std::string input = params.path("input");
    const uint64_t start = params.u64("start"), n = params.u64("n");
    IoTimer timer;
    Bytes page;
    PageReader reader(input, Expect{model_name<M>(), Meth::id, std::nullopt}, timer, page);
    check_range(input, start, n, reader.count());
    page_size_ = reader.header().page_size;
    budget_ = net_page_bytes(params.u64_or("net_page_bytes", kDefaultNetPage), page_size_,
                             net_frame_bytes(params));
    if (params.has("output")) output_ = params.path("output") + "/sorted";
    partition_.reserve(n);
    for (uint64_t k = start; k < start + n; ++k) {
      try {
        partition_.push_back(method_.template decode<M>(reader.object(k)));
      } catch (const DecodeError& d) {
        throw corrupt(input + ": object " + std::to_string(k) + ": " + d.text());
      }
    }
  }

  void check_links(const Links& links) override {
    check_tree_links("net_sort_merge", links, output_.has_value());
  }

  Outcome repetition(Links& links, IoTimer& timer) override {
    // a sorted view of the held objects (which stay as they are for the next repetition)
    std::vector<const M*> own;
    own.reserve(partition_.size());
    for (const M& o : partition_) own.push_back(&o);
    std::sort(own.begin(), own.end(),
              [](const M* a, const M* b) { return total_compare(*a, *b) < 0; });
    std::size_t own_next = 0;
    std::vector<Incoming<Meth, M>> children;
    for (Link& l : links.accepted) children.emplace_back(l);
    std::vector<std::optional<M>> heads;
    for (auto& child : children) heads.push_back(child.next(method_, page_size_, timer));

    Link* parent = links.dialed.empty() ? nullptr : &links.dialed[0];
    std::optional<Packer> packer;
    std::optional<PageWriter> writer;
    if (parent) {
      packer.emplace(page_size_, budget_);
    } else {
      writer.emplace(*output_, page_size_, timer);
    }
    uint64_t count = 0;
    Hasher sequence;
    SetChecksum set;
    const M* previous = nullptr;
    std::optional<M> last_from_child;  // what `previous` points at when a child gave it
    for (;;) {
      // the smallest head: the node's own first on ties, then children in name order
      const M* best = own_next < own.size() ? own[own_next] : nullptr;
      std::optional<std::size_t> pick;
      for (std::size_t i = 0; i < heads.size(); ++i) {
        if (heads[i] && (!best || total_compare(*heads[i], *best) < 0)) {
          best = &*heads[i];
          pick = i;
        }
      }
      if (!best) break;
      if (previous && total_compare(*best, *previous) < 0) {
        throw corrupt("object " + std::to_string(count) +
                      " of the merge is smaller than the one before it: a child's stream is "
                      "not sorted");
      }
      const uint64_t hash = object_hash(*best);
      sequence.word(hash);
      set.add(hash);
      ++count;
      auto encode = [&](Bytes& out) { method_.template encode<M>(*best, out); };
      if (packer) {
        packer->push(Meth::alignment, encode, *parent, timer);
      } else {
        writer->push(Meth::alignment, encode);
      }
      if (pick) {
        last_from_child = std::move(*heads[*pick]);
        previous = &*last_from_child;
        heads[*pick] = children[*pick].next(method_, page_size_, timer);
      } else {
        previous = own[own_next++];
      }
    }
    if (packer) {
      const Streamed sent = packer->finish(*parent, timer);
      parent->send_json(FrameKind::end, end_summary(sent, page_size_), timer);
    } else {
      writer->finish(model_name<M>(), Meth::id, kWriter);
    }
    Outcome out{count, set, {}};
    out.extra.emplace_back("sequence", hex64(sequence.finish()));
    return out;
  }

 private:
  Meth method_;
  std::vector<M> partition_;
  uint32_t page_size_ = 0;
  std::size_t budget_ = 0;
  std::optional<std::string> output_;
};

}  // namespace

void run_sort_merge(const Setup& setup, Node& node) {
  if (setup.role != "tree") throw bad_request("net_sort_merge role '" + setup.role + "': tree");
  with_method_model(setup, [&]<class Meth, class M>() {
    TreeSort<Meth, M> role(setup);
    node.drive(role);
  });
}

}  // namespace serbench::net
