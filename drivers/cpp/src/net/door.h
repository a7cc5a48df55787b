#pragma once
// A node's door (PROTOCOL.md 10.1, 10.2): its listener, bound only where the node is told, and
// the connections still saying hello. Every pending hello is read side by side in one poll
// loop, each against its own deadline for the whole hello (5 s from the accept), so a stranger,
// silent or sending a byte at a time, delays no one: the harness and the peers are admitted as
// soon as their hellos arrive, however many strangers are waiting.

#include <sys/socket.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bytes.h"
#include "net/wire.h"

namespace serbench::net {

// How long a fresh connection may take to send its whole hello.
inline constexpr uint64_t kHelloWaitMs = 5000;

// "HOST:PORT" as the host (without brackets) and the port's text; nullopt without a colon.
std::optional<std::pair<std::string, std::string>> split_address(std::string_view address);

// An address as `HOST:PORT` (`[HOST]:PORT` for IPv6).
std::string address_text(const sockaddr_storage& a);

// A socket listening on `address` (HOST:PORT). Refused (bad_request) when the port is not a
// number in 0-65535, or, unless `allow_wildcard`, when the host is empty or names a wildcard
// address (every interface: 0.0.0.0, ::, ::ffff:0.0.0.0); every language checks and says the
// same.
int bind_listener(std::string_view address, bool allow_wildcard);

// A fresh connection whose hello is still arriving; owns its non-blocking `fd`.
class Knock {
 public:
  Knock(int fd, std::string from, uint64_t deadline_ns);
  Knock(Knock&& o) noexcept;
  ~Knock();

  // Reads what has arrived: the hello once it is whole and carries `token`, nullopt while it
  // is still coming. Throws the PeerFailure to refuse the connection with (a header is
  // checked as soon as it is in).
  std::optional<Hello> hear(std::string_view token);
  // The admitted connection as a blocking link (the caller sets its timeout).
  Link into_link() &&;
  // Sends the stranger an error frame naming its address (best effort: the socket stays
  // non-blocking), logs one line and closes the connection.
  void refuse(const PeerFailure& refusal) &&;

  int fd() const { return fd_; }
  const std::string& from() const { return from_; }
  uint64_t deadline_ns() const { return deadline_ns_; }

 private:
  // The frame's length: its header until that is in, then the header and the hello.
  std::size_t frame_len() const;

  int fd_;
  std::string from_;
  uint64_t deadline_ns_;
  Bytes frame_;  // the frame so far: its header, then its payload
};

// The listener (owned) and the connections still saying hello.
class Door {
 public:
  explicit Door(int listener) : listener_(listener) {}
  Door(const Door&) = delete;
  ~Door();

  int listener() const { return listener_; }
  // The next connection whose hello carries `token`, admitted before `deadline_ns`
  // (monotonic), and its hello (`whom`: who was expected, for the failure); strangers are
  // refused meanwhile.
  std::pair<Link, Hello> admit(std::string_view token, uint64_t deadline_ns, std::string_view whom);
  // Refuses every connection still saying hello: the node admits no one after its peers.
  void shut();

 private:
  using Admitted = std::optional<std::pair<Link, Hello>>;
  // Which of the listener (first) and `pending_` (in order) are readable, waiting until one is
  // or the first deadline passes.
  std::vector<bool> wait(uint64_t deadline_ns) const;
  // Reads what arrived on the pending connections, then accepts every new one: the first
  // admitted, if any (the others stay pending, the refused are closed).
  Admitted step(const std::vector<bool>& ready, std::string_view token);
  // Keeps a connection still saying hello, admits one whose hello carries `token`, or
  // refuses it (also once its deadline has passed).
  Admitted settle(Knock knock, bool readable, std::string_view token);
  Admitted accept_new(std::string_view token);

  int listener_;
  std::deque<Knock> pending_;  // oldest first
};

}  // namespace serbench::net
