// The service's rules for a PartiQL SELECT of a secondary index ("table"."index"), checked
// before the read: the index exists, a GSI is read eventually consistently and asked only
// for what it projects, and a read keyed on the index filters only on what the index
// projects (an LSI fetches the table's item for an unprojected attribute it returns, but
// filters before it fetches; an unkeyed read filters the entries as they are).
// Thread safety: pure functions.
#pragma once

#include <vector>

#include "ddb/error.h"
#include "ddb/types.h"
#include "engine/partiql/partiql_parser.h"

namespace ddb::partiql {

// "keyed_filter": the WHERE terms besides the index key condition when WHERE has one (the
// read is a Query of the index), else null. Errors: kValidation, in the service's words:
//   The table does not have the specified index            (no index name appended)
//   Strongly consistent read is not supported on Global Secondary Indexes
//   One or more parameter values were invalid: Global secondary index I does not project [a]
//   One or more parameter values were invalid: Secondary index I does not project one or
//     more filter attributes: [a]
Status CheckIndexRead(const TableDescription& table, const Statement& st, bool consistent_read,
                      const std::vector<const Expr*>* keyed_filter);

}  // namespace ddb::partiql
