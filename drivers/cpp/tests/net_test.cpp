// The wire of the network tasks (PROTOCOL.md 10.2, 10.3): frames refused from their header
// (an oversize length before anything is allocated, an unknown kind), a truncated frame, a
// silent peer, an error frame and a hello that speaks something else, each naming the peer;
// network pages packed (ram) and shipped (disk) through a socket arrive as a paged file the
// validating reader accepts, and every entry of a frame is checked against the frame.

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <thread>

#include "methods/handcoded.h"
#include "net/aggregate.h"
#include "net/pages.h"
#include "net/wire.h"
#include "model/order.h"
#include "tasks/task.h"
#include "test_support.h"

namespace serbench::test {
namespace {

using net::FrameKind;
using net::Link;
using net::PeerFailure;

// A connected pair: `a` is a Link to "server", `raw` the other end's descriptor.
struct Pair {
  Link a;
  int raw;
  ~Pair() {
    if (raw >= 0) ::close(raw);
  }
  void write(const std::string& bytes) const {
    ASSERT_EQ(::write(raw, bytes.data(), bytes.size()), ssize_t(bytes.size()));
  }
  void hang_up() { ::close(std::exchange(raw, -1)); }
};

Pair pair(uint64_t timeout_ms = 5000) {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  return Pair{Link("server", fds[0], timeout_ms), fds[1]};
}

std::string header(uint32_t len, uint8_t kind) {
  std::string h(5, '\0');
  std::memcpy(h.data(), &len, 4);
  h[4] = char(kind);
  return h;
}

template <class F>
std::string failure_of(F&& f) {
  try {
    f();
  } catch (const PeerFailure& e) {
    return e.message();
  } catch (const Failure& e) {
    return std::string(kind_id(e.kind())) + ": " + e.message();
  }
  return "(no failure)";
}

TEST(NetWire, FramesRoundTripAndCountTheirBytes) {
  Pair p = pair();
  Link b("a", std::exchange(p.raw, -1), 5000);
  IoTimer t;
  const std::string abc = "abc", defg = "defg";
  b.send(FrameKind::pages, {net::as_bytes(abc), net::as_bytes(defg)}, t);
  b.send_json(FrameKind::control, Json::object({{"op", "go"}}), t);
  Bytes buf;
  EXPECT_EQ(p.a.recv(buf, t), FrameKind::pages);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), buf.size()), "abcdefg");
  EXPECT_EQ(p.a.recv_json(FrameKind::control, t).str("op"), "go");
  EXPECT_EQ(b.bytes_sent, p.a.bytes_received);
  EXPECT_EQ(p.a.bytes_received, 5u + 7 + 5 + 11);
}

TEST(NetWire, AnOversizeLengthIsRefusedBeforeAnythingIsAllocated) {
  Pair p = pair();
  p.write(header(UINT32_MAX, 3));
  Bytes buf;
  IoTimer t;
  const std::string e = failure_of([&] { p.a.recv(buf, t); });
  EXPECT_NE(e.find("peer server: a frame of 4294967295 bytes exceeds the maximum 67108864"),
            std::string::npos)
      << e;
  EXPECT_EQ(buf.size(), 0u);
  EXPECT_EQ(buf.data(), nullptr);  // nothing was allocated for it
  // one byte above the maximum, from the header alone
  const std::array<uint8_t, 5> just_over{0x01, 0x00, 0x00, 0x04, 3};
  EXPECT_NE(failure_of([&] { net::parse_header(just_over, net::kMaxFrame, "x"); })
                .find("exceeds the maximum"),
            std::string::npos);
}

// A data link's maximum is its cell's: a frame up to it arrives, a longer one is refused from
// its header by the receiver (nothing allocated) and by the sender (nothing sent).
TEST(NetWire, ADataLinkTakesFramesUpToItsOwnMaximumAndRefusesLongerUnread) {
  Pair p = pair();
  const int raw = ::dup(p.raw);
  Link b("a", raw, 5000);
  const std::size_t limit = std::size_t(1) << 20;
  p.a.set_max_frame(limit);
  b.set_max_frame(limit);
  const std::vector<uint8_t> page(limit, 7);
  std::string over;
  std::thread sender([&] {
    IoTimer t;
    b.send(FrameKind::pages, {page}, t);
    const uint8_t x = 1;
    over = failure_of([&] { b.send(FrameKind::pages, {page, {&x, 1}}, t); });
  });
  Bytes buf;
  IoTimer t;
  EXPECT_EQ(p.a.recv(buf, t), FrameKind::pages);
  EXPECT_EQ(buf.size(), limit);
  sender.join();
  EXPECT_EQ(over, "internal: a 1048577-byte frame to a exceeds the maximum 1048576");
  EXPECT_EQ(b.bytes_sent, net::kFrameHeader + limit);

  p.write(header(uint32_t(limit + 1), 3));
  Bytes fresh;
  EXPECT_EQ(failure_of([&] { p.a.recv(fresh, t); }),
            "peer server: a frame of 1048577 bytes exceeds the maximum 1048576");
  EXPECT_EQ(fresh.data(), nullptr);  // nothing was allocated for it
}

// Above 64 MiB (the control link's maximum and the default): a frame a link allows arrives
// whole (the aggregation's sums of BSON vectors need this), and a hostile length is still
// refused from its header.
TEST(NetWire, AFrameAbove64MiBPassesALinkWhoseMaximumAllowsIt) {
  Pair p = pair();
  Link b("a", std::exchange(p.raw, -1), 5000);
  const std::size_t limit = std::size_t(128) << 20;
  p.a.set_max_frame(limit);
  b.set_max_frame(limit);
  const std::size_t len = net::kMaxFrame + 4097;
  std::vector<uint8_t> big(len);
  for (std::size_t i = 0; i < len; ++i) big[i] = uint8_t(i);
  std::thread sender([&] {
    IoTimer t;
    b.send(FrameKind::pages, {{big.data(), 8}, {big.data() + 8, len - 8}}, t);
  });
  Bytes buf;
  IoTimer t;
  EXPECT_EQ(p.a.recv(buf, t), FrameKind::pages);
  sender.join();
  ASSERT_EQ(buf.size(), len);
  EXPECT_EQ(std::memcmp(buf.data(), big.data(), len), 0);
  EXPECT_EQ(b.bytes_sent, p.a.bytes_received);

  const std::array<uint8_t, 5> hostile{0xff, 0xff, 0xff, 0xff, 3};
  EXPECT_EQ(failure_of([&] { net::parse_header(hostile, net::kMaxNetFrame, "p"); }),
            "peer p: a frame of 4294967295 bytes exceeds the maximum 1073741824");
  const std::array<uint8_t, 5> just_over{0x01, 0x00, 0x00, 0x04, 3};
  EXPECT_EQ(net::parse_header(just_over, limit, "p").second, net::kMaxFrame + 1);
}

TEST(NetWire, NetFrameBytesDefaultsTo64MiBAndIsRefusedOutOfItsBounds) {
  EXPECT_EQ(net::net_frame_bytes(Params::parse("{}")), std::size_t(64) << 20);
  EXPECT_EQ(net::net_frame_bytes(Params::parse(R"({"net_frame_bytes": 65536})")), 65536u);
  EXPECT_EQ(net::net_frame_bytes(Params::parse(R"({"net_frame_bytes": 1073741824})")),
            std::size_t(1) << 30);
  for (const char* bad : {"65535", "1073741825", "1099511627776", "0"}) {
    const std::string text = std::string(R"({"net_frame_bytes": )") + bad + "}";
    EXPECT_EQ(failure_of([&] { net::net_frame_bytes(Params::parse(text)); }),
              std::string("bad_request: params.net_frame_bytes must be between 65536 and "
                          "1073741824, got ") +
                  bad);
  }
}

TEST(NetWire, TruncatedFramesGarbageAndErrorFramesNameThePeer) {
  {
    Pair p = pair();
    p.write(header(10, 3) + "\x01\x02");
    p.hang_up();
    Bytes buf;
    IoTimer t;
    EXPECT_EQ(failure_of([&] { p.a.recv(buf, t); }),
              "peer server: closed the connection mid-stream (died?)");
  }
  {
    Pair p = pair();
    p.write("GET / HTTP/1.1\r\n\r\n");
    IoTimer t;
    EXPECT_EQ(failure_of([&] { net::recv_hello(p.a, t); }),
              "peer server: unknown frame kind 47 (garbage on the socket?)");
  }
  {
    Pair p = pair();
    p.write(header(0, 7));
    Bytes buf;
    IoTimer t;
    EXPECT_NE(failure_of([&] { p.a.recv(buf, t); }).find("unknown frame kind 7"),
              std::string::npos);
  }
  {
    Pair p = pair();
    Link b("a", std::exchange(p.raw, -1), 5000);
    b.send_error(corrupt("part.pages: page 3"));
    Bytes buf;
    IoTimer t;
    EXPECT_EQ(failure_of([&] { p.a.recv(buf, t); }),
              "peer server: failed: corrupt_input: part.pages: page 3");
  }
  {
    Pair p = pair();
    IoTimer t;
    Link b("a", std::exchange(p.raw, -1), 5000);
    b.send(FrameKind::control, {}, t);
    EXPECT_EQ(failure_of([&] { net::recv_hello(p.a, t); }),
              "peer server: not a serbench peer (its first frame is no hello)");
  }
}

TEST(NetWire, ASilentPeerTimesOut) {
  Pair p = pair(50);
  Bytes buf;
  IoTimer t;
  EXPECT_EQ(failure_of([&] { p.a.recv(buf, t); }),
            "peer server: sent nothing within the peer timeout (hung or dead?)");
}

TEST(NetWire, HellosRoundTripAndAMismatchIsNamed) {
  const net::Hello h{"data", "leaf0", {"net_fetch", "handcoded", "part", "disk"}, "s3cret"};
  const std::string payload = h.payload();
  const net::Hello back = net::Hello::parse(net::as_bytes(payload), "x");
  EXPECT_EQ(back.role, "data");
  EXPECT_EQ(back.from, "leaf0");
  EXPECT_EQ(back.speaks, h.speaks);
  EXPECT_EQ(back.token, "s3cret");
  EXPECT_EQ(failure_of([&] {
              h.check_speaks({"net_fetch", "json", "part", "disk"}, "127.0.0.1:9");
            }),
            "peer 127.0.0.1:9: speaks method 'handcoded', this node speaks 'json'");
  EXPECT_EQ(failure_of([&] {
              h.check_speaks({"net_fetch", "handcoded", "part", "ram"}, "leaf0");
            }),
            "peer leaf0: speaks variant 'disk', this node speaks 'ram'");
  EXPECT_NE(failure_of([&] { net::Hello::parse(net::as_bytes("SERBNET1[1]"), "p"); })
                .find("JSON object"),
            std::string::npos);
  EXPECT_EQ(failure_of([&] { net::Hello::parse(net::as_bytes("HTTP/1.1"), "p"); }),
            "peer p: not a serbench peer (no hello magic)");
}

// ---- network pages ------------------------------------------------------------------------

constexpr uint32_t P = 64;

// Objects of handcoded lengths around and above the page size (8 + 4k bytes each).
std::vector<Arrays> objects() {
  std::vector<Arrays> out;
  for (int len : {8, 40, 24, 64, 12, 200, 8, 60, 16, 132, 20, 28, 36}) {
    Arrays a;
    for (int i = 0; i < (len - 8) / 4; ++i) a.ints.push_back(i);
    out.push_back(std::move(a));
  }
  return out;
}

SetChecksum checksum_of(const std::vector<Arrays>& objects) {
  SetChecksum c;
  for (const auto& o : objects) c.add(object_hash(o));
  return c;
}

// Receives one stream from `link` into `base`, decoding every object.
std::pair<net::Streamed, SetChecksum> receive(Link& link, const std::string& base) {
  IoTimer t;
  net::Receiver receiver(base, P, t);
  Bytes payload;
  Handcoded method;
  while (link.recv(payload, t) == FrameKind::pages) {
    receiver.frame({payload.data(), payload.size()}, link.peer,
                   [&](std::span<const uint8_t> bytes) -> std::optional<uint64_t> {
                     Hasher h;
                     method.fold<Arrays>(bytes, ReadMode{Depth::materialize, 0}, h);
                     return h.finish();
                   });
  }
  const SetChecksum c = receiver.checksum();
  return {receiver.finish("arrays", "handcoded", "cpp"), c};
}

SetChecksum read_back(const std::string& base) {
  Handcoded method;
  IoTimer t;
  Bytes page;
  return read_objects<Arrays>(method, ReadMode{Depth::materialize, 0}, base, Selection{}, P, t,
                              page)
      .checksum;
}

TEST(NetPages, PackedObjectsArriveAsAValidPagedFile) {
  for (std::size_t budget : {std::size_t(100), std::size_t(300), std::size_t(4096)}) {
    Scratch dir;
    Pair p = pair();
    Link sender("receiver", std::exchange(p.raw, -1), 5000);
    const auto objs = objects();
    net::Streamed sent;
    std::thread t([&] {
      IoTimer timer;
      Handcoded method;
      net::Packer packer(P, budget);
      for (const Arrays& o : objs) {
        packer.push(Handcoded::alignment, [&](Bytes& out) { method.encode<Arrays>(o, out); },
                    sender, timer);
      }
      sent = packer.finish(sender, timer);
      sender.send_json(FrameKind::end, net::end_summary(sent, P), timer);
    });
    const auto [got, checksum] = receive(p.a, dir.path("f"));
    t.join();
    EXPECT_EQ(got, sent) << budget;
    EXPECT_EQ(got.objects, objs.size());
    EXPECT_EQ(checksum, checksum_of(objs));
    EXPECT_EQ(read_back(dir.path("f")), checksum_of(objs));
    // the same layout as a paged file written directly
    Handcoded method;
    IoTimer timer;
    const WriteCounters direct = write_file(method, objs, dir.path("direct"), P, timer);
    EXPECT_EQ(got.bytes, direct.bytes) << budget;
    EXPECT_EQ(read_file(dir.path("f.pages")), read_file(dir.path("direct.pages"))) << budget;
    if (budget == 100) {
      EXPECT_GT(got.frames, 4u);
    }
  }
}

TEST(NetPages, ShippedStoredPagesArriveAsAValidPagedFile) {
  Scratch dir;
  const auto objs = objects();
  Handcoded method;
  IoTimer timer;
  write_file(method, objs, dir.path("in"), P, timer);
  Bytes page;
  PageReader reader(dir.path("in"), Expect{"arrays", "handcoded", std::nullopt}, timer, page);
  const std::string data = read_file(dir.path("in.pages"));
  for (uint64_t start : {0, 3}) {
    std::vector<Entry> entries;
    for (uint64_t k = start; k < reader.count(); ++k) entries.push_back(reader.entry(k));
    Scratch out;
    Pair p = pair();
    Link sender("receiver", std::exchange(p.raw, -1), 5000);
    net::Streamed sent;
    std::thread t([&] {
      IoTimer tt;
      const net::PageSource source = [&](uint64_t from, std::size_t n) {
        return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(data.data()) + from, n);
      };
      sent = net::ship(entries, P, data.size(), 200, source, sender, tt);
      sender.send_json(FrameKind::end, net::end_summary(sent, P), tt);
    });
    const auto [got, checksum] = receive(p.a, out.path("f"));
    t.join();
    EXPECT_EQ(got, sent);
    const std::vector<Arrays> tail(objs.begin() + start, objs.end());
    EXPECT_EQ(checksum, checksum_of(tail));
    EXPECT_EQ(read_back(out.path("f")), checksum_of(tail));
    EXPECT_GT(got.frames, 2u);
  }
}

// One object of 80,008 bytes, above a 64 KiB frame: refused by the packer naming the parameter
// to raise, and through links whose maximum is 1 MiB it travels alone.
TEST(NetPages, AnObjectAboveTheLinksFrameNamesParamsNetFrameBytesAndFitsALargerOne) {
  Arrays big;
  for (int i = 0; i < 20000; ++i) big.ints.push_back(i);
  Handcoded method;
  IoTimer timer;
  {
    Pair p = pair();
    Link sender("receiver", std::exchange(p.raw, -1), 5000);
    sender.set_max_frame(64 << 10);
    net::Packer packer(P, 4096);
    EXPECT_EQ(failure_of([&] {
                packer.push(Handcoded::alignment,
                            [&](Bytes& out) { method.encode<Arrays>(big, out); }, sender, timer);
              }),
              "internal: an object of 80008 bytes does not fit a frame of 65536 "
              "(params.net_frame_bytes)");
    EXPECT_EQ(sender.bytes_sent, 0u);
  }
  Scratch dir;
  Pair p = pair();
  Link sender("receiver", std::exchange(p.raw, -1), 5000);
  sender.set_max_frame(1 << 20);
  p.a.set_max_frame(1 << 20);
  net::Streamed sent;
  std::thread t([&] {
    IoTimer tt;
    net::Packer packer(P, 4096);
    packer.push(Handcoded::alignment, [&](Bytes& out) { method.encode<Arrays>(big, out); },
                sender, tt);
    sent = packer.finish(sender, tt);
    sender.send_json(FrameKind::end, net::end_summary(sent, P), tt);
  });
  const auto [got, checksum] = receive(p.a, dir.path("f"));
  t.join();
  EXPECT_EQ(got, sent);
  EXPECT_EQ(sent.frames, 1u);
  EXPECT_GT(sent.bytes, 64u << 10);
  EXPECT_EQ(checksum, checksum_of({big}));
}

// A stored object whose pages exceed the link's frame is refused before they are read.
TEST(NetPages, StoredPagesAboveTheLinksFrameAreRefusedNamingParamsNetFrameBytes) {
  Arrays big;
  for (int i = 0; i < 20000; ++i) big.ints.push_back(i);
  Scratch dir;
  Handcoded method;
  IoTimer timer;
  write_file(method, std::vector<Arrays>{big}, dir.path("in"), P, timer);
  Bytes page;
  PageReader reader(dir.path("in"), Expect{"arrays", "handcoded", std::nullopt}, timer, page);
  const std::vector<Entry> entries{reader.entry(0)};
  Pair p = pair();
  Link sender("receiver", std::exchange(p.raw, -1), 5000);
  sender.set_max_frame(64 << 10);
  bool read = false;
  const net::PageSource source = [&](uint64_t, std::size_t) {
    read = true;
    return std::span<const uint8_t>();
  };
  EXPECT_EQ(failure_of([&] {
              net::ship(entries, P, reader.header().data_len, 4096, source, sender, timer);
            }),
            "internal: stored pages of 80008 bytes do not fit a frame of 65536 "
            "(params.net_frame_bytes)");
  EXPECT_FALSE(read);
  EXPECT_EQ(sender.bytes_sent, 0u);
}

TEST(NetPages, ANetworkPageMayNotExceedTheCellsFrame) {
  EXPECT_EQ(net::net_page_bytes(uint64_t(100) << 20, P, std::size_t(256) << 20),
            std::size_t(100) << 20);
  EXPECT_EQ(failure_of([&] { net::net_page_bytes(uint64_t(2) << 20, P, std::size_t(1) << 20); }),
            "bad_request: params.net_page_bytes must be between a storage page (64 bytes) plus "
            "one entry and params.net_frame_bytes (1048576), got 2097152");
}

// A frame of `entries` over `pages` bytes of zeroes.
std::string frame(const std::vector<Entry>& entries, std::size_t pages, uint32_t zero = 0) {
  std::string f(8, '\0');
  const uint32_t count = uint32_t(entries.size());
  std::memcpy(f.data(), &count, 4);
  std::memcpy(f.data() + 4, &zero, 4);
  for (const Entry& e : entries) {
    const auto b = e.to_bytes();
    f.append(reinterpret_cast<const char*>(b.data()), b.size());
  }
  f.append(pages, '\0');
  return f;
}

std::string check(const std::string& f) {
  return failure_of([&] {
    net::for_each_object(net::as_bytes(f), P, "leaf1", 4, [](const Entry&, auto) {});
  });
}

TEST(NetPages, EveryEntryIsCheckedAgainstTheFrameBeforeAnyObjectIsVisited) {
  EXPECT_EQ(check(frame({{0, 0, 8}, {0, 8, 56}, {1, 0, 100}}, 64 + 100)), "(no failure)");
  const std::string where = "corrupt_input: peer leaf1: network page 4: ";
  EXPECT_EQ(check(frame({}, 0, 1)), where + "has no entry count and zero word");
  EXPECT_EQ(check("\x01\x00"), where + "has no entry count and zero word");
  EXPECT_EQ(check(frame({}, 0).replace(0, 1, "\x09")), where + "9 entries do not fit its 8 bytes");
  const std::string outside = " lies outside the page's 128 bytes or overlaps the object before it";
  EXPECT_EQ(check(frame({{0, 0, 0}}, 128)), where + "object 0 (page 0, offset 0, length 0)" + outside);
  EXPECT_EQ(check(frame({{0, 0, 8}, {0, 60, 8}}, 128)),
            where + "object 1 (page 0, offset 60, length 8)" + outside);  // crosses its page
  EXPECT_EQ(check(frame({{0, 0, 8}, {0, 4, 8}}, 128)),
            where + "object 1 (page 0, offset 4, length 8)" + outside);  // overlaps
  EXPECT_EQ(check(frame({{1, 8, 100}}, 128)),
            where + "object 0 (page 1, offset 8, length 100)" + outside);  // large, not at 0
  EXPECT_EQ(check(frame({{1, 0, 100}}, 128)),
            where + "object 0 (page 1, offset 0, length 100)" + outside);  // past the frame
  EXPECT_EQ(check(frame({{UINT64_MAX / 32, 0, 8}}, 128)),
            where + "object 0 (page " + std::to_string(UINT64_MAX / 32) + ", offset 0, length 8)" +
                outside);  // no overflow
  // a bad object found by the visitor is named too, after every entry passed
  int visited = 0;
  const std::string f = frame({{0, 0, 8}, {0, 8, 8}}, 64);
  EXPECT_EQ(failure_of([&] {
              net::for_each_object(net::as_bytes(f), P, "leaf1", 4, [&](const Entry&, auto) {
                if (++visited == 2) decode_error(3, "bad tag");
              });
            }),
            where + "object 1: byte 3: bad tag");
}

TEST(NetPages, AFrameAfterOneEndingInsideAPageIsRefused) {
  Scratch dir;
  IoTimer t;
  net::Receiver r(dir.path("f"), P, t);
  const std::string f = frame({{0, 0, 8}}, 8);
  r.frame(net::as_bytes(f), "leaf1", {});
  EXPECT_EQ(failure_of([&] { r.frame(net::as_bytes(f), "leaf1", {}); }),
            "corrupt_input: peer leaf1: network page 1 follows one that ended inside a storage "
            "page");
}

TEST(NetPages, AnEndFrameClaimingOtherCountsIsRefusedNamingThePeer) {
  const net::Streamed arrived{3, 2 * P, 2};
  const auto end = [](const net::Streamed& s, uint32_t page_size) {
    return net::end_summary(s, page_size).dump();
  };
  const std::string honest = end(arrived, P);
  net::check_end(net::as_bytes(honest), arrived, P, "leaf1");
  const std::string lost_frame = end({3, 2 * P, 3}, P);
  EXPECT_EQ(failure_of([&] { net::check_end(net::as_bytes(lost_frame), arrived, P, "leaf1"); }),
            "peer leaf1: the stream ended claiming frames 3, 2 arrived");
  const std::string other_pages = end(arrived, 2 * P);
  EXPECT_NE(failure_of([&] { net::check_end(net::as_bytes(other_pages), arrived, P, "leaf1"); })
                .find("claiming page_size"),
            std::string::npos);
  const std::string empty = "{}";
  EXPECT_EQ(failure_of([&] { net::check_end(net::as_bytes(empty), arrived, P, "leaf1"); }),
            "peer leaf1: the stream ended claiming objects null, 3 arrived");
}

SparseVector sparse(std::vector<std::pair<int64_t, double>> entries, int64_t dimension = 10) {
  SparseVector v;
  v.dimension = dimension;
  for (auto [position, value] : entries) {
    v.entries.emplace_back();
    v.entries.back().position = position;
    v.entries.back().value = value;
  }
  return v;
}

TEST(NetAggregate, SumsMergeByPositionAndKeepEveryPosition) {
  const SparseVector sum = net::merge_sum(sparse({{1, 1.5}, {4, 2.0}, {9, 1.0}}),
                                          sparse({{0, 3.0}, {4, -2.0}, {5, 0.25}}));
  EXPECT_TRUE(total_equal(sum, sparse({{0, 3.0}, {1, 1.5}, {4, 0.0}, {5, 0.25}, {9, 1.0}})));
  EXPECT_EQ(failure_of([&] { net::merge_sum(sum, sparse({}, 11)); }),
            "corrupt_input: vectors of dimensions 10 and 11 cannot be summed");
}

}  // namespace
}  // namespace serbench::test
