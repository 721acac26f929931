// What TransactWriteItems and PartiQL's ExecuteTransaction share. Internal.
// Thread safety: pure function.
#pragma once

#include <vector>

#include "ddb/error.h"
#include "ddb/types.h"

namespace ddb {

// The TransactionCanceledException of a transaction: one reason per action, in request
// order, and their codes listed in the message.
Error TransactionCanceled(std::vector<CancellationReason> reasons);

// What the service says of an item another transaction holds: the TransactionConflict
// reason's message, and the message of a single-item write's TransactionConflictException.
inline constexpr char kTransactionOngoing[] = "Transaction is ongoing for the item";
// The TransactionConflictException of a single-item write to an item a transaction holds.
Error TransactionConflict();

}  // namespace ddb
