#include "net/wire.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace serbench::net {

std::string_view frame_kind_name(FrameKind kind) {
  switch (kind) {
    case FrameKind::hello: return "hello";
    case FrameKind::control: return "control";
    case FrameKind::pages: return "pages";
    case FrameKind::end: return "end";
    case FrameKind::request: return "request";
    case FrameKind::error: return "error";
  }
  return "?";
}

std::pair<std::string, std::string> describe(const std::exception& e) {
  if (auto* p = dynamic_cast<const PeerFailure*>(&e)) return {"network", p->message()};
  if (auto* f = dynamic_cast<const Failure*>(&e)) {
    return {std::string(kind_id(f->kind())), f->message()};
  }
  return {"internal", e.what()};
}

std::pair<FrameKind, std::size_t> parse_header(std::span<const uint8_t, kFrameHeader> header,
                                               std::size_t max, std::string_view peer) {
  uint32_t len;
  std::memcpy(&len, header.data(), 4);
  const uint8_t kind = header[4];
  if (kind < 1 || kind > 6) {
    throw PeerFailure(peer, "unknown frame kind " + std::to_string(kind) +
                                " (garbage on the socket?)");
  }
  if (len > max) {
    throw PeerFailure(peer, "a frame of " + std::to_string(len) + " bytes exceeds the maximum " +
                                std::to_string(max));
  }
  return {FrameKind(kind), len};
}

std::size_t net_frame_bytes(const Params& params) {
  const uint64_t requested = params.u64_or("net_frame_bytes", kMaxFrame);
  if (requested < kMinNetFrame || requested > kMaxNetFrame) {
    throw bad_request("params.net_frame_bytes must be between " + std::to_string(kMinNetFrame) +
                      " and " + std::to_string(kMaxNetFrame) + ", got " +
                      std::to_string(requested));
  }
  return std::size_t(requested);
}

// ---- JSON objects -------------------------------------------------------------------------

struct JsonObject::Doc {
  rapidjson::Document doc;
};

JsonObject::JsonObject() : doc_(std::make_unique<Doc>()) { doc_->doc.SetObject(); }
JsonObject::~JsonObject() = default;
JsonObject::JsonObject(JsonObject&&) noexcept = default;
JsonObject& JsonObject::operator=(JsonObject&&) noexcept = default;

JsonObject JsonObject::parse(std::span<const uint8_t> payload, std::string_view peer) {
  JsonObject o;
  o.doc_->doc.Parse(reinterpret_cast<const char*>(payload.data()), payload.size());
  if (o.doc_->doc.HasParseError()) {
    throw PeerFailure(peer, "a frame that should hold JSON does not parse");
  }
  if (!o.doc_->doc.IsObject()) {
    throw PeerFailure(peer, "a frame that should hold a JSON object holds another JSON value");
  }
  return o;
}

namespace {
const rapidjson::Value* member(const rapidjson::Value& v, std::string_view key) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(rapidjson::Value(key.data(), rapidjson::SizeType(key.size())));
  return it == v.MemberEnd() ? nullptr : &it->value;
}
std::string dump_value(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return {sb.GetString(), sb.GetSize()};
}
}  // namespace

bool JsonObject::has(std::string_view key) const { return member(doc_->doc, key) != nullptr; }

std::string JsonObject::str(std::string_view key) const {
  const auto* v = member(doc_->doc, key);
  return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}

std::optional<uint64_t> JsonObject::u64(std::string_view key) const {
  const auto* v = member(doc_->doc, key);
  if (v && v->IsUint64()) return v->GetUint64();
  return std::nullopt;
}

std::string JsonObject::text(std::string_view key) const {
  const auto* v = member(doc_->doc, key);
  return v ? dump_value(*v) : "null";
}

std::vector<JsonObject> JsonObject::array(std::string_view key) const {
  std::vector<JsonObject> out;
  const auto* v = member(doc_->doc, key);
  if (!v || !v->IsArray()) return out;
  for (const auto& item : v->GetArray()) {
    JsonObject o;
    if (item.IsObject()) o.doc_->doc.CopyFrom(item, o.doc_->doc.GetAllocator());
    out.push_back(std::move(o));
  }
  return out;
}

std::string JsonObject::dump() const { return dump_value(doc_->doc); }

// ---- links --------------------------------------------------------------------------------

Link::Link(std::string peer_name, int fd, uint64_t timeout_ms) : peer(std::move(peer_name)), fd_(fd) {
  timeval tv{};
  tv.tv_sec = time_t(timeout_ms / 1000);
  tv.tv_usec = suseconds_t(timeout_ms % 1000 * 1000);
  int one = 1;
  // no delay on TCP (a socketpair, in tests, has none to turn off)
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw PeerFailure(peer, std::strerror(e));
  }
}

Link::Link(Link&& o) noexcept
    : peer(std::move(o.peer)),
      bytes_sent(o.bytes_sent),
      bytes_received(o.bytes_received),
      fd_(std::exchange(o.fd_, -1)),
      max_frame_(o.max_frame_) {}

Link& Link::operator=(Link&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    peer = std::move(o.peer);
    bytes_sent = o.bytes_sent;
    bytes_received = o.bytes_received;
    fd_ = std::exchange(o.fd_, -1);
    max_frame_ = o.max_frame_;
  }
  return *this;
}

Link::~Link() {
  if (fd_ >= 0) ::close(fd_);
}

void Link::send(FrameKind kind, std::initializer_list<std::span<const uint8_t>> parts,
                IoTimer& timer) {
  std::size_t len = 0;
  for (auto p : parts) len += p.size();
  if (len > max_frame_) {
    throw Failure(Kind::internal, "a " + std::to_string(len) + "-byte frame to " + peer +
                                      " exceeds the maximum " + std::to_string(max_frame_));
  }
  uint8_t header[kFrameHeader];
  const uint32_t len32 = uint32_t(len);
  std::memcpy(header, &len32, 4);
  header[4] = uint8_t(kind);
  iovec iov[8];
  std::size_t count = 0;
  iov[count++] = {header, kFrameHeader};
  for (auto p : parts) {
    if (p.empty()) continue;
    if (count == std::size(iov)) throw Failure(Kind::internal, "a frame of too many parts");
    iov[count++] = {const_cast<uint8_t*>(p.data()), p.size()};
  }
  iovec* next = iov;
  timer.time([&] {
    while (count > 0) {
      msghdr msg{};
      msg.msg_iov = next;
      msg.msg_iovlen = count;
      const ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        const int e = errno;
        throw PeerFailure(peer, std::string("sending a frame: ") +
                                    (e == EAGAIN || e == EWOULDBLOCK
                                         ? "accepted nothing within the peer timeout (hung or dead?)"
                                         : std::strerror(e)));
      }
      std::size_t done = std::size_t(n);
      while (count > 0 && done >= next->iov_len) {
        done -= next->iov_len;
        ++next;
        --count;
      }
      if (count > 0) {
        next->iov_base = static_cast<uint8_t*>(next->iov_base) + done;
        next->iov_len -= done;
      }
    }
  });
  bytes_sent += kFrameHeader + len;
}

void Link::send_json(FrameKind kind, const Json& value, IoTimer& timer) {
  const std::string text = value.dump();
  send(kind, {as_bytes(text)}, timer);
}

void Link::read_exact(uint8_t* into, std::size_t n, IoTimer& timer) {
  timer.time([&] {
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = ::recv(fd_, into + got, n - got, 0);
      if (r > 0) {
        got += std::size_t(r);
        continue;
      }
      if (r == 0) throw PeerFailure(peer, "closed the connection mid-stream (died?)");
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        throw PeerFailure(peer, "sent nothing within the peer timeout (hung or dead?)");
      }
      throw PeerFailure(peer, std::strerror(errno));
    }
  });
}

void Link::set_timeout(uint64_t timeout_ms) {
  timeval tv{time_t(timeout_ms / 1000), suseconds_t(timeout_ms % 1000 * 1000)};
  if (setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
      setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
    throw PeerFailure(peer, std::strerror(errno));
  }
}

FrameKind Link::recv(Bytes& payload, IoTimer& timer, std::size_t max) {
  std::array<uint8_t, kFrameHeader> header;
  read_exact(header.data(), header.size(), timer);
  const auto [kind, len] = parse_header(header, max_frame_, peer);
  if (len > max) {
    throw PeerFailure(peer, "a " + std::string(frame_kind_name(kind)) + " frame of " +
                                std::to_string(len) + " bytes exceeds its maximum " +
                                std::to_string(max));
  }
  payload.clear();
  payload.resize(len);
  read_exact(payload.data(), len, timer);
  bytes_received += kFrameHeader + len;
  if (kind == FrameKind::error) {
    rapidjson::Document d;
    d.Parse(reinterpret_cast<const char*>(payload.data()), payload.size());
    auto text = [&](const char* k) -> std::string {
      if (d.HasParseError() || !d.IsObject()) return "";
      const auto* v = member(d, k);
      return v && v->IsString() ? v->GetString() : "";
    };
    throw PeerFailure(peer, "failed: " + text("kind") + ": " + text("message"));
  }
  return kind;
}

JsonObject Link::recv_json(FrameKind want, IoTimer& timer) {
  Bytes payload;
  const FrameKind kind = recv(payload, timer);
  if (kind != want) {
    throw PeerFailure(peer, "expected a " + std::string(frame_kind_name(want)) + " frame, got " +
                                std::string(frame_kind_name(kind)));
  }
  return JsonObject::parse({payload.data(), payload.size()}, peer);
}

void Link::send_error(const std::exception& why) {
  if (fd_ < 0) return;
  auto [kind, message] = describe(why);
  IoTimer ignored;
  try {
    send_json(FrameKind::error, Json::object({{"kind", kind}, {"message", message}}), ignored);
  } catch (const std::exception&) {
    // the peer may be gone already
  }
}

// ---- hello --------------------------------------------------------------------------------

std::string Hello::payload() const {
  std::string out(kMagic);
  out += Json::object({{"role", role},
                       {"from", from},
                       {"token", token},
                       {"task", speaks[0]},
                       {"method", speaks[1]},
                       {"model", speaks[2]},
                       {"variant", speaks[3]}})
             .dump();
  return out;
}

Hello Hello::parse(std::span<const uint8_t> payload, std::string_view peer) {
  if (payload.size() < kMagic.size() ||
      std::memcmp(payload.data(), kMagic.data(), kMagic.size()) != 0) {
    throw PeerFailure(peer, "not a serbench peer (no hello magic)");
  }
  const JsonObject body = JsonObject::parse(payload.subspan(kMagic.size()), peer);
  return Hello{body.str("role"),
               body.str("from"),
               {body.str("task"), body.str("method"), body.str("model"), body.str("variant")},
               body.str("token")};
}

void Hello::check_speaks(const std::array<std::string, 4>& mine, std::string_view peer) const {
  static constexpr std::array<std::string_view, 4> kWhat{"task", "method", "model", "variant"};
  for (std::size_t i = 0; i < 4; ++i) {
    if (speaks[i] != mine[i]) {
      throw PeerFailure(peer, "speaks " + std::string(kWhat[i]) + " '" + speaks[i] +
                                  "', this node speaks '" + mine[i] + "'");
    }
  }
}

void Hello::check_token(std::string_view mine, std::string_view from) const {
  if (token.empty()) throw PeerFailure(from, "no token");
  if (!same_token(token, mine)) throw PeerFailure(from, "wrong token");
}

bool same_token(std::string_view theirs, std::string_view mine) {
  std::size_t differ = theirs.size() ^ mine.size();
  for (std::size_t i = 0; i < std::min(theirs.size(), mine.size()); ++i) {
    differ |= std::size_t(uint8_t(theirs[i]) ^ uint8_t(mine[i]));
  }
  // keeps the compiler from ending the loop at the first difference
  return *static_cast<volatile std::size_t*>(&differ) == 0;
}

Hello recv_hello(Link& link, IoTimer& timer) {
  Bytes payload;
  if (link.recv(payload, timer, kMaxHello) != FrameKind::hello) {
    throw PeerFailure(link.peer, "not a serbench peer (its first frame is no hello)");
  }
  return Hello::parse({payload.data(), payload.size()}, link.peer);
}

}  // namespace serbench::net
