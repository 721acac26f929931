// Typed requests and results of the engine API (engine.h). No JSON, no HTTP: the protocol
// layer fills these from the wire, an embedded caller fills them directly.
// Thread safety: plain values.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ddb/attribute_value.h"
#include "ddb/capacity.h"
#include "ddb/enum_names.h"
#include "ddb/kinesis.h"

// Exported from libddb.so (the library is built with hidden visibility).
#pragma GCC visibility push(default)

namespace ddb {

enum class KeyType : uint8_t { kHash, kRange };
enum class ScalarType : uint8_t { kS, kN, kB };  // the types a key attribute may have
enum class BillingMode : uint8_t { kProvisioned, kPayPerRequest };
enum class ProjectionType : uint8_t { kAll, kKeysOnly, kInclude };
enum class TableStatus : uint8_t { kCreating, kActive, kDeleting, kUpdating };
enum class IndexStatus : uint8_t { kCreating, kUpdating, kDeleting, kActive };
enum class TableClass : uint8_t { kStandard, kStandardInfrequentAccess };
enum class StreamViewType : uint8_t { kKeysOnly, kNewImage, kOldImage, kNewAndOldImages };
enum class ReturnValues : uint8_t { kNone, kAllOld, kUpdatedOld, kAllNew, kUpdatedNew };
// Vector indexes (SearchVectors): how scores are computed, and the roles of SearchSchema
// attributes. Wire names from the service's API reference (VectorIndex, SearchSchemaElement).
enum class VectorDistanceFunction : uint8_t { kCosine, kEuclidean, kDotProduct };
enum class SearchSchemaElementType : uint8_t { kHash, kInlineFilter };
// A witness of a multi-Region strongly consistent global table (GlobalTableWitnesses).
enum class WitnessStatus : uint8_t { kCreating, kDeleting, kActive };
// The state of one replica of a global table (ReplicaDescription.ReplicaStatus).
enum class ReplicaStatus : uint8_t {
  kCreating,
  kCreationFailed,
  kUpdating,
  kDeleting,
  kActive,
  kRegionDisabled
};

template <>
struct EnumNames<KeyType> {
  static constexpr std::string_view kNames[] = {"HASH", "RANGE"};
};
template <>
struct EnumNames<ScalarType> {
  static constexpr std::string_view kNames[] = {"S", "N", "B"};
};
template <>
struct EnumNames<BillingMode> {
  static constexpr std::string_view kNames[] = {"PROVISIONED", "PAY_PER_REQUEST"};
};
template <>
struct EnumNames<ProjectionType> {
  static constexpr std::string_view kNames[] = {"ALL", "KEYS_ONLY", "INCLUDE"};
};
template <>
struct EnumNames<TableStatus> {
  static constexpr std::string_view kNames[] = {"CREATING", "ACTIVE", "DELETING", "UPDATING"};
};
template <>
struct EnumNames<IndexStatus> {
  static constexpr std::string_view kNames[] = {"CREATING", "UPDATING", "DELETING", "ACTIVE"};
};
template <>
struct EnumNames<TableClass> {
  static constexpr std::string_view kNames[] = {"STANDARD", "STANDARD_INFREQUENT_ACCESS"};
};
template <>
struct EnumNames<StreamViewType> {
  static constexpr std::string_view kNames[] = {"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE",
                                                "NEW_AND_OLD_IMAGES"};
};
template <>
struct EnumNames<VectorDistanceFunction> {
  static constexpr std::string_view kNames[] = {"COSINE", "EUCLIDEAN", "DOT_PRODUCT"};
};
template <>
struct EnumNames<SearchSchemaElementType> {
  static constexpr std::string_view kNames[] = {"HASH", "INLINE_FILTER"};
};
template <>
struct EnumNames<ReplicaStatus> {
  static constexpr std::string_view kNames[] = {"CREATING", "CREATION_FAILED", "UPDATING",
                                                "DELETING", "ACTIVE",          "REGION_DISABLED"};
};
template <>
struct EnumNames<WitnessStatus> {
  static constexpr std::string_view kNames[] = {"CREATING", "DELETING", "ACTIVE"};
};
template <>
struct EnumNames<ReturnValues> {
  static constexpr std::string_view kNames[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW",
                                                "UPDATED_NEW"};
};

inline std::string_view ScalarTypeName(ScalarType t) { return EnumName(t); }
// The attribute type of values of a key attribute declared as `t`.
constexpr AttributeType ToAttributeType(ScalarType t) {
  switch (t) {
    case ScalarType::kS:
      return AttributeType::kS;
    case ScalarType::kN:
      return AttributeType::kN;
    case ScalarType::kB:
      break;
  }
  return AttributeType::kB;
}
inline std::string_view TableStatusName(TableStatus s) { return EnumName(s); }
inline std::string_view ProjectionTypeName(ProjectionType p) { return EnumName(p); }

// One table's member of a multi-table request or result (the wire's map keyed by table
// name), in request order.
template <typename T>
struct TableEntry {
  std::string table_name;
  T value;
};

// The entry of "table_name" in *entries, appended (value-initialised) when missing.
template <typename T>
T& EntryFor(std::vector<TableEntry<T>>* entries, const std::string& table_name) {
  for (TableEntry<T>& e : *entries) {
    if (e.table_name == table_name) return e.value;
  }
  return entries->push_back({table_name, T{}}), entries->back().value;
}

struct KeySchemaElement {
  std::string attribute_name;
  KeyType key_type = KeyType::kHash;
};

struct AttributeDefinition {
  std::string attribute_name;
  ScalarType attribute_type = ScalarType::kS;
};

struct ProvisionedThroughput {
  int64_t read_capacity_units = 0;
  int64_t write_capacity_units = 0;
};

struct OnDemandThroughput {
  int64_t max_read_request_units = -1;  // -1: no maximum
  int64_t max_write_request_units = -1;
};

// In an OnDemandThroughput of a request: the member was not given (keeps its value).
inline constexpr int64_t kOnDemandNotGiven = INT64_MIN;

// OnDemandThroughput `given` (members kOnDemandNotGiven keep `current`'s) merged into
// `current`; -1 clears a member; nullopt when neither member has a maximum.
std::optional<OnDemandThroughput> MergeOnDemand(const std::optional<OnDemandThroughput>& current,
                                                const OnDemandThroughput& given);

// SSESpecification of CreateTable/UpdateTable: KMS encryption on (enabled) or back to the
// default encryption; kms_key_id as given (key id, alias or ARN; empty: the AWS managed key).
struct SseSpecification {
  bool enabled = true;
  std::string kms_key_id;
};

// The key a KMS SSESpecification names, as TableDescription::sse_kms_key stores it: a full
// ARN as given, "alias/..." as given, a key id as "key/<id>"; no key: the AWS managed key
// ("key/" + managed_key_id).
std::string SseKmsKey(const SseSpecification& spec, const std::string& managed_key_id);

// WarmThroughput as configured by CreateTable/UpdateTable (-1: that unit not configured).
struct WarmThroughput {
  int64_t read_units_per_second = -1;
  int64_t write_units_per_second = -1;
};

struct IndexProjection {
  ProjectionType projection_type = ProjectionType::kAll;
  std::vector<std::string> non_key_attributes;
  // The request named no ProjectionType: refused ("Unknown ProjectionType: null") where the
  // service checks it, after the index's key schema.
  bool type_missing = false;
};

struct SecondaryIndexDefinition {
  std::string index_name;
  std::vector<KeySchemaElement> key_schema;
  IndexProjection projection;
  std::optional<ProvisionedThroughput> provisioned_throughput;  // GSIs of provisioned tables
  std::optional<OnDemandThroughput> on_demand_throughput;
  // GSIs: kCreating while an index added by UpdateTable is backfilled, then kActive.
  IndexStatus index_status = IndexStatus::kActive;
  bool backfilling = false;
  // Filled by DescribeTable (live counters of the index's entries).
  int64_t item_count = 0;
  int64_t size_bytes = 0;
};

// One element of a vector index's SearchSchema: its vector index partition key (HASH, at
// most one) or an inline filter attribute. Each must be in the table's AttributeDefinitions.
struct SearchSchemaElement {
  std::string attribute_name;
  SearchSchemaElementType type = SearchSchemaElementType::kHash;
};

// A vector index (CreateTable's VectorIndexes, UpdateTable's VectorIndexUpdates.Create,
// DescribeTable's VectorIndexes). Items hold their vector in `vector_attribute` as a list (L)
// of `dimensions` numbers (N), kept in the index as float32.
struct VectorIndexDefinition {
  std::string index_name;
  std::string vector_attribute;
  int64_t dimensions = 0;
  VectorDistanceFunction distance_function = VectorDistanceFunction::kCosine;
  std::vector<SearchSchemaElement> search_schema;
  IndexProjection projection;
  // kCreating with backfilling while an index added by UpdateTable is filled, then kActive;
  // kDeleting once UpdateTable deleted it (only in that call's answer).
  IndexStatus index_status = IndexStatus::kActive;
  bool backfilling = false;
  // Added by UpdateTable: DescribeTable reports Backfilling (false once done), which it
  // leaves out for indexes created with the table, as the service does.
  bool reports_backfilling = false;
  // Filled by DescribeTable from the live index.
  int64_t item_count = 0;
  int64_t size_bytes = 0;
  // The SearchSchema's HASH attribute, null when there is none.
  const std::string* partition_key() const {
    for (const auto& e : search_schema) {
      if (e.type == SearchSchemaElementType::kHash) return &e.attribute_name;
    }
    return nullptr;
  }
};

// One entry of UpdateTable's VectorIndexUpdates.
struct VectorIndexUpdate {
  enum class Kind : uint8_t { kCreate, kDelete };
  Kind kind = Kind::kCreate;
  VectorIndexDefinition index;  // kDelete: index_name only
};

struct StreamSpecification {
  bool stream_enabled = false;
  std::optional<StreamViewType> stream_view_type;  // absent when not given
};

struct Tag {
  std::string key;
  std::string value;
};

// A resource-based policy as stored (Get/Put/DeleteResourcePolicy, CreateTable's
// ResourcePolicy): the document and the revision id of its last change.
struct ResourcePolicy {
  std::string policy;  // JSON, as protocol/resource_policy.h canonicalises it
  // The epoch milliseconds of the change as a decimal string, as the service writes it
  // (compare as strings; a later change of the same resource has a greater id).
  std::string revision_id;
};

struct PutResourcePolicyRequest {
  // A table name, a table ARN or a stream ARN ("arn:aws:dynamodb:<region>:<account>:
  // table/<name>[/stream/<label>]"); the ARN's region and account are not checked here.
  std::string resource;
  std::string policy;  // at most 20480 bytes
  // Put only when the current policy has this revision; "NO_POLICY": only when there is none.
  std::optional<std::string> expected_revision_id;
};

struct CreateTableRequest {
  std::string table_name;
  std::vector<AttributeDefinition> attribute_definitions;
  std::vector<KeySchemaElement> key_schema;
  std::vector<SecondaryIndexDefinition> local_secondary_indexes;
  std::vector<SecondaryIndexDefinition> global_secondary_indexes;
  std::optional<BillingMode> billing_mode;  // absent means PROVISIONED, as in the service
  std::optional<ProvisionedThroughput> provisioned_throughput;
  std::optional<OnDemandThroughput> on_demand_throughput;
  std::optional<WarmThroughput> warm_throughput;
  std::optional<SseSpecification> sse_specification;
  std::optional<StreamSpecification> stream_specification;
  std::optional<TableClass> table_class;
  bool deletion_protection_enabled = false;
  std::vector<Tag> tags;
  // A resource-based policy attached at creation (at most 20480 bytes).
  std::optional<std::string> resource_policy;
  std::vector<VectorIndexDefinition> vector_indexes;
};

// A replica's settings of one GSI (ReplicaGlobalSecondaryIndex): overrides of the table's.
struct ReplicaIndexSettings {
  std::string index_name;
  std::optional<int64_t> read_capacity_units;     // ProvisionedThroughputOverride
  std::optional<int64_t> max_read_request_units;  // OnDemandThroughputOverride
};

// The version of global tables ddb keeps (TableDescription::global_table_version).
inline constexpr char kGlobalTableVersion[] = "2019.11.21";

// One replica of a global table, as DescribeTable lists it (ReplicaDescription).
struct ReplicaDescription {
  std::string region_name;
  ReplicaStatus status = ReplicaStatus::kActive;
  std::optional<int> percent_progress;  // ReplicaStatusPercentProgress, while CREATING
  std::optional<std::string> kms_master_key_id;
  std::optional<int64_t> read_capacity_override;           // ProvisionedThroughputOverride
  std::optional<int64_t> max_read_request_units_override;  // OnDemandThroughputOverride
  std::optional<TableClass> table_class_override;
  std::vector<ReplicaIndexSettings> global_secondary_indexes;
};

// A Region that takes part in a strongly consistent global table's writes without a replica
// (GlobalTableWitnessDescription).
struct WitnessDescription {
  std::string region_name;
  WitnessStatus status = WitnessStatus::kActive;
};

// One element of UpdateTable's ReplicaUpdates: exactly one of Create, Update or Delete.
struct ReplicaUpdate {
  enum class Action : uint8_t { kCreate, kUpdate, kDelete };
  Action action = Action::kCreate;
  // The Region and, for Create and Update, the overrides (status fields unused).
  ReplicaDescription replica;
  // More than one of Create, Update and Delete in this element (refused by the service).
  bool several_actions = false;
};

// One change of a global table's item, as the replication layer reads it from one replica's
// log (Engine::ReadReplicationLog) and applies it to another (Engine::ApplyReplicated).
struct ReplicatedChange {
  uint64_t sequence = 0;          // in the source's log: increasing
  uint64_t commit_time_ms = 0;    // when the source committed it
  Item key;                       // the item's key attributes
  std::optional<Item> new_image;  // nullopt: the item was deleted
  // Last-writer-wins order: the change with the greater stamp is the item's last write.
  uint64_t stamp = 0;
  // Applied in the source by ApplyReplicated (another Region's change): not sent on again.
  bool replicated = false;
};

struct ReplicationLogPage {
  std::vector<ReplicatedChange> changes;
  // The position to read from next: every change of the table up to it has been returned.
  uint64_t next = 0;
};

// One page of a global table's items for a new replica's fill (Engine::ReadReplicaSnapshot).
struct ReplicaSnapshotPage {
  std::vector<ReplicatedChange> changes;  // items, then deleted items' last stamps
  std::string cursor;                     // where the next page starts; "" after the last
};

// Replica auto scaling (DescribeTableReplicaAutoScaling, UpdateTableReplicaAutoScaling;
// docs/global-tables.md): the settings Application Auto Scaling would act on, kept and
// described. Nothing scales: the provisioned capacity stays what UpdateTable set.
// A target tracking policy (AutoScalingPolicyDescription).
struct AutoScalingPolicy {
  std::string policy_name;
  double target_value = 0;  // percent of the capacity used
  std::optional<bool> disable_scale_in;
  std::optional<int64_t> scale_in_cooldown;  // seconds
  std::optional<int64_t> scale_out_cooldown;
};

// The auto scaling of one capacity (AutoScalingSettingsDescription) while enabled.
struct AutoScalingSettings {
  std::optional<int64_t> minimum_units;
  std::optional<int64_t> maximum_units;
  std::optional<std::string> role_arn;      // absent: the service-linked role's
  std::optional<AutoScalingPolicy> policy;  // ScalingPolicies: this one, if any
};

// One AutoScalingSettingsUpdate: what is present replaces what is kept; `disabled` true
// drops the settings (the service deregisters them).
struct AutoScalingSettingsUpdate {
  std::optional<int64_t> minimum_units;
  std::optional<int64_t> maximum_units;
  std::optional<bool> disabled;
  std::optional<std::string> role_arn;
  std::optional<AutoScalingPolicy> policy;
};

// One table's auto scaling in one Region (TableAutoScaling), or what an update changes of it
// (TableAutoScalingUpdate; absent members unchanged): its read and write capacity's and its
// GSIs'. Write settings are the same in every replica (UpdateTableReplicaAutoScaling sets
// them in all); read settings are each replica's own.
template <typename Settings>
struct AutoScalingOfTable {
  std::optional<Settings> read;
  std::optional<Settings> write;
  struct Index {
    std::string index_name;
    std::optional<Settings> read;
    std::optional<Settings> write;
  };
  std::vector<Index> indexes;
  bool empty() const { return !read && !write && indexes.empty(); }
};
using TableAutoScaling = AutoScalingOfTable<AutoScalingSettings>;
using TableAutoScalingUpdate = AutoScalingOfTable<AutoScalingSettingsUpdate>;

// Everything DescribeTable reports. Index item counts and sizes are filled by later work.
struct TableDescription {
  std::string table_name;
  std::string table_id;   // a UUID
  std::string table_arn;  // arn:aws:dynamodb:<region>:<account>:table/<name>
  TableStatus table_status = TableStatus::kActive;
  double creation_date_time = 0;  // seconds since the epoch, with milliseconds
  // When the table last became PAY_PER_REQUEST (at creation or by UpdateTable); 0: never.
  double last_update_to_pay_per_request = 0;
  // When UpdateTable last changed the table class (TableClassSummary.LastUpdateDateTime);
  // 0: never.
  double table_class_last_update = 0;
  std::vector<AttributeDefinition> attribute_definitions;
  std::vector<KeySchemaElement> key_schema;
  std::vector<SecondaryIndexDefinition> local_secondary_indexes;
  std::vector<SecondaryIndexDefinition> global_secondary_indexes;
  std::vector<VectorIndexDefinition> vector_indexes;
  BillingMode billing_mode = BillingMode::kProvisioned;
  ProvisionedThroughput provisioned_throughput;  // zeros for PAY_PER_REQUEST
  std::optional<OnDemandThroughput> on_demand_throughput;
  std::optional<WarmThroughput> warm_throughput;  // as configured, when it was
  // KMS server-side encryption (absent: the default encryption): the key as a full ARN, or
  // the part after "arn:aws:kms:<region>:<account>:" ("key/<id>", "alias/<name>").
  std::optional<std::string> sse_kms_key;
  std::optional<StreamSpecification> stream_specification;  // absent when no stream enabled
  // The table's newest stream (ISO-8601 UTC time with milliseconds, "2026-11-30T13:45:12.345");
  // it lingers after the stream is disabled, as in the service. latest_stream_arn is filled
  // by DescribeTable from it.
  std::optional<std::string> latest_stream_label;
  std::optional<std::string> latest_stream_arn;
  std::optional<TableClass> table_class;
  bool deletion_protection_enabled = false;
  int64_t item_count = 0;
  int64_t table_size_bytes = 0;
  // Time to Live: the attribute holding expiry times (epoch seconds), when enabled.
  std::optional<std::string> ttl_attribute;
  // Point-in-time recovery (UpdateContinuousBackups): since when (epoch seconds), for how many
  // days; RestoreTableToPointInTime restores any millisecond of that window.
  std::optional<double> pitr_enabled_since;
  int pitr_recovery_period_days = 35;
  // A table made by RestoreTableFromBackup or RestoreTableToPointInTime: where from, as of
  // when (epoch seconds), and whether it is still being filled (then it is CREATING).
  struct RestoreSummary {
    std::optional<std::string> source_backup_arn;
    std::optional<std::string> source_table_arn;
    double restore_date_time = 0;
    bool restore_in_progress = false;
  };
  std::optional<RestoreSummary> restore_summary;
  std::vector<Tag> tags;
  // Resource-based policies of the table and of its streams (by stream label). DescribeTable
  // does not show them, as the service does not; they go with the table.
  std::optional<ResourcePolicy> resource_policy;
  std::map<std::string, ResourcePolicy> stream_policies;
  // Contributor insights of the table (key "") and of its GSIs (by name), as
  // UpdateContributorInsights last left them; absent: never enabled.
  struct ContributorInsightsSetting {
    bool enabled = false;
    uint8_t mode = 0;        // ContributorInsightsMode (ddb/import_export.h)
    double last_update = 0;  // epoch seconds
  };
  std::map<std::string, ContributorInsightsSetting> contributor_insights;
  // Global tables, version 2019.11.21 (docs/global-tables.md): the table's replicas in the
  // other Regions (this Region's own is not listed), and the version while there are any.
  std::vector<ReplicaDescription> replicas;
  std::optional<std::string> global_table_version;
  // Multi-Region strong consistency (MultiRegionConsistency STRONG), and its witness.
  bool multi_region_strong = false;
  std::vector<WitnessDescription> witnesses;
  // Kinesis streaming destinations (ddb/kinesis.h), newest first; not part of DescribeTable
  // (DescribeKinesisStreamingDestination lists them, as the service does).
  std::vector<KinesisDestination> kinesis_destinations;
  // Replica auto scaling in this Region (empty: none); cleared when the table becomes
  // PAY_PER_REQUEST, an index's when the index is deleted.
  TableAutoScaling auto_scaling;

  // Convenience accessors over key_schema / attribute_definitions.
  const std::string& hash_key() const;
  const std::string* range_key() const;  // null when the table has no sort key
  ScalarType AttributeTypeOf(const std::string& name) const;
  // The warm throughput DescribeTable reports: the stored value (monotonic: raised by
  // configuration, by provisioned increases and by becoming on-demand), else the baseline
  // (on demand: 12,000 reads and 4,000 writes per second; provisioned: its capacity).
  WarmThroughput EffectiveWarmThroughput() const;
};

inline constexpr int64_t kBaselineWarmReads = 12000;
inline constexpr int64_t kBaselineWarmWrites = 4000;

// One entry of UpdateTable's GlobalSecondaryIndexUpdates.
struct GlobalSecondaryIndexUpdate {
  enum class Kind : uint8_t { kCreate, kUpdate, kDelete };
  Kind kind = Kind::kCreate;
  SecondaryIndexDefinition index;  // kCreate: the whole definition; else index_name (+ throughput)
};

struct UpdateTableRequest {
  std::string table_name;
  std::vector<AttributeDefinition> attribute_definitions;  // for new GSIs' keys
  std::optional<BillingMode> billing_mode;
  std::optional<ProvisionedThroughput> provisioned_throughput;
  std::optional<OnDemandThroughput> on_demand_throughput;
  std::optional<WarmThroughput> warm_throughput;
  std::optional<SseSpecification> sse_specification;
  std::optional<StreamSpecification> stream_specification;
  std::optional<TableClass> table_class;
  std::optional<bool> deletion_protection_enabled;
  std::vector<GlobalSecondaryIndexUpdate> global_secondary_index_updates;
  std::vector<VectorIndexUpdate> vector_index_updates;
};

struct TimeToLiveSpecification {
  bool enabled = false;
  std::string attribute_name;
};

struct ListTablesRequest {
  std::optional<std::string> exclusive_start_table_name;
  int limit = 100;  // 1..100
};

struct ListTablesResult {
  std::vector<std::string> table_names;
  std::optional<std::string> last_evaluated_table_name;
};

// Who is asking: from the request's SigV4 credential scope. Used for ARNs.
struct RequestContext {
  std::string region = "us-east-1";
  std::string access_key_id;
  // The caller's account, which the ARNs of its resources name, and its principal
  // ("arn:aws:iam::<account>:user/<name>"; "" when the caller is not verified).
  std::string account_id = "000000000000";
  std::string principal_arn;
  // The Host the request was sent to ("127.0.0.1:8000"), which DescribeEndpoints advertises;
  // "" for an embedded caller (then the service's name for the region is used).
  std::string endpoint;
};

// Why one action of a cancelled transaction did not go through.
enum class CancellationCode : uint8_t {
  kNone,  // this action would have gone through
  kConditionalCheckFailed,
  kValidationError,
  kDuplicateItem,        // PartiQL INSERT of an existing key
  kTransactionConflict,  // another transaction in flight holds the item
};
template <>
struct EnumNames<CancellationCode> {
  static constexpr std::string_view kNames[] = {"None", "ConditionalCheckFailed", "ValidationError",
                                                "DuplicateItem", "TransactionConflict"};
};
inline std::string_view CancellationCodeName(CancellationCode c) { return EnumName(c); }

struct CancellationReason {
  CancellationCode code = CancellationCode::kNone;
  std::string message;       // empty for kNone
  std::optional<Item> item;  // ALL_OLD on a failed condition
};

// One reason of a ProvisionedThroughputExceededException.
struct ThrottlingReason {
  std::string reason;  // e.g. "TableReadProvisionedThroughputExceeded"
  std::string
      resource;  // "table/<name>" or "table/<name>/index/<index>" (the wire form adds the ARN)
};

// What some errors carry besides their message.
struct ErrorDetail {
  // ConditionalCheckFailed with ReturnValuesOnConditionCheckFailure=ALL_OLD: the item as it
  // was (absent when there was none).
  std::optional<Item> item;
  // TransactionCanceled: one reason per action, in request order.
  std::vector<CancellationReason> cancellation_reasons;
  // ProvisionedThroughputExceeded: why, and on which table or index.
  std::vector<ThrottlingReason> throttling_reasons;
};

// The expression parts shared by single-item writes: an optional ConditionExpression and
// the request's placeholders.
struct ConditionalWrite {
  std::optional<std::string> condition_expression;
  std::optional<std::map<std::string, std::string>> expression_attribute_names;
  std::optional<Item> expression_attribute_values;
  // ReturnValuesOnConditionCheckFailure=ALL_OLD: a failed condition carries the old item.
  bool return_old_on_condition_failure = false;
  // ReturnItemCollectionMetrics=SIZE (reported for tables with local secondary indexes).
  bool return_item_collection_metrics = false;
};

// The size of the item collection (items sharing a partition key, with their LSI entries)
// a write touched, as ReturnItemCollectionMetrics reports it.
struct ItemCollectionMetrics {
  Item item_collection_key;  // the partition key attribute
  double size_estimate_lower_gb = 0;
  double size_estimate_upper_gb = 1;
};

struct PutItemRequest : ConditionalWrite {
  std::string table_name;
  Item item;
  ReturnValues return_values = ReturnValues::kNone;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};

struct PutItemResult {
  std::optional<Item> attributes;  // the old item for ALL_OLD, when there was one
  std::optional<ConsumedCapacity> consumed_capacity;  // when asked for
  std::optional<ItemCollectionMetrics> item_collection_metrics;
};

struct GetItemRequest {
  std::string table_name;
  Item key;
  bool consistent_read = false;
  std::optional<std::string> projection_expression;
  std::vector<std::string> attributes_to_get;  // legacy; empty returns everything
  std::optional<std::map<std::string, std::string>> expression_attribute_names;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  // Lets an item returned whole come back in stored form (GetItemResult::encoded_item).
  bool accept_encoded_item = false;
};

struct GetItemResult {
  std::optional<Item> item;
  // With accept_encoded_item and no projection: the item in stored form (ddb/stored_item.h,
  // WalkEncodedItem) instead of `item`.
  std::optional<std::string> encoded_item;
  std::optional<ConsumedCapacity> consumed_capacity;  // when asked for
};

struct DeleteItemRequest : ConditionalWrite {
  std::string table_name;
  Item key;
  ReturnValues return_values = ReturnValues::kNone;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};

struct DeleteItemResult {
  std::optional<Item> attributes;
  std::optional<ConsumedCapacity> consumed_capacity;  // when asked for
  std::optional<ItemCollectionMetrics> item_collection_metrics;
};

struct UpdateItemRequest : ConditionalWrite {
  std::string table_name;
  Item key;
  std::optional<std::string> update_expression;
  ReturnValues return_values = ReturnValues::kNone;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  // Check only the finished item's size, not UpdateItem's own rule on what the update
  // writes (engine/write_path.cc, UpdateItemSizeFits). PartiQL's UPDATE answers so.
  bool finished_item_size_only = false;
};

struct UpdateItemResult {
  std::optional<Item> attributes;                     // per ReturnValues
  std::optional<ConsumedCapacity> consumed_capacity;  // when asked for
  std::optional<ItemCollectionMetrics> item_collection_metrics;
};

// --- Transactions ---

struct TransactWriteAction : ConditionalWrite {
  enum class Kind : uint8_t { kConditionCheck, kPut, kDelete, kUpdate };
  Kind kind = Kind::kPut;
  std::string table_name;
  Item item_or_key;                              // kPut: the item; else the key
  std::optional<std::string> update_expression;  // kUpdate
};

struct TransactWriteItemsRequest {
  std::vector<TransactWriteAction> actions;
  std::optional<std::string> client_request_token;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool return_item_collection_metrics = false;  // ReturnItemCollectionMetrics=SIZE
};

struct TransactWriteItemsResult {
  std::vector<ConsumedCapacity> consumed_capacity;  // per table, when asked for
  // A repeat of a successful call with the same ClientRequestToken: nothing was applied
  // again, and consumed_capacity holds read units, as the service reports a replay: a
  // transactional read (2 units per 4 KB) of each item the first call wrote or checked.
  bool replayed = false;
  // Per table with local secondary indexes, one entry per write, when asked for.
  std::vector<TableEntry<std::vector<ItemCollectionMetrics>>> item_collection_metrics;
};

struct TransactGetAction {
  std::string table_name;
  Item key;
  std::optional<std::string> projection_expression;
  std::optional<std::map<std::string, std::string>> expression_attribute_names;
};

struct TransactGetItemsRequest {
  std::vector<TransactGetAction> actions;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};

struct TransactGetItemsResult {
  std::vector<std::optional<Item>> items;           // one per action, in order
  std::vector<ConsumedCapacity> consumed_capacity;  // per table, when asked for
};

// --- Continuous backups (point-in-time recovery settings) ---

struct ContinuousBackupsDescription {
  bool pitr_enabled = false;
  double earliest_restorable = 0;  // epoch seconds, when enabled
  double latest_restorable = 0;
  int recovery_period_days = 35;
};

// --- On-demand backups and restores (engine/backup/backups.cc) ---

enum class BackupType : uint8_t { kUser, kSystem, kAwsBackup };
template <>
struct EnumNames<BackupType> {
  static constexpr std::string_view kNames[] = {"USER", "SYSTEM", "AWS_BACKUP"};
};
enum class BackupStatus : uint8_t { kCreating, kDeleted, kAvailable };
template <>
struct EnumNames<BackupStatus> {
  static constexpr std::string_view kNames[] = {"CREATING", "DELETED", "AVAILABLE"};
};

// BackupDetails, and what BackupSummary adds (the source table's name, id and ARN).
struct BackupDetails {
  std::string backup_arn;  // arn:aws:dynamodb:<region>:<account>:table/<T>/backup/<id>
  std::string backup_name;
  int64_t backup_size_bytes = 0;
  BackupStatus backup_status = BackupStatus::kAvailable;
  BackupType backup_type = BackupType::kUser;
  double backup_creation_date_time = 0;           // epoch seconds with milliseconds
  std::optional<double> backup_expiry_date_time;  // SYSTEM backups
  std::string table_name;
  std::string table_id;
  std::string table_arn;
};

// DescribeBackup: the backup and its source table as it was (SourceTableDetails and
// SourceTableFeatureDetails are both rendered from source_table: key schema, throughput,
// billing mode, item count and size, indexes, stream, Time to Live and SSE settings).
struct BackupDescription {
  BackupDetails details;
  TableDescription source_table;
};

struct ListBackupsRequest {
  std::optional<std::string> table_name;
  std::optional<double> time_range_lower_bound;  // inclusive, epoch seconds
  std::optional<double> time_range_upper_bound;  // exclusive
  std::optional<BackupType> backup_type;         // nullopt: ALL; absent in the request: USER
  std::optional<int> limit;                      // 1..100; absent: no limit
  std::optional<std::string> exclusive_start_backup_arn;
};

struct ListBackupsResult {
  std::vector<BackupDetails> backup_summaries;  // by creation time
  std::optional<std::string> last_evaluated_backup_arn;
};

// The overrides both restores accept; each absent member keeps the source's setting.
struct RestoreOverrides {
  std::optional<BillingMode> billing_mode_override;
  std::optional<std::vector<SecondaryIndexDefinition>> global_secondary_index_override;
  std::optional<std::vector<SecondaryIndexDefinition>> local_secondary_index_override;
  std::optional<ProvisionedThroughput> provisioned_throughput_override;
  std::optional<OnDemandThroughput> on_demand_throughput_override;
  std::optional<SseSpecification> sse_specification_override;
};

struct RestoreTableFromBackupRequest : RestoreOverrides {
  std::string target_table_name;
  std::string backup_arn;
};

struct RestoreTableToPointInTimeRequest : RestoreOverrides {
  std::optional<std::string> source_table_name;
  std::optional<std::string> source_table_arn;
  std::string target_table_name;
  std::optional<double> restore_date_time;  // epoch seconds
  bool use_latest_restorable_time = false;
};

// --- PartiQL (engine/partiql/partiql.cc) ---

struct ExecuteStatementRequest {
  std::string statement;
  std::vector<AttributeValue> parameters;
  bool consistent_read = false;
  std::optional<int64_t> limit;             // SELECT: items read per page
  std::optional<Item> exclusive_start_key;  // SELECT: where the previous page stopped
  bool return_old_on_condition_failure = false;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};

struct ExecuteStatementResult {
  std::vector<Item> items;
  std::optional<Item> last_evaluated_key;  // SELECT: more to read
  std::optional<ConsumedCapacity> consumed_capacity;
};

struct BatchStatementResponse {
  std::string table_name;
  std::optional<Item> item;    // a read's item, when found
  std::optional<Error> error;  // this statement failed (the others ran)
};

struct BatchExecuteStatementRequest {
  std::vector<ExecuteStatementRequest> statements;  // 1..25, all reads or all writes
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};

struct BatchExecuteStatementResult {
  std::vector<BatchStatementResponse> responses;  // one per statement, in order
  std::vector<ConsumedCapacity> consumed_capacity;
};

struct ExecuteTransactionRequest {
  std::vector<ExecuteStatementRequest> statements;  // 1..100, all reads or all writes
  std::optional<std::string> client_request_token;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};

struct ExecuteTransactionResult {
  bool reads = false;
  std::vector<std::optional<Item>> items;  // reads: one per statement
  std::vector<ConsumedCapacity> consumed_capacity;
  // Writes: a replay of a finished transaction (same ClientRequestToken), as in
  // TransactWriteItemsResult.
  bool replayed = false;
};

// --- Query and Scan ---

enum class Select : uint8_t {
  kAllAttributes,
  kAllProjectedAttributes,
  kSpecificAttributes,
  kCount
};
template <>
struct EnumNames<Select> {
  static constexpr std::string_view kNames[] = {"ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES",
                                                "SPECIFIC_ATTRIBUTES", "COUNT"};
};

// What Query and Scan share. Expressions are the texts of the request (expression.h
// compiles them); legacy AttributesToGet is a list of top-level names.
struct ReadRequestBase {
  std::string table_name;
  std::optional<std::string> index_name;
  std::optional<std::string> filter_expression;
  std::optional<std::string> projection_expression;
  std::vector<std::string> attributes_to_get;
  std::optional<std::map<std::string, std::string>> expression_attribute_names;
  std::optional<Item> expression_attribute_values;
  std::optional<Select> select;
  std::optional<int64_t> limit;  // items read (before the filter) per page
  bool consistent_read = false;
  std::optional<Item> exclusive_start_key;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  // Lets the page come back in stored form (ReadResult::encoded_items) when its items are
  // returned whole, for callers that only write them out (the JSON protocol).
  bool accept_encoded_items = false;
  // A read of a local secondary index filters its entries as they are stored (what the
  // index does not project is absent) instead of refusing a filter on an unprojected
  // attribute. PartiQL's SELECT of an index without its key condition answers so.
  bool filter_index_entries = false;
  // The filter is the translation of ScanFilter or QueryFilter: the service holds legacy
  // conditions to neither the expression language's 300 operators nor IN's 100 operands.
  bool legacy_filter = false;
};

struct QueryRequest : ReadRequestBase {
  std::string key_condition_expression;
  bool scan_index_forward = true;
};

struct ScanRequest : ReadRequestBase {
  std::optional<int64_t> segment;
  std::optional<int64_t> total_segments;
};

struct ReadResult {
  std::vector<Item> items;  // empty for Select COUNT
  // With accept_encoded_items, a page whose items need no filter, projection or LSI fetch
  // has them here instead of in `items`, back to back in stored form: item i is
  // encoded_items[encoded_ends[i-1], encoded_ends[i]) (read with WalkEncodedItem,
  // ddb/stored_item.h). Saves building an Item per returned item.
  std::string encoded_items;
  std::vector<size_t> encoded_ends;
  int64_t count = 0;
  int64_t scanned_count = 0;
  std::optional<Item> last_evaluated_key;
  std::optional<ConsumedCapacity> consumed_capacity;  // when asked for
};
using QueryResult = ReadResult;
using ScanResult = ReadResult;

// --- Batches ---

struct KeysAndAttributes {
  std::vector<Item> keys;
  std::optional<std::string> projection_expression;
  std::vector<std::string> attributes_to_get;
  std::optional<std::map<std::string, std::string>> expression_attribute_names;
  bool consistent_read = false;
};

struct BatchGetItemRequest {
  std::vector<TableEntry<KeysAndAttributes>> request_items;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};

struct BatchGetItemResult {
  std::vector<TableEntry<std::vector<Item>>> responses;
  std::vector<TableEntry<KeysAndAttributes>> unprocessed_keys;
  std::vector<ConsumedCapacity> consumed_capacity;  // per table, when asked for
};

struct WriteRequest {
  bool is_put = true;
  Item item;  // the item for a put, the key for a delete
};

struct BatchWriteItemRequest {
  std::vector<TableEntry<std::vector<WriteRequest>>> request_items;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
  bool return_item_collection_metrics = false;  // ReturnItemCollectionMetrics=SIZE
};

struct BatchWriteItemResult {
  std::vector<TableEntry<std::vector<WriteRequest>>> unprocessed_items;
  std::vector<ConsumedCapacity> consumed_capacity;  // per table, when asked for
  // Per table with local secondary indexes, one entry per processed write, when asked for.
  std::vector<TableEntry<std::vector<ItemCollectionMetrics>>> item_collection_metrics;
};

// --- DynamoDB Streams (DynamoDBStreams_20120810) ---

enum class StreamStatus : uint8_t { kEnabling, kEnabled, kDisabling, kDisabled };
template <>
struct EnumNames<StreamStatus> {
  static constexpr std::string_view kNames[] = {"ENABLING", "ENABLED", "DISABLING", "DISABLED"};
};
inline std::string_view StreamStatusName(StreamStatus s) { return EnumName(s); }

struct StreamSummary {
  std::string stream_arn;
  std::string table_name;
  std::string stream_label;
};

struct ListStreamsRequest {
  std::optional<std::string> table_name;
  std::optional<std::string> exclusive_start_stream_arn;
  int limit = 100;  // 1..100
};

struct ListStreamsResult {
  std::vector<StreamSummary> streams;
  std::optional<std::string> last_evaluated_stream_arn;
};

struct DescribeStreamRequest {
  std::string stream_arn;
  std::optional<std::string> exclusive_start_shard_id;
  int limit = 100;  // 1..100
};

struct StreamShard {
  std::string shard_id;
  std::string starting_sequence_number;
  std::optional<std::string> ending_sequence_number;  // present once the shard is closed
  std::optional<std::string> parent_shard_id;
};

struct StreamDescription {
  std::string stream_arn;
  std::string stream_label;
  StreamStatus stream_status = StreamStatus::kEnabled;
  StreamViewType stream_view_type = StreamViewType::kKeysOnly;
  double creation_request_date_time = 0;  // seconds since the epoch, with milliseconds
  std::string table_name;
  std::vector<KeySchemaElement> key_schema;
  std::vector<StreamShard> shards;
  std::optional<std::string> last_evaluated_shard_id;
};

enum class ShardIteratorType : uint8_t {
  kTrimHorizon,
  kLatest,
  kAtSequenceNumber,
  kAfterSequenceNumber
};
template <>
struct EnumNames<ShardIteratorType> {
  static constexpr std::string_view kNames[] = {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER",
                                                "AFTER_SEQUENCE_NUMBER"};
};

struct GetShardIteratorRequest {
  std::string stream_arn;
  std::string shard_id;
  ShardIteratorType shard_iterator_type = ShardIteratorType::kTrimHorizon;
  std::optional<std::string> sequence_number;  // AT_/AFTER_SEQUENCE_NUMBER only
};

struct GetRecordsRequest {
  std::string shard_iterator;
  int limit = 1000;  // 1..1000
};

struct StreamRecord {
  std::string event_id;
  std::string event_name;  // INSERT, MODIFY, REMOVE
  std::string aws_region;
  double approximate_creation_date_time = 0;  // epoch seconds
  Item keys;
  std::optional<Item> new_image;  // per the stream's view type
  std::optional<Item> old_image;
  std::string sequence_number;
  int64_t size_bytes = 0;
  StreamViewType stream_view_type = StreamViewType::kKeysOnly;
  bool by_time_to_live = false;  // deleted by the TTL process (userIdentity on the wire)
};

struct GetRecordsResult {
  std::vector<StreamRecord> records;
  std::optional<std::string> next_shard_iterator;  // absent once a closed shard is read out
};

// --- Vector search ---

// SearchVectors. The expressions are the request's texts; search_vector holds the request's
// AttributeValues as sent (the engine checks that each is a number that fits a float32).
struct SearchVectorsRequest {
  std::string table_name;  // or its ARN
  std::string index_name;
  std::vector<AttributeValue> search_vector;
  int64_t top_k = 0;
  std::optional<std::string> search_condition_expression;
  std::optional<std::string> projection_expression;
  std::optional<std::map<std::string, std::string>> expression_attribute_names;
  std::optional<Item> expression_attribute_values;
  ReturnConsumedCapacity return_consumed_capacity = ReturnConsumedCapacity::kNone;
};

struct SearchResultItem {
  Item item;  // the index's projection, then the ProjectionExpression
  double score = 0;
};

struct SearchVectorsResult {
  std::vector<SearchResultItem> results;  // best first
  // ConsumedCapacity.VectorSearchRequestBytes, when asked for.
  std::optional<int64_t> vector_search_request_bytes;
};

}  // namespace ddb

#pragma GCC visibility pop
