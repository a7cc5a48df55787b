// serbench-cpp: the C++ driver of serbench (PROTOCOL.md).
//   serbench-cpp info    one JSON object: capabilities and versions
//   serbench-cpp serve   JSON requests on stdin, one response per line on stdout
//   serbench-cpp listen --address HOST:PORT   one node of a network cell (PROTOCOL.md 10)

#include <cstdlib>
#include <iostream>
#include <string_view>

#include "net/node.h"
#include "ops.h"
#include "serve.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::string_view command = argc >= 2 ? argv[1] : "";
  if (command == "listen" && argc == 4 && std::string_view(argv[2]) == "--address") {
    // the cell's token comes from the environment, never the command line
    const char* token = std::getenv(serbench::net::kTokenEnv);
    return serbench::net::listen(argv[3], token ? token : "", std::cout);
  }
  if (command == "info") {
    std::cout << serbench::info().dump() << '\n';
    return 0;
  }
  if (argc == 2 && command == "serve") return serbench::serve(std::cin, std::cout);
  std::cerr << "usage: serbench-cpp info | serve | listen --address HOST:PORT\n";
  return 2;
}
