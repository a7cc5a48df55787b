// A node admits only connections whose hello carries its cell's token (PROTOCOL.md 10.2): a
// stranger without it, with another, or sending no hello at all gets an error frame naming
// its address and never the token, and is closed; a hello arriving in pieces is read as they
// come. A node without a token does not start, nor does one asked to listen on every
// interface (an empty or wildcard host) or on a port outside 0-65535.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <sstream>
#include <utility>

#include "net/door.h"
#include "net/node.h"
#include "net/wire.h"

namespace serbench::test {
namespace {

constexpr std::string_view kToken = "0123456789abcdef0123456789abcdef";

// What the node at the far end of `raw` answered: the failure its error frame reports.
std::string answer_of(int raw) {
  net::Link link("node", raw, 5000);
  Bytes payload;
  IoTimer timer;
  try {
    link.recv(payload, timer);
  } catch (const net::PeerFailure& e) {
    return e.message();
  }
  return "(no error frame)";
}

// A connection saying hello, whose other end is `raw`.
struct Knocking {
  net::Knock knock;
  int raw;
  ~Knocking() {
    if (raw >= 0) ::close(raw);
  }
};

Knocking knocking() {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  EXPECT_EQ(::fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
  return {net::Knock(fds[0], "10.0.0.5:4711", now_ns() + 5'000'000'000), fds[1]};
}

// Whether the knock admits its connection after `bytes` more arrived; a refusal is sent
// (the node's answer, read from `raw`) and ends it.
std::pair<bool, std::string> hear(Knocking& k, const std::string& bytes) {
  EXPECT_EQ(::write(k.raw, bytes.data(), bytes.size()), ssize_t(bytes.size()));
  try {
    return {k.knock.hear(kToken).has_value(), ""};
  } catch (const net::PeerFailure& refusal) {
    std::move(k.knock).refuse(refusal);
    return {false, answer_of(std::exchange(k.raw, -1))};
  }
}

// Sends `bytes` on a fresh connection and hears it as a node would.
std::pair<bool, std::string> knock(const std::string& bytes) {
  Knocking k = knocking();
  return hear(k, bytes);
}

std::string hello_frame(std::string_view token, uint32_t declared = 0) {
  const std::string payload = net::Hello{"control", "harness", {}, std::string(token)}.payload();
  const uint32_t len = declared ? declared : uint32_t(payload.size());
  std::string frame(5, char(net::FrameKind::hello));
  std::memcpy(frame.data(), &len, 4);
  return frame + payload;
}

TEST(NetToken, OnlyAHelloWithTheCellsTokenIsAdmitted) {
  EXPECT_EQ(knock(hello_frame(kToken)), std::pair(true, std::string()));
  const std::string refused = "peer node: failed: network: peer 10.0.0.5:4711: ";
  EXPECT_EQ(knock(hello_frame("")), std::pair(false, refused + "no token"));
  EXPECT_EQ(knock(hello_frame("0123456789abcdef0123456789abcdeF")),
            std::pair(false, refused + "wrong token"));
  EXPECT_EQ(knock(hello_frame(kToken.substr(1))), std::pair(false, refused + "wrong token"));
  EXPECT_EQ(knock("GET /"),
            std::pair(false, refused + "unknown frame kind 47 (garbage on the socket?)"));
  // a long hello is refused from its header, before the payload is read
  EXPECT_EQ(knock(hello_frame(kToken, net::kMaxHello + 1)),
            std::pair(false, refused + "a hello frame of 4097 bytes exceeds its maximum 4096"));
}

TEST(NetToken, AHelloArrivingInPiecesIsReadAsTheyCome) {
  const std::string frame = hello_frame(kToken);
  Knocking k = knocking();
  EXPECT_EQ(hear(k, frame.substr(0, 3)), std::pair(false, std::string()));
  EXPECT_EQ(hear(k, frame.substr(3, 20)), std::pair(false, std::string()));
  EXPECT_EQ(hear(k, frame.substr(23)), std::pair(true, std::string()));
  EXPECT_EQ(std::move(k.knock).into_link().bytes_received, frame.size());
}

TEST(NetToken, TokensCompareWhole) {
  EXPECT_TRUE(net::same_token(kToken, kToken));
  EXPECT_FALSE(net::same_token(kToken.substr(0, 31), kToken));
  EXPECT_FALSE(net::same_token("", "a"));
}

TEST(NetToken, ANodeWithoutATokenDoesNotStart) {
  std::ostringstream out;
  EXPECT_EQ(net::listen("127.0.0.1:0", false, "", out), 1);
  EXPECT_EQ(out.str(), "");  // it printed no address
}

// What binding `address` is refused with ("" when it binds).
std::string refusal(std::string_view address, bool allow_wildcard = false) {
  try {
    ::close(net::bind_listener(address, allow_wildcard));
    return "";
  } catch (const Failure& e) {
    return e.message();
  }
}

TEST(NetToken, ANodeListensOnlyWhereItIsTold) {
  for (std::string_view wildcard :
       {"0.0.0.0:0", "[::]:0", ":0", "[]:0", "[::ffff:0.0.0.0]:0", "0:0"}) {
    EXPECT_EQ(refusal(wildcard), "cannot listen on '" + std::string(wildcard) +
                                     "': an empty or wildcard host (0.0.0.0, ::) listens on every "
                                     "interface; --allow-wildcard allows it");
  }
  for (std::string_view port : {"65536", "-1", "+80", "", "x", "99999999999"}) {
    const std::string address = "127.0.0.1:" + std::string(port);
    EXPECT_EQ(refusal(address),
              "cannot listen on '" + address + "': the port must be a number in 0-65535");
  }
  EXPECT_EQ(refusal("127.0.0.1"), "cannot listen on '127.0.0.1': not HOST:PORT");
  EXPECT_EQ(refusal("127.0.0.1:0"), "");
  // the flag says so explicitly
  EXPECT_EQ(refusal("0.0.0.0:0", true), "");
  EXPECT_EQ(refusal(":0", true), "");
}

}  // namespace
}  // namespace serbench::test
