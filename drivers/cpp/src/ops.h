#pragma once
// The protocol's operations: info, load, roundtrip, encode, scan, run and shutdown.

#include "json.h"
#include "protocol.h"

namespace serbench {

// The result of one request; throws Failure.
Json answer(const Request& req);

// The `info` object of PROTOCOL.md section 3.
Json info();

}  // namespace serbench
