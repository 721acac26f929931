// Typed requests and results of ImportTable, ExportTableToPointInTime and contributor
// insights (engine.h). S3 is stood in for by a local directory (EngineOptions::s3_dir): a
// bucket is a subdirectory, an object key a path inside it.
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ddb/enum_names.h"
#include "ddb/types.h"

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

// DO NOT reorder: persisted by index in import and export records
// (engine/import_export/imports.cc).
enum class InputFormat : uint8_t { kDynamoDbJson, kIon, kCsv };
enum class InputCompression : uint8_t { kGzip, kZstd, kNone };
enum class ImportStatus : uint8_t { kInProgress, kCompleted, kCancelling, kCancelled, kFailed };
enum class ExportFormat : uint8_t { kDynamoDbJson, kIon };
enum class ExportType : uint8_t { kFullExport, kIncrementalExport };
enum class ExportViewType : uint8_t { kNewImage, kNewAndOldImages };
enum class ExportStatus : uint8_t { kInProgress, kCompleted, kFailed };
enum class ContributorInsightsMode : uint8_t { kAccessedAndThrottledKeys, kThrottledKeys };
enum class ContributorInsightsStatus : uint8_t {
  kEnabling,
  kEnabled,
  kDisabling,
  kDisabled,
  kFailed
};

template <>
struct EnumNames<InputFormat> {
  static constexpr std::string_view kNames[] = {"DYNAMODB_JSON", "ION", "CSV"};
};
template <>
struct EnumNames<InputCompression> {
  static constexpr std::string_view kNames[] = {"GZIP", "ZSTD", "NONE"};
};
template <>
struct EnumNames<ImportStatus> {
  static constexpr std::string_view kNames[] = {"IN_PROGRESS", "COMPLETED", "CANCELLING",
                                                "CANCELLED", "FAILED"};
};
template <>
struct EnumNames<ExportFormat> {
  static constexpr std::string_view kNames[] = {"DYNAMODB_JSON", "ION"};
};
template <>
struct EnumNames<ExportType> {
  static constexpr std::string_view kNames[] = {"FULL_EXPORT", "INCREMENTAL_EXPORT"};
};
template <>
struct EnumNames<ExportViewType> {
  static constexpr std::string_view kNames[] = {"NEW_IMAGE", "NEW_AND_OLD_IMAGES"};
};
template <>
struct EnumNames<ExportStatus> {
  static constexpr std::string_view kNames[] = {"IN_PROGRESS", "COMPLETED", "FAILED"};
};
template <>
struct EnumNames<ContributorInsightsMode> {
  static constexpr std::string_view kNames[] = {"ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS"};
};
template <>
struct EnumNames<ContributorInsightsStatus> {
  static constexpr std::string_view kNames[] = {"ENABLING", "ENABLED", "DISABLING", "DISABLED",
                                                "FAILED"};
};

struct S3BucketSource {
  std::string bucket;
  std::optional<std::string> bucket_owner;  // 12 digits
  std::optional<std::string> key_prefix;
};

struct CsvOptions {
  std::optional<char> delimiter;         // one of , ; : | tab space; default ','
  std::vector<std::string> header_list;  // empty: the first line of each object is the header
};

// TableCreationParameters: what CreateTable takes, minus LSIs, streams, TTL and tags.
struct ImportTableRequest {
  std::optional<std::string> client_token;  // a retry within 8 hours returns the same import
  S3BucketSource source;
  InputFormat input_format = InputFormat::kDynamoDbJson;
  std::optional<CsvOptions> csv;                // InputFormatOptions.Csv; only with CSV
  std::optional<InputCompression> compression;  // absent means NONE
  CreateTableRequest table;
};

struct ImportDescription {
  std::string import_arn;  // <table arn>/import/<14-digit ms>-<8 hex>
  ImportStatus status = ImportStatus::kInProgress;
  std::string table_arn;
  std::string table_id;
  std::string client_token;
  S3BucketSource source;
  std::string cloud_watch_log_group_arn;
  InputFormat input_format = InputFormat::kDynamoDbJson;
  std::optional<CsvOptions> csv;
  InputCompression compression = InputCompression::kNone;
  CreateTableRequest table;  // TableCreationParameters as given
  double start_time = 0;     // epoch seconds
  std::optional<double> end_time;
  // Uncompressed bytes read; absent until something was read.
  std::optional<int64_t> processed_size_bytes;
  int64_t processed_item_count = 0;  // imported + errors
  int64_t imported_item_count = 0;
  int64_t error_count = 0;
  std::optional<std::string> failure_code;
  std::optional<std::string> failure_message;
};

struct ListImportsRequest {
  std::optional<std::string> table_arn;
  int page_size = 25;  // 1..25
  std::optional<std::string> next_token;
};

struct ListImportsResult {
  std::vector<ImportDescription> imports;  // newest first
  std::optional<std::string> next_token;
};

struct IncrementalExportSpecification {
  std::optional<double> from_time;  // epoch seconds
  std::optional<double> to_time;
  std::optional<ExportViewType> view_type;
};

struct ExportTableRequest {
  std::string table_arn;
  std::optional<double> export_time;  // epoch seconds; absent: now
  std::optional<std::string> client_token;
  std::string s3_bucket;
  std::optional<std::string> s3_bucket_owner;
  std::optional<std::string> s3_prefix;
  std::optional<std::string> s3_sse_algorithm;  // AES256 | KMS
  std::optional<std::string> s3_sse_kms_key_id;
  std::optional<ExportFormat> export_format;  // absent: DYNAMODB_JSON
  std::optional<ExportType> export_type;      // absent: a full export (and not echoed)
  std::optional<IncrementalExportSpecification> incremental;
};

struct ExportDescription {
  std::string export_arn;  // <table arn>/export/<14-digit ms>-<8 hex>
  ExportStatus status = ExportStatus::kInProgress;
  double start_time = 0;
  std::optional<double> end_time;
  std::optional<std::string> export_manifest;  // the key of manifest-summary.json
  std::string table_arn;
  std::string table_id;
  double export_time = 0;
  std::string client_token;
  std::string s3_bucket;
  std::optional<std::string> s3_bucket_owner;
  std::optional<std::string> s3_prefix;
  std::optional<std::string> s3_sse_algorithm;
  std::optional<std::string> s3_sse_kms_key_id;
  std::optional<std::string> failure_code;
  std::optional<std::string> failure_message;
  ExportFormat export_format = ExportFormat::kDynamoDbJson;
  std::optional<int64_t> billed_size_bytes;
  std::optional<int64_t> item_count;
  std::optional<ExportType> export_type;
  std::optional<IncrementalExportSpecification> incremental;
};

struct ListExportsRequest {
  std::optional<std::string> table_arn;
  int max_results = 25;  // 1..25
  std::optional<std::string> next_token;
};

struct ListExportsResult {
  std::vector<ExportDescription> exports;  // newest first
  std::optional<std::string> next_token;
};

struct UpdateContributorInsightsRequest {
  std::string table_name;
  std::optional<std::string> index_name;
  bool enable = true;                           // ContributorInsightsAction ENABLE / DISABLE
  std::optional<ContributorInsightsMode> mode;  // absent: ACCESSED_AND_THROTTLED_KEYS
};

// The keys that consumed the most units (or were throttled most) on one table or GSI.
struct ContributorKey {
  std::string partition_key;  // the key as text: S as is, N normalised, B base64
  std::optional<std::string> sort_key;
  double value = 0;  // consumed units, or throttled requests
};

struct ContributorInsightsDescription {
  std::string table_name;
  std::optional<std::string> index_name;
  std::vector<std::string> rule_list;  // the CloudWatch rule names the service would create
  ContributorInsightsStatus status = ContributorInsightsStatus::kDisabled;
  std::optional<double> last_update;  // epoch seconds
  std::optional<ContributorInsightsMode> mode;
  // ddb's own addition (not on the wire): what the rules would show, most first.
  std::vector<ContributorKey> most_accessed_keys;
  std::vector<ContributorKey> most_throttled_keys;
};

struct ListContributorInsightsRequest {
  std::optional<std::string> table_name;
  int max_results = 100;  // 1..100 (0: the default)
  std::optional<std::string> next_token;
};

struct ListContributorInsightsResult {
  std::vector<ContributorInsightsDescription> summaries;  // table first, then its GSIs
  std::optional<std::string> next_token;
};

}  // namespace ddb

#pragma GCC visibility pop
