#pragma once
// The wire of PROTOCOL.md 10.2: every byte between nodes, and between the harness and a node,
// is a frame `u32 length (LE) | u8 kind | payload`. A declared length above the link's maximum
// (kMaxFrame on the harness's link, the cell's net_frame_bytes between data nodes), or an
// unknown kind, is refused from the 5-byte header alone, before anything is allocated. The
// first frame of every connection is a hello carrying the cell's token and naming who speaks
// and what; a fresh connection's hello may not exceed kMaxHello.

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bytes.h"
#include "json.h"
#include "protocol.h"
#include "timing.h"

namespace serbench::net {

// A link's maximum frame payload until it is told otherwise: the harness's control link keeps
// it, and it is the default of a data link's (params.net_frame_bytes).
inline constexpr std::size_t kMaxFrame = std::size_t(64) << 20;
// The bounds of params.net_frame_bytes; every driver checks the same.
inline constexpr std::size_t kMinNetFrame = std::size_t(64) << 10;
inline constexpr std::size_t kMaxNetFrame = std::size_t(1) << 30;
inline constexpr std::size_t kFrameHeader = 5;
inline constexpr std::string_view kMagic = "SERBNET1";
inline constexpr std::size_t kMaxHello = 4096;

enum class FrameKind : uint8_t { hello = 1, control = 2, pages = 3, end = 4, request = 5, error = 6 };

std::string_view frame_kind_name(FrameKind kind);

// A failure on the wire: a peer died, went silent, refused the handshake or sent a bad frame
// (the protocol's error kind `network`). The message starts with the peer's name.
class PeerFailure : public std::exception {
 public:
  PeerFailure(std::string_view peer, std::string_view what)
      : message_("peer " + std::string(peer) + ": " + std::string(what)) {}
  const std::string& message() const { return message_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// The protocol's kind and message of whatever a node caught.
std::pair<std::string, std::string> describe(const std::exception& e);

// A header's kind and length, checked: unknown kind or a length above `max` is a PeerFailure.
std::pair<FrameKind, std::size_t> parse_header(std::span<const uint8_t, kFrameHeader> header,
                                               std::size_t max, std::string_view peer);

// The largest frame between this cell's data nodes (params.net_frame_bytes, default kMaxFrame);
// outside [kMinNetFrame, kMaxNetFrame] a bad_request.
std::size_t net_frame_bytes(const Params& params);

// A JSON object's members as the node reads them (a parsed copy of one frame's payload).
class JsonObject {
 public:
  JsonObject();
  ~JsonObject();
  JsonObject(JsonObject&&) noexcept;
  JsonObject& operator=(JsonObject&&) noexcept;
  // Throws PeerFailure(peer) when the payload is not a JSON object.
  static JsonObject parse(std::span<const uint8_t> payload, std::string_view peer);

  bool has(std::string_view key) const;
  // "" when absent or not a string.
  std::string str(std::string_view key) const;
  std::optional<uint64_t> u64(std::string_view key) const;
  // The member's JSON text ("null" when absent).
  std::string text(std::string_view key) const;
  // Each element of an array member, as a JsonObject (non-objects skipped: empty objects).
  std::vector<JsonObject> array(std::string_view key) const;
  std::string dump() const;

 private:
  struct Doc;
  std::unique_ptr<Doc> doc_;
};

// One TCP connection to a named peer: counts the bytes it moves and times every socket call
// into the caller's IoTimer. Reads and writes block at most the peer timeout.
class Link {
 public:
  Link(std::string peer, int fd, uint64_t timeout_ms);
  Link(Link&& o) noexcept;
  Link& operator=(Link&& o) noexcept;
  Link(const Link&) = delete;
  ~Link();

  std::string peer;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;

  // One frame whose payload is the concatenation of `parts`.
  void send(FrameKind kind, std::initializer_list<std::span<const uint8_t>> parts, IoTimer& timer);
  void send_json(FrameKind kind, const Json& value, IoTimer& timer);
  // One frame into `payload` (resized to its length); an error frame becomes the PeerFailure
  // it reports. A declared length above the link's maximum is refused before the payload is
  // read.
  FrameKind recv(Bytes& payload, IoTimer& timer) { return recv(payload, timer, max_frame_); }
  // As recv, refusing a declared length above `max` (at most the link's maximum) too.
  FrameKind recv(Bytes& payload, IoTimer& timer, std::size_t max);
  // One frame that must be `want` and hold a JSON object.
  JsonObject recv_json(FrameKind want, IoTimer& timer);
  // Best effort: tells the peer why this node stops.
  void send_error(const std::exception& why);
  // How long a read or write may block from now on.
  void set_timeout(uint64_t timeout_ms);
  int fd() const { return fd_; }
  // The largest frame payload it sends or accepts (kMaxFrame until set); a data link's is the
  // cell's net_frame_bytes, set once its hello is through.
  std::size_t max_frame() const { return max_frame_; }
  void set_max_frame(std::size_t max) { max_frame_ = max; }

 private:
  void read_exact(uint8_t* into, std::size_t n, IoTimer& timer);
  int fd_;
  std::size_t max_frame_ = kMaxFrame;
};

// What one end of a connection says it is.
struct Hello {
  std::string role;  // control (the harness) or data (a peer node)
  std::string from;
  std::array<std::string, 4> speaks;  // task, method, model, variant
  std::string token;  // the cell's secret: a node admits only hellos carrying its own

  std::string payload() const;
  static Hello parse(std::span<const uint8_t> payload, std::string_view peer);
  // A data peer must speak all four as this node does; throws PeerFailure naming the first
  // that differs.
  void check_speaks(const std::array<std::string, 4>& mine, std::string_view peer) const;
  // The token must equal `mine` (compared in constant time); the failure (`no token from
  // ADDR` or `wrong token from ADDR`) names the connection's address `from`, never a token.
  void check_token(std::string_view mine, std::string_view from) const;
};

// Whether two tokens are equal, in a time that depends on their lengths only.
bool same_token(std::string_view theirs, std::string_view mine);

// The first frame of a fresh connection, which must be a hello of at most kMaxHello bytes.
Hello recv_hello(Link& link, IoTimer& timer);

inline std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace serbench::net
