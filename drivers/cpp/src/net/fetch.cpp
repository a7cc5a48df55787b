// `net_fetch` (PROTOCOL.md 10.5): S servers each hold objects start .. start+n of their paged
// file; one client asks every server at once (a connection and a thread per server) and
// appends what arrives to one paged file per server, fsynced. Variants: `ram` (the server
// holds its objects natively and encodes them per request; a method whose native objects
// ARE their page bytes, read by a cast, holds those pages and sends them as they are),
// `disk` (the server opens and checks its file per request and ships the stored pages
// holding its objects, no decode or encode) and `decode` (served as disk; the client also
// decodes every object at the cell's depth and reports the set checksum).

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

#include "net/dispatch.h"
#include "net/pages.h"
#include "net/tasks.h"
#include "paged/reader.h"
#include "tasks/task.h"

namespace serbench::net {

namespace {

// A method whose native object is a view of its stored bytes (a cast over a page): in RAM
// it lives in pages already, so serving it encodes nothing.
template <class Meth, class M>
concept NativeInPages = requires(std::span<const uint8_t> bytes) {
  Meth::template view<M>(bytes, true);
};

template <class Meth, class M>
Expect expect_own() {
  return Expect{model_name<M>(), Meth::id, std::nullopt};
}

// A paged file's index, checked, and its data file open for page reads.
struct OpenFile {
  File data;
  Index index;
  OpenFile(const std::string& base, const Expect& expect, IoTimer& timer)
      : data(File::open_read(data_path(base), timer)),
        index(Index::parse(index_path(base), read_whole(index_path(base), timer), data.size(),
                           expect)) {}
  std::vector<Entry> entries(uint64_t start, uint64_t n) const {
    std::vector<Entry> out;
    out.reserve(n);
    for (uint64_t k = start; k < start + n; ++k) out.push_back(index.entry(k));
    return out;
  }
};

template <class Meth, class M>
class Server final : public Role {
 public:
  Server(const Setup& setup, bool ram)
      : input_(setup.params.path("input")),
        start_(setup.params.u64("start")),
        n_(setup.params.u64("n")) {
    IoTimer timer;
    OpenFile file(input_, expect_own<Meth, M>(), timer);
    check_range(input_, start_, n_, file.index.count());
    page_size_ = file.index.header().page_size;
    budget_ = net_page_bytes(setup.params.u64_or("net_page_bytes", kDefaultNetPage), page_size_,
                             net_frame_bytes(setup.params));
    if (!ram) return;
    ram_ = true;
    if constexpr (NativeInPages<Meth, M>) {
      // the pages holding the objects, read once; each object checked where it lies
      held_entries_ = file.entries(start_, n_);
      if (n_ == 0) return;
      const uint64_t first = held_entries_.front().page;
      uint64_t last = first;
      for (const Entry& e : held_entries_) last = std::max(last, e.page + e.pages(page_size_) - 1);
      const uint64_t from = first * page_size_;
      const uint64_t to = std::min((last + 1) * page_size_, file.index.header().data_len);
      held_.resize(to - from);
      file.data.read_exact(held_.data(), held_.size(), from);
      for (uint64_t k = 0; k < n_; ++k) {
        Entry& e = held_entries_[k];
        e.page -= first;
        try {
          Meth::template view<M>({held_.data() + e.start(page_size_), e.length}, true);
        } catch (const DecodeError& d) {
          throw corrupt(input_ + ": object " + std::to_string(start_ + k) + ": " + d.text());
        }
      }
    } else {
      // held as native objects, as a data system holds what it serves from memory
      objects_.reserve(n_);
      Bytes page;
      PageReader reader(input_, expect_own<Meth, M>(), timer, page);
      for (uint64_t k = start_; k < start_ + n_; ++k) {
        try {
          objects_.push_back(method_.template decode<M>(reader.object(k)));
        } catch (const DecodeError& d) {
          throw corrupt(input_ + ": object " + std::to_string(k) + ": " + d.text());
        }
      }
    }
  }

  void check_links(const Links& links) override {
    if (links.accepted.size() != 1 || !links.dialed.empty()) {
      throw bad_request("a net_fetch server is dialed by one client and dials no one");
    }
  }

  Outcome repetition(Links& links, IoTimer& timer) override {
    Link& link = links.accepted[0];
    link.recv_json(FrameKind::request, timer);
    const Streamed streamed = stream(link, timer);
    link.send_json(FrameKind::end, end_summary(streamed, page_size_), timer);
    return Outcome{streamed.objects, std::nullopt, {}};
  }

 private:
  Streamed stream(Link& link, IoTimer& timer) {
    if (ram_) {
      if constexpr (NativeInPages<Meth, M>) {
        const PageSource source = [this](uint64_t from, std::size_t n) {
          return std::span<const uint8_t>(held_.data() + from, n);
        };
        return ship(held_entries_, page_size_, held_.size(), budget_, source, link, timer);
      } else {
        Packer packer(page_size_, budget_);
        for (const M& object : objects_) {
          packer.push(
              Meth::alignment, [&](Bytes& out) { method_.template encode<M>(object, out); }, link,
              timer);
        }
        return packer.finish(link, timer);
      }
    }
    // opening and checking the index is part of serving from disk
    OpenFile file(input_, expect_own<Meth, M>(), timer);
    check_range(input_, start_, n_, file.index.count());
    const PageSource source = [&](uint64_t from, std::size_t n) {
      buffer_.resize(n);
      file.data.read_exact(buffer_.data(), n, from);
      return std::span<const uint8_t>(buffer_.data(), n);
    };
    return ship(file.entries(start_, n_), file.index.header().page_size,
                file.index.header().data_len, budget_, source, link, timer);
  }

  Meth method_;
  std::string input_;
  uint64_t start_, n_;
  uint32_t page_size_ = 0;
  std::size_t budget_ = 0;
  bool ram_ = false;
  std::vector<M> objects_;
  Bytes held_;
  std::vector<Entry> held_entries_;
  Bytes buffer_;
};

struct Fetched {
  Streamed streamed;
  SetChecksum checksum;
  uint64_t io_ns = 0, ns = 0;
};

template <class Meth, class M>
class Client final : public Role {
 public:
  Client(const Setup& setup, bool decode)
      : output_(setup.params.path("output")),
        page_size_(setup.params.page_size().value_or(kDefaultPageSize)) {
    if (decode) {
      const Depth depth = setup.depth_or_materialize();
      if (std::find(Meth::depths.begin(), Meth::depths.end(), depth) == Meth::depths.end()) {
        throw unsupported(std::string(Meth::id) + " does not read at depth '" +
                          std::string(depth_id(depth)) + "'");
      }
      decode_ = depth;
    }
  }

  void check_links(const Links& links) override {
    if (links.dialed.empty() || !links.accepted.empty()) {
      throw bad_request("a net_fetch client dials at least one server and accepts no one");
    }
    for (const Link& l : links.dialed) {
      if (!plain_name(l.peer)) throw bad_request("server name '" + l.peer + "' cannot name a file");
    }
  }

  Outcome repetition(Links& links, IoTimer& timer) override {
    const std::size_t servers = links.dialed.size();
    buffers_.resize(servers);
    std::vector<Fetched> fetched(servers);
    std::vector<std::exception_ptr> failed(servers);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < servers; ++i) {
      threads.emplace_back([&, i] {
        try {
          fetched[i] = fetch(links.dialed[i], buffers_[i]);
        } catch (...) {
          failed[i] = std::current_exception();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (auto& f : failed) {
      if (f) std::rethrow_exception(f);
    }
    // io is the mean over connections, so cpu = total - io stays a share of the wall time
    uint64_t io = 0, objects = 0;
    SetChecksum checksum;
    Json::Array per_server;
    for (std::size_t i = 0; i < servers; ++i) {
      const Fetched& f = fetched[i];
      io += f.io_ns;
      objects += f.streamed.objects;
      checksum.count += f.checksum.count;
      checksum.sum += f.checksum.sum;
      per_server.push_back(Json::object({{"server", links.dialed[i].peer},
                                         {"ns", f.ns},
                                         {"objects", f.streamed.objects},
                                         {"bytes", f.streamed.bytes},
                                         {"frames", f.streamed.frames}}));
    }
    timer.add(io / servers);
    Outcome out{objects, std::nullopt, {}};
    if (decode_) out.checksum = checksum;
    out.extra.emplace_back("servers", Json(std::move(per_server)));
    return out;
  }

 private:
  // One server's stream into its own paged file, named after the server.
  Fetched fetch(Link& link, Bytes& payload) {
    IoTimer timer;
    const uint64_t started = now_ns();
    Receiver receiver(output_ + "/" + link.peer, page_size_, timer);
    link.send_json(FrameKind::request, Json::object(), timer);
    Meth method;
    std::function<std::optional<uint64_t>(std::span<const uint8_t>)> visit;
    if (decode_) {
      // bytes from another process: a method that offers validation reads them validated
      const ReadMode mode{*decode_, validating_variant()};
      visit = [&method, mode](std::span<const uint8_t> bytes) -> std::optional<uint64_t> {
        Hasher h;
        method.template fold<M>(bytes, mode, h);
        return h.finish();
      };
    }
    for (;;) {
      const FrameKind kind = link.recv(payload, timer);
      if (kind == FrameKind::end) break;
      if (kind != FrameKind::pages) {
        throw PeerFailure(link.peer, "a " + std::string(frame_kind_name(kind)) +
                                         " frame inside a stream");
      }
      receiver.frame({payload.data(), payload.size()}, link.peer, visit);
    }
    check_end({payload.data(), payload.size()}, receiver.streamed(), page_size_, link.peer);
    Fetched f;
    f.checksum = receiver.checksum();
    f.streamed = receiver.finish(model_name<M>(), Meth::id, kWriter);
    f.io_ns = timer.ns();
    f.ns = now_ns() - started;
    return f;
  }

  static std::size_t validating_variant() {
    for (std::size_t i = 0; i < Meth::variants.size(); ++i) {
      if (Meth::variants[i] == "validate") return i + 1;
    }
    return 0;
  }

  std::string output_;
  uint32_t page_size_;
  std::optional<Depth> decode_;
  std::vector<Bytes> buffers_;
};

}  // namespace

void run_fetch(const Setup& setup, Node& node) {
  const std::string& v = setup.variant;
  if (v != "ram" && v != "disk" && v != "decode") {
    throw bad_request("net_fetch variant '" + v + "': one of ram, disk, decode");
  }
  if (setup.role != "server" && setup.role != "client") {
    throw bad_request("net_fetch role '" + setup.role + "': server or client");
  }
  with_method_model(setup, [&]<class Meth, class M>() {
    if (setup.role == "server") {
      Server<Meth, M> server(setup, v == "ram");
      node.drive(server);
    } else {
      Client<Meth, M> client(setup, v == "decode");
      node.drive(client);
    }
  });
}

}  // namespace serbench::net
