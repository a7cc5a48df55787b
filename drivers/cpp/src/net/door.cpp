#include "net/door.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <iostream>
#include <iterator>
#include <memory>

#include "protocol.h"
#include "timing.h"

namespace serbench::net {

namespace {

// How many connections may be saying hello at once; past it the oldest is dropped (it has
// had the longest to speak, and a peer says hello as soon as it has connected).
constexpr std::size_t kMaxPending = 512;
// The listen queue: room for a flood of strangers arriving while the node loads its data and
// accepts nothing.
constexpr int kBacklog = 1024;
// The refusals of bind_listener, worded alike in every language.
constexpr std::string_view kNotAPort = "the port must be a number in 0-65535";
constexpr std::string_view kWildcard =
    "an empty or wildcard host (0.0.0.0, ::) listens on every interface; --allow-wildcard "
    "allows it";

using AddrList = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

// A port: decimal digits only, at most 65535.
std::optional<uint16_t> parse_port(std::string_view text) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (text.empty() || !std::all_of(text.begin(), text.end(), digit)) return std::nullopt;
  uint16_t port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return port;
}

// Whether `a` is a wildcard address, every interface (IPv4-mapped too).
bool is_wildcard(const addrinfo& a) {
  if (a.ai_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(a.ai_addr)->sin_addr.s_addr == htonl(INADDR_ANY);
  }
  if (a.ai_family != AF_INET6) return false;
  const in6_addr& v6 = reinterpret_cast<const sockaddr_in6*>(a.ai_addr)->sin6_addr;
  static constexpr uint8_t kZero[4] = {};
  return IN6_IS_ADDR_UNSPECIFIED(&v6) ||
         (IN6_IS_ADDR_V4MAPPED(&v6) && std::memcmp(v6.s6_addr + 12, kZero, 4) == 0);
}

// The listening socket on the first of `found` that binds; -1 and errno otherwise.
int listen_on_first(const addrinfo* found) {
  for (const addrinfo* a = found; a; a = a->ai_next) {
    const int fd =
        ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, kBacklog) == 0) return fd;
    const int error = errno;
    ::close(fd);
    errno = error;
  }
  return -1;
}

void set_blocking(int fd, bool blocking) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK) != 0) {
    throw Failure(Kind::internal, std::string("fcntl: ") + std::strerror(errno));
  }
}

}  // namespace

std::optional<std::pair<std::string, std::string>> split_address(std::string_view address) {
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string host(address.substr(0, colon));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::pair{host, std::string(address.substr(colon + 1))};
}

std::string address_text(const sockaddr_storage& a) {
  char host[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
  inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
  std::string text = "[";  // appended: GCC 12 warns (falsely, -Wrestrict) on "[" + string
  text += host;
  return text + "]:" + std::to_string(ntohs(in6->sin6_port));
}

int bind_listener(std::string_view address, bool allow_wildcard) {
  const auto refuse = [&](std::string_view why) {
    return bad_request("cannot listen on '" + std::string(address) + "': " + std::string(why));
  };
  const auto parts = split_address(address);
  if (!parts) throw refuse("not HOST:PORT");
  const auto& [host, port] = *parts;
  if (!parse_port(port)) throw refuse(kNotAPort);
  if (host.empty() && !allow_wildcard) throw refuse(kWildcard);
  // every interface: IPv6's wildcard takes IPv4 too; IPv4's where there is no IPv6
  const std::vector<std::string> hosts =
      host.empty() ? std::vector<std::string>{"::", "0.0.0.0"} : std::vector{host};
  for (const std::string& name : hosts) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* raw = nullptr;
    const int error = getaddrinfo(name.c_str(), port.c_str(), &hints, &raw);
    if (error != 0 || !raw) throw refuse(gai_strerror(error));
    const AddrList found(raw, &freeaddrinfo);
    for (const addrinfo* a = found.get(); a && !allow_wildcard; a = a->ai_next) {
      if (is_wildcard(*a)) throw refuse(kWildcard);
    }
    if (const int listener = listen_on_first(found.get()); listener >= 0) return listener;
  }
  throw refuse(std::strerror(errno));
}

// ---- a connection saying hello ------------------------------------------------------------

Knock::Knock(int fd, std::string from, uint64_t deadline_ns)
    : fd_(fd), from_(std::move(from)), deadline_ns_(deadline_ns) {}

Knock::Knock(Knock&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      from_(std::move(o.from_)),
      deadline_ns_(o.deadline_ns_),
      frame_(std::move(o.frame_)) {}

Knock::~Knock() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t Knock::frame_len() const {
  if (frame_.size() < kFrameHeader) return kFrameHeader;
  const auto [kind, len] =
      parse_header(std::span<const uint8_t, kFrameHeader>(frame_.data(), kFrameHeader), kMaxFrame,
                   from_);
  if (kind != FrameKind::hello) {
    throw PeerFailure(from_, "not a serbench peer (its first frame is no hello)");
  }
  if (len > kMaxHello) {
    throw PeerFailure(from_, "a hello frame of " + std::to_string(len) +
                                 " bytes exceeds its maximum " + std::to_string(kMaxHello));
  }
  return kFrameHeader + len;
}

std::optional<Hello> Knock::hear(std::string_view token) {
  for (;;) {
    const std::size_t want = frame_len();
    const std::size_t have = frame_.size();
    if (have == want) {
      Hello hello = Hello::parse({frame_.data() + kFrameHeader, want - kFrameHeader}, from_);
      hello.check_token(token, from_);
      return hello;
    }
    frame_.resize(want);
    const ssize_t got = ::recv(fd_, frame_.data() + have, want - have, 0);
    const int error = errno;
    frame_.resize(have + std::size_t(std::max<ssize_t>(got, 0)));
    if (got == 0) throw PeerFailure(from_, "closed the connection before its hello");
    if (got < 0 && (error == EAGAIN || error == EWOULDBLOCK)) return std::nullopt;
    if (got < 0 && error != EINTR) throw PeerFailure(from_, std::strerror(error));
  }
}

Link Knock::into_link() && {
  set_blocking(fd_, true);
  Link link(from_, std::exchange(fd_, -1), kHelloWaitMs);
  link.bytes_received = frame_.size();
  return link;
}

void Knock::refuse(const PeerFailure& refusal) && {
  std::cerr << "serbench-cpp listen: refused a connection: " << refusal.message() << std::endl;
  try {
    Link(from_, std::exchange(fd_, -1), kHelloWaitMs).send_error(refusal);
  } catch (const PeerFailure&) {
    // the socket could not be set up: it is closed all the same
  }
}

// ---- the door -----------------------------------------------------------------------------

Door::~Door() {
  if (listener_ >= 0) ::close(listener_);
}

std::pair<Link, Hello> Door::admit(std::string_view token, uint64_t deadline_ns,
                                   std::string_view whom) {
  for (;;) {
    if (Admitted admitted = step(wait(deadline_ns), token)) return std::move(*admitted);
    if (now_ns() >= deadline_ns) throw PeerFailure(whom, "did not connect in time");
  }
}

void Door::shut() {
  for (Knock& knock : std::exchange(pending_, {})) {
    std::move(knock).refuse(PeerFailure(knock.from(), "this node admits no one after its peers"));
  }
}

std::vector<bool> Door::wait(uint64_t deadline_ns) const {
  std::vector<pollfd> polled{{listener_, POLLIN, 0}};
  uint64_t first = deadline_ns;
  for (const Knock& knock : pending_) {
    polled.push_back({knock.fd(), POLLIN, 0});
    first = std::min(first, knock.deadline_ns());
  }
  const uint64_t now = now_ns();
  // rounded up, so the loop never spins just short of a deadline
  const uint64_t ms = first > now ? (first - now + 999'999) / 1'000'000 : 0;
  const int timeout = int(std::min<uint64_t>(ms, 1u << 30));
  if (::poll(polled.data(), polled.size(), timeout) < 0 && errno != EINTR) {
    throw Failure(Kind::internal, std::string("poll: ") + std::strerror(errno));
  }
  std::vector<bool> ready;
  for (const pollfd& p : polled) ready.push_back(p.revents != 0);
  return ready;
}

Door::Admitted Door::step(const std::vector<bool>& ready, std::string_view token) {
  std::deque<Knock> knocks = std::exchange(pending_, {});
  for (std::size_t i = 0; i < knocks.size(); ++i) {
    if (Admitted admitted = settle(std::move(knocks[i]), ready[i + 1], token)) {
      std::move(knocks.begin() + std::ptrdiff_t(i) + 1, knocks.end(), std::back_inserter(pending_));
      return admitted;
    }
  }
  return accept_new(token);
}

Door::Admitted Door::accept_new(std::string_view token) {
  for (;;) {
    sockaddr_storage from{};
    socklen_t len = sizeof from;
    const int fd = ::accept4(listener_, reinterpret_cast<sockaddr*>(&from), &len,
                             SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return std::nullopt;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      throw Failure(Kind::internal, std::string("accept: ") + std::strerror(errno));
    }
    // its hello may be here already: a peer sends it as soon as it has connected
    Knock knock(fd, address_text(from), now_ns() + kHelloWaitMs * 1'000'000);
    if (Admitted admitted = settle(std::move(knock), true, token)) return admitted;
    if (pending_.size() > kMaxPending) {
      Knock oldest = std::move(pending_.front());
      pending_.pop_front();
      std::move(oldest).refuse(PeerFailure(oldest.from(), "too many connections are saying hello"));
    }
  }
}

Door::Admitted Door::settle(Knock knock, bool readable, std::string_view token) {
  std::optional<Hello> hello;
  try {
    if (now_ns() >= knock.deadline_ns()) {
      throw PeerFailure(knock.from(), "no complete hello within 5 s");
    }
    if (readable) hello = knock.hear(token);
  } catch (const PeerFailure& refusal) {
    std::move(knock).refuse(refusal);
    return std::nullopt;
  }
  if (!hello) {
    pending_.push_back(std::move(knock));
    return std::nullopt;
  }
  return std::pair{std::move(knock).into_link(), std::move(*hello)};
}

}  // namespace serbench::net
