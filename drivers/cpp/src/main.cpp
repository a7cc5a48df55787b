// serbench-cpp: the C++ driver of serbench (PROTOCOL.md).
//   serbench-cpp info    one JSON object: capabilities and versions
//   serbench-cpp serve   JSON requests on stdin, one response per line on stdout

#include <iostream>
#include <string_view>

#include "ops.h"
#include "serve.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const std::string_view command = argc == 2 ? argv[1] : "";
  if (command == "info") {
    std::cout << serbench::info().dump() << '\n';
    return 0;
  }
  if (command == "serve") return serbench::serve(std::cin, std::cout);
  if (command == "listen") {
    std::cerr << "serbench-cpp: listen is reserved for the network tasks, not implemented yet\n";
    return 2;
  }
  std::cerr << "usage: serbench-cpp info | serve\n";
  return 2;
}
