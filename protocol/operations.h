// One handler per DynamoDB operation: parse the JSON request into an engine request,
// call the engine, render the engine result as JSON. No logic of their own beyond the
// wire shape. Internal to protocol/ (handler.cc dispatches to them).
// Thread safety: as the engine.
#pragma once

#include <string>

#include "engine/engine.h"
#include "protocol/json_reader.h"

namespace ddb::protocol {

using OperationHandler = Result<std::string> (*)(Engine& engine, const RequestContext& ctx,
                                                 const JsonObject& request);

Result<std::string> HandleCreateTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDescribeTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDeleteTable(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleListTables(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandlePutItem(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleGetItem(Engine&, const RequestContext&, const JsonObject&);
Result<std::string> HandleDeleteItem(Engine&, const RequestContext&, const JsonObject&);

// Shared request pieces.
// TableName: required, 3-255 chars of [a-zA-Z0-9_.-]; violations go to *v.
Result<std::string> ReadTableName(const JsonObject& request, Violations* v);

}  // namespace ddb::protocol
