#pragma once
// The request loop of `serve`: one JSON request per line in, one response per line out.
// Every failure becomes an error response and the loop reads the next request.

#include <iosfwd>
#include <string>
#include <string_view>

namespace serbench {

// The response line (without newline) to one request line; `shutdown` is set by a shutdown
// request.
std::string handle_line(std::string_view line, bool& shutdown);

// Answers requests until stdin closes or a shutdown request; returns the exit status.
int serve(std::istream& in, std::ostream& out);

}  // namespace serbench
