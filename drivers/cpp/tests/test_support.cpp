#include "test_support.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace serbench::test {

std::string vectors_file(std::string_view model) {
  return std::string(SERBENCH_VECTORS_DIR) + "/" + std::string(model) + ".jsonl";
}

Expected expected(std::string_view model) {
  rapidjson::Document doc;
  const std::string text =
      read_file(std::string(SERBENCH_VECTORS_DIR) + "/" + std::string(model) + ".expected.json");
  doc.Parse(text.c_str());
  auto hex = [](const rapidjson::Value& v) { return std::stoull(v.GetString(), nullptr, 16); };
  Expected out;
  for (const auto& object : doc["objects"].GetArray()) out.hashes.push_back(hex(object["hash"]));
  out.set.count = doc["set_checksum"]["count"].GetUint64();
  out.set.sum = hex(doc["set_checksum"]["sum"]);
  return out;
}

void str_by_definition(uint64_t& h, std::string_view s) {
  auto word = [&](uint64_t w) { h = (h ^ w) * kPrime; };
  word(s.size());
  for (std::size_t i = 0; i < s.size(); i += 8) {
    uint64_t chunk = 0;
    std::memcpy(&chunk, s.data() + i, std::min<std::size_t>(8, s.size() - i));
    word(chunk);
  }
}

Scratch::Scratch() : Scratch(std::filesystem::temp_directory_path()) {}

Scratch::Scratch(const std::filesystem::path& parent) {
  std::string pattern = (parent / "serbench-cpp-test-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
}

Scratch::~Scratch() { std::filesystem::remove_all(dir_); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::map<std::string, std::string> read_seeds(const std::filesystem::path& dir) {
  std::map<std::string, std::string> seeds;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    seeds[entry.path().filename()] = read_file(entry.path().string());
  }
  return seeds;
}

void rewrite_seeds(const std::filesystem::path& dir,
                   const std::map<std::string, std::string>& seeds) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& [name, bytes] : seeds) write_bytes((dir / name).string(), bytes);
}

bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

}  // namespace serbench::test
