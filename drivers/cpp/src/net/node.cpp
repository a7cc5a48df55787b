#include "net/node.h"

#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <future>
#include <iostream>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <thread>

#include "memstat/rss.h"
#include "net/door.h"
#include "net/tasks.h"
#include "tasks/task.h"

namespace serbench::net {

namespace {

// How long a node waits for the harness to connect, and for its next message.
constexpr uint64_t kControlWaitMs = 60'000;
constexpr uint64_t kControlIdleMs = 3'600'000;

[[noreturn]] void sys_failure(const std::string& what) {
  throw Failure(Kind::internal, what + ": " + std::strerror(errno));
}

// The addresses of a peer to dial; nullptr when `address` names none.
addrinfo* resolve(std::string_view address) {
  const auto parts = split_address(address);
  if (!parts) return nullptr;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(parts->first.c_str(), parts->second.c_str(), &hints, &found) != 0) return nullptr;
  return found;
}

Link dial(const std::string& name, const std::string& address, const Hello& me,
          uint64_t timeout_ms) {
  addrinfo* found = resolve(address);
  if (!found) throw PeerFailure(name, "'" + address + "' is not an address");
  int fd = -1;
  int error = 0;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    // a connect bounded by the peer timeout
    timeval tv{time_t(timeout_ms / 1000), suseconds_t(timeout_ms % 1000 * 1000)};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      error = errno;
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    throw PeerFailure(name, "cannot connect to " + address + ": " + std::strerror(error));
  }
  Link link(name, fd, timeout_ms);
  IoTimer timer;
  const std::string payload = me.payload();
  link.send(FrameKind::hello, {as_bytes(payload)}, timer);
  const Hello answer = recv_hello(link, timer);
  if (!same_token(answer.token, me.token)) {
    throw PeerFailure(name, "answered without this cell's token");
  }
  answer.check_speaks(me.speaks, name);
  return link;
}

std::string params_text(const JsonObject& setup) {
  const std::string text = setup.text("params");
  return text == "null" ? "{}" : text;
}

}  // namespace

Depth Setup::depth_or_materialize() const {
  return depth.empty() ? Depth::materialize : parse_depth(depth);
}

std::pair<uint64_t, uint64_t> Links::bytes() const {
  uint64_t sent = 0, received = 0;
  for (const auto* group : {&dialed, &accepted}) {
    for (const Link& l : *group) {
      sent += l.bytes_sent;
      received += l.bytes_received;
    }
  }
  return {sent, received};
}

Node::Node(std::unique_ptr<Door> door, Link control, std::string token)
    : door_(std::move(door)), control_(std::move(control)), token_(std::move(token)) {}

Node::~Node() = default;

Setup Node::read_setup() {
  IoTimer ignored;
  const JsonObject message = control_.recv_json(FrameKind::control, ignored);
  if (message.str("op") != "setup") throw bad_request("expected setup, got " + message.dump());
  Setup s{message.str("task"),    message.str("role"),  message.str("name"),
          message.str("method"),  message.str("model"), message.str("variant"),
          message.str("depth"),   Params::parse(params_text(message))};
  s.peer_timeout_ms = s.params.u64_or("peer_timeout_ms", 30000);
  if (s.peer_timeout_ms == 0) throw bad_request("params.peer_timeout_ms must be at least 1");
  s.net_frame_bytes = net_frame_bytes(s.params);
  name_ = s.name;
  peer_timeout_ms_ = s.peer_timeout_ms;
  net_frame_bytes_ = s.net_frame_bytes;
  speaks_ = {s.task, s.method, s.model, s.variant};
  return s;
}

Hello Node::hello() const { return Hello{"data", name_, speaks_, token_}; }

void Node::drive(Role& role) {
  IoTimer ignored;
  control_.send_json(FrameKind::control, Json::object({{"op", "prepared"}}), ignored);
  Links links;
  try {
    links = connect();
    role.check_links(links);
    control_.send_json(FrameKind::control, Json::object({{"op", "ready"}}), ignored);
    repetitions(role, links);
  } catch (const std::exception& e) {
    for (auto* group : {&links.dialed, &links.accepted}) {
      for (Link& l : *group) l.send_error(e);
    }
    throw;
  }
}

void Node::repetitions(Role& role, Links& links) {
  IoTimer ignored;
  for (;;) {
    const JsonObject message = control_.recv_json(FrameKind::control, ignored);
    const std::string op = message.str("op");
    if (op == "go") {
      const Json report = repetition(role, links, message);
      control_.send_json(FrameKind::control, report, ignored);
    } else if (op == "shutdown") {
      return;
    } else {
      throw bad_request("expected go or shutdown, got " + message.dump());
    }
  }
}

Json Node::repetition(Role& role, Links& links, const JsonObject& go) {
  const auto [sent, received] = links.bytes();
  IoTimer timer;
  const uint64_t start = now_ns();
  Outcome outcome = role.repetition(links, timer);
  const uint64_t total = now_ns() - start;
  const auto [sent_after, received_after] = links.bytes();
  const uint64_t io = std::min(timer.ns(), total);
  Json report = Json::object({{"op", "report"},
                              {"node", name_},
                              {"rep", Json::raw(go.text("rep"))},
                              {"warmup", Json::raw(go.text("warmup"))},
                              {"total_ns", total},
                              {"io_ns", io},
                              {"cpu_ns", total - io},
                              {"bytes_sent", sent_after - sent},
                              {"bytes_received", received_after - received},
                              {"objects", outcome.objects},
                              {"checksum", outcome.checksum ? checksum_json(*outcome.checksum)
                                                            : Json(nullptr)},
                              {"peak_rss_bytes", peak_rss_bytes()}});
  for (auto& [key, value] : outcome.extra) report.set(std::move(key), std::move(value));
  return report;
}

Links Node::connect() {
  IoTimer ignored;
  const JsonObject message = control_.recv_json(FrameKind::control, ignored);
  if (message.str("op") != "connect") {
    throw bad_request("expected connect, got " + message.dump());
  }
  const uint64_t accept = message.u64("accept").value_or(0);
  std::vector<std::pair<std::string, std::string>> dials;
  for (const JsonObject& peer : message.array("dial")) {
    if (peer.str("name").empty() || peer.str("address").empty()) {
      throw bad_request("a malformed peer in connect: " + peer.dump());
    }
    dials.emplace_back(peer.str("name"), peer.str("address"));
  }
  // dial in the background: two nodes may dial each other's listeners at once
  const Hello me = hello();
  const uint64_t timeout = peer_timeout_ms_;
  auto dialer = std::async(std::launch::async, [dials, me, timeout] {
    std::vector<Link> out;
    for (const auto& [name, address] : dials) out.push_back(dial(name, address, me, timeout));
    return out;
  });
  Links links;
  std::exception_ptr failed;
  try {
    const uint64_t deadline = now_ns() + peer_timeout_ms_ * 1'000'000;
    for (uint64_t i = 0; i < accept; ++i) links.accepted.push_back(accept_peer(deadline));
    door_->shut();
    std::sort(links.accepted.begin(), links.accepted.end(),
              [](const Link& a, const Link& b) { return a.peer < b.peer; });
  } catch (...) {
    failed = std::current_exception();
  }
  try {
    links.dialed = dialer.get();
  } catch (...) {
    if (!failed) failed = std::current_exception();
  }
  if (failed) {
    try {
      std::rethrow_exception(failed);
    } catch (const std::exception& e) {
      for (auto* group : {&links.dialed, &links.accepted}) {
        for (Link& l : *group) l.send_error(e);
      }
      throw;
    }
  }
  // past the hellos, frames between data nodes are bounded by the cell's limit
  for (auto* group : {&links.dialed, &links.accepted}) {
    for (Link& l : *group) l.set_max_frame(net_frame_bytes_);
  }
  return links;
}

Link Node::accept_peer(uint64_t deadline_ns) {
  auto admitted = door_->admit(token_, deadline_ns, "a peer the harness announced");
  Link link = std::move(admitted.first);
  const Hello& theirs = admitted.second;
  link.set_timeout(peer_timeout_ms_);
  IoTimer timer;
  try {
    if (theirs.role != "data") {
      throw PeerFailure(link.peer, "a '" + theirs.role + "' hello on a data connection");
    }
    theirs.check_speaks(speaks_, theirs.from + " (" + link.peer + ")");
    const std::string payload = hello().payload();
    link.send(FrameKind::hello, {as_bytes(payload)}, timer);
    link.peer = theirs.from;
  } catch (const std::exception& e) {
    link.send_error(e);
    throw;
  }
  return link;
}

// ---- listen -------------------------------------------------------------------------------

int listen(std::string_view address, bool allow_wildcard, std::string_view token,
           std::ostream& out) {
  ::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<Door> door;
  try {
    if (token.empty()) {
      throw bad_request(std::string(kTokenEnv) + " is empty or not set: a node admits only " +
                        "peers presenting its cell's token");
    }
    door = std::make_unique<Door>(bind_listener(address, allow_wildcard));
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    if (getsockname(door->listener(), reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
      sys_failure("getsockname");
    }
    out << Json::object({{"address", address_text(bound)}, {"pid", int64_t(::getpid())}}).dump()
        << std::endl;
  } catch (const std::exception& e) {
    const auto [kind, message] = describe(e);
    std::cerr << "serbench-cpp listen: " << kind << ": " << message << '\n';
    return 1;
  }

  std::optional<Node> node;
  try {
    auto [control, hello] =
        door->admit(token, now_ns() + kControlWaitMs * 1'000'000, "the harness");
    control.peer = "harness at " + control.peer;
    if (hello.role != "control") throw PeerFailure(control.peer, "dialed before the harness did");
    control.set_timeout(kControlIdleMs);
    node.emplace(std::move(door), std::move(control), std::string(token));
    const Setup setup = node->read_setup();
    const NetTask* task = nullptr;
    for (const NetTask& t : all_net_tasks()) {
      if (t.id == setup.task) task = &t;
    }
    if (!task) throw unsupported("this driver does not run task '" + setup.task + "'");
    task->run(setup, *node);
    return 0;
  } catch (const std::exception& e) {
    const auto [kind, message] = describe(e);
    std::cerr << "serbench-cpp listen: " << kind << ": " << message << '\n';
    if (node) node->control().send_error(e);
    return 1;
  }
}

std::vector<std::string_view> net_tasks() {
  std::vector<std::string_view> ids;
  for (const NetTask& t : all_net_tasks()) ids.push_back(t.id);
  return ids;
}

bool plain_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

void check_range(const std::string& input, uint64_t start, uint64_t n, uint64_t count) {
  if (start > count || n > count - start) {
    throw Failure(Kind::out_of_range, "objects " + std::to_string(start) + ".." +
                                          std::to_string(start) + "+" + std::to_string(n) +
                                          " asked, " + input + " holds " + std::to_string(count));
  }
}

void check_tree_links(std::string_view task, const Links& links, bool has_output) {
  if (links.dialed.size() > 1) {
    throw bad_request("a " + std::string(task) + " node dials at most its parent");
  }
  if (links.dialed.empty() && !has_output) throw bad_request("the root (no parent) needs params.output");
}

}  // namespace serbench::net
