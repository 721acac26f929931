// The engine requests of the item, read, batch, transaction and table-changing operations,
// read from their JSON bodies with the service's validation: what the handlers in
// operations.h call before the engine, exposed so that parsing is tested without an engine
// (request_readers_test.cc).
// Internal to protocol/. Thread safety: pure functions.
#pragma once

#include "ddb/types.h"
#include "protocol/json_reader.h"

namespace ddb::protocol {

// Errors: kValidation (the service's messages), kSerialization (wrong member types).
Result<PutItemRequest> ReadPutItem(const JsonObject& request);
Result<GetItemRequest> ReadGetItem(const JsonObject& request);
Result<DeleteItemRequest> ReadDeleteItem(const JsonObject& request);
Result<UpdateItemRequest> ReadUpdateItem(const JsonObject& request);
Result<QueryRequest> ReadQuery(const JsonObject& request);
Result<ScanRequest> ReadScan(const JsonObject& request);
Result<BatchGetItemRequest> ReadBatchGetItem(const JsonObject& request);
Result<BatchWriteItemRequest> ReadBatchWriteItem(const JsonObject& request);
Result<TransactWriteItemsRequest> ReadTransactWriteItems(const JsonObject& request);
Result<TransactGetItemsRequest> ReadTransactGetItems(const JsonObject& request);
Result<CreateTableRequest> ReadCreateTable(const JsonObject& request);
Result<UpdateTableRequest> ReadUpdateTable(const JsonObject& request);

}  // namespace ddb::protocol
