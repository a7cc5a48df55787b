// A node admits only connections whose hello carries its cell's token (PROTOCOL.md 10.2): a
// stranger without it, with another, or sending no hello at all gets an error frame naming
// its address and never the token, and is closed; a node without a token does not start,
// nor does one asked to listen on no host (which would mean every interface).

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <sstream>

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

// Sends `bytes` on one end of a socketpair and admits the other end as a node would.
std::pair<bool, std::string> knock(const std::string& bytes) {
  int fds[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  EXPECT_EQ(::write(fds[1], bytes.data(), bytes.size()), ssize_t(bytes.size()));
  const bool admitted = net::admit(fds[0], "10.0.0.5:4711", kToken).has_value();
  return {admitted, admitted ? "" : answer_of(fds[1])};
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

TEST(NetToken, TokensCompareWhole) {
  EXPECT_TRUE(net::same_token(kToken, kToken));
  EXPECT_FALSE(net::same_token(kToken.substr(0, 31), kToken));
  EXPECT_FALSE(net::same_token("", "a"));
}

TEST(NetToken, ANodeWithoutATokenOrAHostDoesNotStart) {
  std::ostringstream out;
  EXPECT_EQ(net::listen("127.0.0.1:0", "", out), 1);
  EXPECT_EQ(net::listen(":0", kToken, out), 1);
  EXPECT_EQ(out.str(), "");  // neither printed an address
}

}  // namespace
}  // namespace serbench::test
