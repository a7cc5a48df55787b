#include "serve.h"

#include <iostream>
#include <new>

#include "ops.h"
#include "protocol.h"

namespace serbench {

std::string handle_line(std::string_view line, bool& shutdown) {
  Request req;
  try {
    parse_request(line, req);
    Json result = answer(req);
    shutdown = req.op == "shutdown";
    return ok_response(req.id_json, result);
  } catch (const Failure& f) {
    return failure_response(req.id_json, f);
  } catch (const std::bad_alloc&) {
    return failure_response(req.id_json, Failure(Kind::internal, "out of memory"));
  } catch (const std::exception& e) {
    return failure_response(req.id_json, Failure(Kind::internal, e.what()));
  } catch (...) {
    return failure_response(req.id_json, Failure(Kind::internal, "unknown exception"));
  }
}

int serve(std::istream& in, std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    bool shutdown = false;
    out << handle_line(line, shutdown) << '\n' << std::flush;
    if (shutdown) break;
  }
  return 0;
}

}  // namespace serbench
