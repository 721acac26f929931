// Error, Status and Result<T>: how every fallible call in ddb reports failure.
// An Error is one DynamoDB error kind plus a message; protocol/handler.cc owns the
// wire form ("__type" and HTTP status).
// Thread safety: plain values.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

struct ErrorDetail;  // ddb/types.h: the item for ReturnValuesOnConditionCheckFailure, ...

// The DynamoDB error kinds. kInternal is the only one answered with HTTP 500.
enum class ErrorCode : uint8_t {
  kValidation,
  kSerialization,
  kResourceNotFound,
  kResourceInUse,
  kConditionalCheckFailed,
  kTransactionConflict,
  kTransactionCanceled,
  kIdempotentParameterMismatch,
  kTransactionInProgress,
  kProvisionedThroughputExceeded,
  kUnknownOperation,
  kMissingAuthenticationToken,
  kIncompleteSignature,
  kInvalidSignature,
  kRequestLimitExceeded,
  kLimitExceeded,
  kDuplicateItem,       // PartiQL INSERT of an existing key
  kTableNotFound,       // the continuous-backups operations' own "table not found"
  kExpiredIterator,     // DynamoDB Streams: a shard iterator older than 15 minutes
  kTrimmedDataAccess,   // DynamoDB Streams: records past the 24-hour retention
  kUnrecognizedClient,  // an unknown access key or a wrong session token
  kPolicyNotFound,      // no resource-based policy, or not the expected revision
  kAccessDenied,        // a resource-based policy does not allow the request
  kServiceUnavailable,  // the server is at a limit (connections, body memory): HTTP 503
  // Backups and restores (engine/backup/backups.cc).
  kBackupNotFound,
  kBackupInUse,                     // a restore from the backup is in progress
  kTableAlreadyExists,              // a restore's target table exists
  kTableInUse,                      // a restore's target table is being deleted
  kContinuousBackupsUnavailable,    // backups of a table that is not ACTIVE yet
  kPointInTimeRecoveryUnavailable,  // PITR restore of a table without PITR
  kInvalidRestoreTime,              // outside the table's restorable window
  kImportConflict,                  // ImportTable: the ClientToken names another import
  kImportNotFound,
  kExportNotFound,
  kExportConflict,  // ExportTableToPointInTime: the ClientToken names another export
  kInvalidExportTime,
  kGlobalTableNotFound,  // global tables version 2017.11.29: none exist
  // A multi-Region strongly consistent table's item being written in another Region.
  kReplicatedWriteConflict,
  kInvalidArgument,  // Kinesis: a request its state refuses (InvalidArgumentException)
  kInternal,
};

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Error Validation(std::string m) { return {ErrorCode::kValidation, std::move(m)}; }
  static Error Serialization(std::string m) { return {ErrorCode::kSerialization, std::move(m)}; }
  static Error NotFound(std::string m) { return {ErrorCode::kResourceNotFound, std::move(m)}; }
  static Error InUse(std::string m) { return {ErrorCode::kResourceInUse, std::move(m)}; }
  static Error Internal(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Extra payload of some errors (usually null).
  const std::shared_ptr<const ErrorDetail>& detail() const { return detail_; }
  Error& WithDetail(std::shared_ptr<const ErrorDetail> detail) {
    detail_ = std::move(detail);
    return *this;
  }

 private:
  ErrorCode code_;
  std::string message_;
  std::shared_ptr<const ErrorDetail> detail_;
};

// The service's form of shape-constraint failures, one ValidationException for all of them:
// "1 validation error detected: v1" or "2 validation errors detected: v1; v2".
Error ValidationErrors(const std::vector<std::string>& violations);
// Whether `e` is a ValidationException in that form (messages embedding another error's
// message leave such a one as it is).
bool InValidationEnvelope(const Error& e);

// Status: success, or one Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit on purpose
  static Status Ok() { return Status(); }
  bool ok() const { return !error_.has_value(); }
  const Error& error() const {
    assert(!ok());
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

// Result<T>: a value or an Error. Its API follows std::expected.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit on purpose
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  Result(Status status) : v_(status.error()) {}  // NOLINT; REQUIRES: !status.ok()
  bool ok() const { return v_.index() == 0; }
  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }
  Status status() const { return ok() ? Status() : Status(error()); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Error> v_;
};

#define DDB_CONCAT_INNER(a, b) a##b
#define DDB_CONCAT(a, b) DDB_CONCAT_INNER(a, b)

// Returns the error of a Status- or Result-valued expression from the enclosing function.
#define DDB_RETURN_IF_ERROR(expr)                      \
  do {                                                 \
    auto _ddb_status = (expr);                         \
    if (!_ddb_status.ok()) return _ddb_status.error(); \
  } while (0)

#define DDB_ASSIGN_OR_RETURN_IMPL(tmp, decl, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.error();               \
  decl = std::move(tmp).value()

// DDB_ASSIGN_OR_RETURN(Type x, ResultExpr): binds the value or returns the error.
#define DDB_ASSIGN_OR_RETURN(decl, expr) \
  DDB_ASSIGN_OR_RETURN_IMPL(DDB_CONCAT(_ddb_result_, __LINE__), decl, expr)

}  // namespace ddb

#pragma GCC visibility pop
