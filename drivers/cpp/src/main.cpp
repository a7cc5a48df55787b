// serbench-cpp: the C++ driver of serbench (PROTOCOL.md).
//   serbench-cpp info    one JSON object: capabilities and versions
//   serbench-cpp serve   JSON requests on stdin, one response per line on stdout
//   serbench-cpp listen --address HOST:PORT [--allow-wildcard]
//                        one node of a network cell (PROTOCOL.md 10)

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "net/node.h"
#include "ops.h"
#include "serve.h"

namespace {

// `listen --address HOST:PORT [--allow-wildcard]`, the flag before or after: the address and
// whether the node may bind a wildcard host (every interface).
std::optional<std::pair<std::string_view, bool>> listen_args(int argc, char** argv) {
  const std::vector<std::string_view> a(argv + 2, argv + argc);
  constexpr std::string_view address = "--address", wildcard = "--allow-wildcard";
  if (a.size() == 2 && a[0] == address) return std::pair{a[1], false};
  if (a.size() == 3 && a[0] == address && a[2] == wildcard) return std::pair{a[1], true};
  if (a.size() == 3 && a[0] == wildcard && a[1] == address) return std::pair{a[2], true};
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::string_view command = argc >= 2 ? argv[1] : "";
  if (command == "listen") {
    if (const auto args = listen_args(argc, argv)) {
      // the cell's token comes from the environment, never the command line
      const char* token = std::getenv(serbench::net::kTokenEnv);
      return serbench::net::listen(args->first, args->second, token ? token : "", std::cout);
    }
  }
  if (command == "info") {
    std::cout << serbench::info().dump() << '\n';
    return 0;
  }
  if (argc == 2 && command == "serve") return serbench::serve(std::cin, std::cout);
  std::cerr << "usage: serbench-cpp info | serve | listen --address HOST:PORT [--allow-wildcard]\n";
  return 2;
}
