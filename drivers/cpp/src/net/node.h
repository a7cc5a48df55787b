#pragma once
// One node of a network cell (PROTOCOL.md 10.1, 10.4): `listen` binds, prints its address,
// takes the harness's control connection, then answers `setup` with `prepared`, `connect`
// with `ready` and every `go` with a report, until `shutdown`. Any failure is sent to the
// harness and to every peer as an error frame, and the node exits non-zero. Only connections
// whose hello carries the cell's token are admitted: a stranger is refused and logged, and the
// node keeps waiting for its peer.
//
// Two axes, as for the single-machine tasks: each network task is one file here (fetch.cpp,
// ...), generic over the method and the model; tasks.cpp lists them once and the registry's
// method list (registry.h) gives every method they are compiled for.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json.h"
#include "model/checksum.h"
#include "net/wire.h"
#include "protocol.h"
#include "timing.h"

namespace serbench::net {

// What the harness's `setup` says.
struct Setup {
  std::string task, role, name, method, model, variant, depth;
  Params params;
  uint64_t peer_timeout_ms = 30000;
  std::size_t net_frame_bytes = kMaxFrame;  // the largest frame on a link to a peer

  // The cell's depth, `materialize` when the setup names none.
  Depth depth_or_materialize() const;
};

// A node's connections: those it dialed (in the harness's order) and those it accepted
// (ordered by the peer's name, byte-wise, whatever order they arrived in).
struct Links {
  std::vector<Link> dialed, accepted;
  std::pair<uint64_t, uint64_t> bytes() const;
};

// What one repetition of a role produced, besides what the node measures itself.
struct Outcome {
  uint64_t objects = 0;
  std::optional<SetChecksum> checksum;
  Json::Object extra;  // task-specific report keys
};

// One node's part in a network task.
class Role {
 public:
  virtual ~Role() = default;
  // Throws bad_request when the harness wired links the role cannot use.
  virtual void check_links(const Links& links) = 0;
  // One repetition; socket and file calls timed into `timer` (a role working on several
  // threads adds their mean).
  virtual Outcome repetition(Links& links, IoTimer& timer) = 0;
};

// The environment variable that gives a node its cell's token (never the command line, which
// other users see).
inline constexpr const char* kTokenEnv = "SERBENCH_NODE_TOKEN";
// The node's door (net/door.h): its listener and the connections still saying hello.
class Door;

class Node {
 public:
  Node(std::unique_ptr<Door> door, Link control, std::string token);
  ~Node();
  Node(const Node&) = delete;

  // Reads `setup`; then the task's role is built (untimed loading) and handed to drive().
  Setup read_setup();
  // Answers prepared, wires the links, answers ready, then runs every go until shutdown.
  void drive(Role& role);
  Link& control() { return control_; }

 private:
  Links connect();
  Link accept_peer(uint64_t deadline_ns);
  void repetitions(Role& role, Links& links);
  Json repetition(Role& role, Links& links, const JsonObject& go);
  Hello hello() const;

  std::unique_ptr<Door> door_;  // behind a pointer: the tasks' files need not see it
  Link control_;
  std::string token_;
  std::string name_;
  std::array<std::string, 4> speaks_;
  uint64_t peer_timeout_ms_ = 30000;
  std::size_t net_frame_bytes_ = kMaxFrame;
};

// `listen --address HOST:PORT [--allow-wildcard]`: runs one node, which admits only
// connections presenting `token`, until shutdown (0) or a failure (non-zero, reported to the
// harness first when it could be). An empty token, or an address bind_listener refuses, does
// not start it.
int listen(std::string_view address, bool allow_wildcard, std::string_view token,
           std::ostream& out);

// The network tasks this driver's nodes run (info.net_tasks).
std::vector<std::string_view> net_tasks();

// Whether object ids of a server file can name a file (a net_fetch server's name).
bool plain_name(std::string_view name);

// Objects start .. start+n must lie in a file of `count` objects.
void check_range(const std::string& input, uint64_t start, uint64_t n, uint64_t count);

// A tree node (aggregate, sort-merge) dials at most its parent; the root needs `output`.
void check_tree_links(std::string_view task, const Links& links, bool has_output);

}  // namespace serbench::net
