// Random UUIDs (RFC 4122 version 4): table ids, export and import client tokens, the ids of
// the managed KMS keys a table reports.
// From a per-thread std::mt19937_64 seeded by std::random_device, not from libuuid (one more
// dependency) or OpenSSL's RAND_bytes (a lock per call): these ids need to be unique, not
// unpredictable.
// Thread safety: any thread.
#pragma once

#include <string>

namespace ddb::util {

// "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx": 32 lower-case hex digits, version 4, variant 10xx.
std::string NewUuid();

}  // namespace ddb::util
