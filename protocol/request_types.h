// The service deserializes a whole request before it reads any member's value, so a member of
// the wrong JSON type is a SerializationException whatever else is wrong with the request, and
// the first such member (in document order) names it, in the service's words (its Java
// deserializer's: "NUMBER_VALUE cannot be converted to String", "Unexpected field type", ...;
// dynalite's suite records them against the service). ddb's readers check members as they read
// them: the handler asks FirstTypeError when a request fails, so that an error they answer
// first does not hide such a member, and their own wrong-type messages become the service's.
// Types come from the service model (request_shapes.inc, tools/gen_request_shapes.py); members
// and operations the model does not know are not checked here.
// Internal to protocol/. Thread safety: pure function.
#pragma once

#include <optional>
#include <string_view>

#include "ddb/error.h"
#include "protocol/json_reader.h"

namespace ddb::protocol {

// The SerializationException for the first member of `request` whose JSON type its shape does
// not take, or nullopt. Its work is one walk of the request's document.
std::optional<Error> FirstTypeError(std::string_view operation, const JsonObject& request);

}  // namespace ddb::protocol
