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

}  // namespace ddb
