// `ddb-server --health-check`: asks a running server on this machine whether it serves, so
// that a container's HEALTHCHECK needs nothing but the binary (no shell, no curl).
// Thread safety: a plain function; blocks for at most `timeout_ms`.
#pragma once

#include <cstdint>
#include <string>

#include "ddb/error.h"

namespace ddb::server {

// GET / from host:port (an IP literal or localhost; 0.0.0.0 and :: mean the loopback address) and
// checks that the answer is 200 with the health text. Errors: kInternal naming what failed (connect
// refused, timeout, another status).
Status CheckHealth(const std::string& host, uint16_t port, int timeout_ms);

}  // namespace ddb::server
