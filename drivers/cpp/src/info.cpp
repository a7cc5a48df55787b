// `info`: the capability matrix and the versions of everything this binary was built with.
// The build records its compiler and flags (SERBENCH_COMPILER, SERBENCH_CXX_FLAGS); library
// versions come from the headers actually compiled in.

#include <capnp/common.h>
#include <flatbuffers/base.h>
#include <google/protobuf/stubs/common.h>
#include <rapidjson/rapidjson.h>
// serialization libraries: versions of the headers, and of the shared libraries linked
#include <bson/bson.h>
#include <zlib.h>

#include <boost/version.hpp>
#include <cereal/version.hpp>
#include <msgpack/version.hpp>

#include <map>
#include <string_view>
#include <vector>

#include "cell.h"
#include "file.h"
#include "net/node.h"
#include "ops.h"

namespace serbench {

namespace {

// The libprotobuf linked in: its own report of the version it was built as.
std::string protobuf_version() {
  GOOGLE_PROTOBUF_VERIFY_VERSION;  // the headers compiled in match the library linked
  return google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION);
}

std::string capnp_version() {
  return std::to_string(CAPNP_VERSION_MAJOR) + "." + std::to_string(CAPNP_VERSION_MINOR) + "." +
         std::to_string(CAPNP_VERSION_MICRO);
}

// The libraries each method uses, by their names in `libraries` (PROTOCOL.md 3); kept here
// beside the versions, as Java keeps its jars by method. A method missing here is refused
// by the info test.
const std::map<std::string_view, std::vector<std::string_view>> kMethodLibraries = {
    {"boost_binary", {"boost"}}, {"boost_text", {"boost"}},
    {"bson", {"libbson"}},       {"capnp", {"capnproto"}},
    {"cereal", {"cereal"}},      {"flatbuffers", {"flatbuffers"}},
    {"handcoded", {}},           {"inplace", {}},
    {"json", {"rapidjson"}},     {"json_gzip", {"rapidjson", "zlib"}},
    {"msgpack", {"msgpack-cxx"}}, {"msgpack_arrays", {"msgpack-cxx"}},
    {"protobuf", {"libprotobuf"}}, {"raw", {}},
};

std::map<std::string_view, std::string> library_versions() {
  return {{"rapidjson", RAPIDJSON_VERSION_STRING},
          {"libstdc++", std::to_string(__GLIBCXX__)},
          {"libprotobuf", protobuf_version()},
          {"flatbuffers", flatbuffers::FLATBUFFERS_VERSION()},
          {"capnproto", capnp_version()},
          // serialization libraries
          {"boost", std::to_string(BOOST_VERSION / 100000) + "." +
                        std::to_string(BOOST_VERSION / 100 % 1000) + "." +
                        std::to_string(BOOST_VERSION % 100)},
          {"cereal", std::to_string(CEREAL_VERSION_MAJOR) + "." +
                         std::to_string(CEREAL_VERSION_MINOR) + "." +
                         std::to_string(CEREAL_VERSION_PATCH)},
          {"msgpack-cxx", msgpack_version()},
          {"libbson", bson_get_version()},
          {"zlib", zlibVersion()}};
}

std::vector<std::string_view> all_names(const std::map<std::string_view, std::string>& versions) {
  std::vector<std::string_view> names;
  for (const auto& [name, version] : versions) names.push_back(name);
  return names;
}

// name -> version of the given libraries; "unknown" for a name `libraries` does not have.
Json versions_of(const std::vector<std::string_view>& names,
                 const std::map<std::string_view, std::string>& versions) {
  Json out = Json::object();
  for (std::string_view name : names) {
    auto found = versions.find(name);
    out.set(std::string(name), found == versions.end() ? "unknown" : found->second);
  }
  return out;
}

}  // namespace

Json info() {
  const auto versions = library_versions();
  Json::Array model_names;
  for (auto name : kModelNames) model_names.emplace_back(name);
  Json::Array eviction{Json(kEviction)};
  Json method_specs = Json::object();
  for (const MethodEntry& m : methods()) {
    Json::Array depths;
    for (Depth d : m.depths) depths.emplace_back(depth_id(d));
    Json spec = Json::object({{"depths", std::move(depths)},
                              {"variants", Json::array_of(m.variants)},
                              {"models", model_names},
                              {"files", Json::array_of(m.files)},
                              {"settings", m.settings ? m.settings() : Json::object()}});
    auto libraries = kMethodLibraries.find(m.id);
    spec.set("libraries", libraries == kMethodLibraries.end()
                              ? Json(nullptr)  // the info test names the method
                              : versions_of(libraries->second, versions));
    if (!m.writes) {
      // the raw floor is also the write and the sort floor (tasks/write.h,
      // tasks/sort_dedup.h): PROTOCOL.md 5 and 5.2.1
      spec.set("floors", Json::array_of(std::array{"write", "sort_dedup"}));
    }
    method_specs.set(std::string(m.id), std::move(spec));
  }
  return Json::object(
      {{"language", "cpp"},
       {"driver_version", SERBENCH_VERSION},
       {"toolchain", Json::object({{"compiler", SERBENCH_COMPILER},
                                   {"standard", "c++" + std::to_string(__cplusplus / 100 % 100)},
                                   {"build_type", SERBENCH_BUILD_TYPE},
                                   {"flags", SERBENCH_CXX_FLAGS}})},
       {"libraries", versions_of(all_names(versions), versions)},
       {"models", std::move(model_names)},
       {"tasks", Json::array_of(tasks())},
       {"net_tasks", Json::array_of(net::net_tasks())},
       {"methods", std::move(method_specs)},
       {"eviction", std::move(eviction)}});
}

}  // namespace serbench
