// Checks of items and keys against a table's key schema, with DynamoDB's messages.
// Thread safety: pure functions.
#pragma once

#include "ddb/error.h"
#include "ddb/limits.h"
#include "ddb/types.h"
#include "engine/index_key.h"

namespace ddb {

// A whole item for PutItem: ValidateItemKeys and ValidateItemSize. Errors: kValidation.
Status ValidateItem(const TableDescription& table, const Item& item);

// An item's key attributes: present, of the declared type, not empty, not too long.
// Errors: kValidation.
Status ValidateItemKeys(const TableDescription& table, const Item& item);

// An item no larger than 400 KB. Errors: kValidation.
Status ValidateItemSize(size_t item_size);  // the same, for a size already computed
Status ValidateItemSize(const Item& item);

// An item whose lists and maps nest at most kMaxNestingDepth levels (its own attributes are
// level 1), as every item parsed from a request does; an update can build a deeper one by
// setting a deep value at a deep path. Errors: kValidation.
Status ValidateItemNesting(const Item& item);

// The secondary-index key attributes of an item about to be written: of the declared type
// and not empty (an item without them is simply not indexed). Errors: kValidation.
// "by_update": the item is the result of an UpdateExpression (the service words it so).
Status ValidateIndexKeys(const std::vector<IndexSchema>& indexes, const Item& item,
                         bool by_update = false);

// ValidateKey in two steps: the key names exactly the key attributes (shape), and their
// values have the declared types, are not empty, not too long (values). A transaction reports
// a values error as its action's ValidationError. Errors: kValidation.
Status ValidateKeyShape(const TableDescription& table, const Item& key);
Status ValidateKeyValues(const TableDescription& table, const Item& key);

// Whether `e` is the error of an empty key value (of the table or of an index): a
// transaction fails with it outright, where other bad key values cancel it.
bool IsEmptyKeyValueError(const Error& e);

// A primary key for GetItem/DeleteItem: exactly the key attributes, declared types.
// Errors: kValidation ("The provided key element does not match the schema", ...).
Status ValidateKey(const TableDescription& table, const Item& key);

}  // namespace ddb
