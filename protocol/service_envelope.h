// Where the service answers a ValidationException inside its request-validation envelope,
// "1 validation error detected: <message>". Since 2026 the service puts some single errors
// in it, family by family and operation by operation (its rollout reached PutItem,
// UpdateItem and DeleteItem first; Query and TransactWriteItems still answer unused
// placeholders bare). This is the one place that says which: the engine and the request
// readers produce the bare messages, and HandleRequest passes every error through here.
// Internal to protocol/. Thread safety: pure function.
#pragma once

#include <string_view>

#include "ddb/error.h"

namespace ddb::protocol {

// `error` as `operation` answers it on the wire: unchanged unless it is a bare
// ValidationException of a family the service envelopes there.
Error InServiceEnvelope(std::string_view operation, Error error);

}  // namespace ddb::protocol
