#pragma once
// The wire side of PROTOCOL.md: requests, responses, error kinds and access depths.

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "json.h"

namespace serbench {

// Why a request produced no result. `unsupported` is a status, not an error.
enum class Kind {
  unsupported,
  bad_request,
  not_found,
  wrong_file,
  corrupt_input,
  out_of_range,
  checksum_mismatch,
  internal
};

std::string_view kind_id(Kind kind);

// A failed request: its kind and a message naming the file, object and problem.
class Failure : public std::exception {
 public:
  Failure(Kind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  Kind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  Kind kind_;
  std::string message_;
};

inline Failure bad_request(std::string message) { return {Kind::bad_request, std::move(message)}; }
inline Failure unsupported(std::string message) { return {Kind::unsupported, std::move(message)}; }
inline Failure corrupt(std::string message) { return {Kind::corrupt_input, std::move(message)}; }

// How deep a read goes; `none` is the protocol's "" (writes and the raw floor).
enum class Depth { none, materialize, access, key };

std::string_view depth_id(Depth depth);
Depth parse_depth(std::string_view id);  // throws bad_request

// Which run wrote a paged file (PROTOCOL.md 4.2): the 16 random bytes the harness draws per
// run, all zero for no run.
using RunStamp = std::array<uint8_t, 16>;

// A request's `params`, with typed getters whose errors are bad_requests naming the key.
class Params {
 public:
  Params();
  ~Params();
  Params(Params&&) noexcept;
  Params& operator=(Params&&) noexcept;
  // `object_json` is the params object's JSON text ("{}" when absent).
  static Params parse(std::string_view object_json);

  bool has(std::string_view key) const;
  std::string path(std::string_view key) const;
  std::string string(std::string_view key) const;
  uint64_t u64(std::string_view key) const;
  // An optional one: `fallback` when absent.
  uint64_t u64_or(std::string_view key, uint64_t fallback) const;
  bool boolean(std::string_view key) const;
  // At least 64 and below 2^32 (the index stores it as u32); nullopt when absent.
  std::optional<uint32_t> page_size() const;
  // `run_stamp`: 32 lowercase hex digits; all zero when absent.
  RunStamp run_stamp() const;

 private:
  struct Doc;
  std::unique_ptr<Doc> doc_;
};

struct Request {
  std::string id_json = "null";  // echoed verbatim
  std::string op;
  std::optional<std::string> model, method, depth, variant, task;
  Params params;
};

// Fills `req` field by field, so its id is known even when a later field is bad.
void parse_request(std::string_view line, Request& req);  // throws bad_request

// The response line (no newline) for a request's id and its outcome.
std::string ok_response(const std::string& id_json, const Json& result);
std::string failure_response(const std::string& id_json, const Failure& failure);

}  // namespace serbench
