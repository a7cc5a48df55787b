#include "ops.h"

#include <algorithm>

#include "cell.h"
#include "model/checksum.h"
#include "model/jsonl.h"
#include "tasks/task.h"

namespace serbench {

namespace {

// Every task id of the protocol; those this driver does not run are unsupported.
constexpr std::array<std::string_view, 8> kProtocolTasks{
    "write", "read_seq", "read_rand", "read_par", "sort_dedup", "memory", "micro", "sizes"};

template <class Range>
std::string joined(const Range& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + std::string(item);
  return out;
}

const std::string& required(const std::optional<std::string>& field, const char* name) {
  if (!field) throw bad_request(std::string("the request has no ") + name);
  return *field;
}

ModelId model_of(const Request& req) {
  const std::string& name = required(req.model, "model");
  if (auto id = parse_model(name)) return *id;
  throw bad_request("unknown model '" + name + "'; known models: " + joined(kModelNames));
}

// What a request names: model, method, depth and variant, checked against the registry.
struct Cell {
  ModelId model;
  const MethodEntry* method;
  ReadMode mode;

  const CellOps& ops() const { return method->cells[std::size_t(model)]; }
};

Cell resolve(const Request& req) {
  Cell cell{model_of(req), nullptr, {}};
  const std::string& id = required(req.method, "method");
  cell.method = find_method(id);
  if (!cell.method) {
    std::vector<std::string_view> known;
    for (const auto& m : methods()) known.push_back(m.id);
    throw bad_request("unknown method '" + id + "'; known methods: " + joined(known));
  }
  cell.mode.depth = parse_depth(req.depth.value_or(""));
  cell.mode.run_stamp = req.params.run_stamp();
  const std::string variant = req.variant.value_or("");
  if (!variant.empty()) {
    const auto& variants = cell.method->variants;
    auto it = std::find(variants.begin(), variants.end(), variant);
    if (it == variants.end()) throw unsupported("cpp " + id + " has no variant '" + variant + "'");
    cell.mode.variant = std::size_t(it - variants.begin()) + 1;
  }
  return cell;
}

// A cell that reads: a depth the method offers, or "" for a method with no depths (raw).
Cell reading(const Request& req) {
  Cell cell = resolve(req);
  const auto& depths = cell.method->depths;
  const std::string id(cell.method->id);
  const Depth depth = cell.mode.depth;
  std::vector<std::string_view> offered;
  for (Depth d : depths) offered.push_back(depth_id(d));
  if (depths.empty()) {
    if (depth != Depth::none) {
      throw unsupported("cpp " + id + " reads bytes without decoding; it has no depth '" +
                        std::string(depth_id(depth)) + "'");
    }
  } else if (depth == Depth::none) {
    throw bad_request("a read with " + id + " needs a depth: " + joined(offered));
  } else if (std::find(depths.begin(), depths.end(), depth) == depths.end()) {
    throw unsupported("cpp " + id + " does not support depth '" + std::string(depth_id(depth)) +
                      "' (it offers " + joined(offered) + ")");
  }
  return cell;
}

Cell writing(const Request& req) {
  Cell cell = resolve(req);
  if (!cell.method->writes) {
    throw unsupported(std::string(cell.method->id) +
                      " reads other methods' files; it encodes nothing");
  }
  return cell;
}

Json load(const Request& req) {
  return with_model(model_of(req), [&](auto t) {
    using M = typename decltype(t)::type;
    SetChecksum checksum;
    for_each_json_line<M>(req.params.path("input"),
                          [&](M&& object) { checksum.add(object_hash(object)); });
    return Json::object({{"checksum", checksum_json(checksum)}});
  });
}

Json run(const Request& req) {
  const std::string& task = required(req.task, "task");
  if (std::find(kProtocolTasks.begin(), kProtocolTasks.end(), task) == kProtocolTasks.end()) {
    throw bad_request("unknown task '" + task + "'; known tasks: " + joined(kProtocolTasks));
  }
  if (task == "sizes") throw unsupported("sizes is computed by the harness (PROTOCOL.md 5.5)");
  const auto ours = tasks();
  if (std::find(ours.begin(), ours.end(), task) == ours.end()) {
    throw unsupported("the cpp driver does not run task " + task + " yet");
  }
  // raw writes too: the write floor, which copies another method's file (PROTOCOL.md 5)
  const bool encodes = task == "write" && resolve(req).method->writes;
  const Cell cell = encodes ? writing(req) : reading(req);
  return cell.ops().run(task, req, cell.mode);
}

}  // namespace

Json answer(const Request& req) {
  const std::string& op = req.op;
  if (op == "info") return info();
  if (op == "shutdown") return Json::object();
  if (op == "load") return load(req);
  if (op == "roundtrip") {
    const Cell cell = reading(req);
    writing(req);
    return cell.ops().roundtrip(req, cell.mode);
  }
  if (op == "encode") return writing(req).ops().encode(req);
  if (op == "scan") {
    const Cell cell = reading(req);
    return cell.ops().scan(req, cell.mode);
  }
  if (op == "run") return run(req);
  throw bad_request("unknown op '" + op +
                    "'; known ops: info, load, roundtrip, encode, scan, run, shutdown");
}

}  // namespace serbench
