#include "protocol/stream_record_json.h"

#include "protocol/attribute_value_json.h"

namespace ddb::protocol {
namespace {

// The members both forms share, without closing the record's object.
void WriteCommonMembers(JsonWriter& w, const StreamRecord& r) {
  w.Key("eventID");
  w.String(r.event_id);
  w.Key("eventName");
  w.String(r.event_name);
  w.Key("eventVersion");
  w.String("1.1");
  w.Key("eventSource");
  w.String("aws:dynamodb");
  w.Key("awsRegion");
  w.String(r.aws_region);
  w.Key("dynamodb");
  w.BeginObject();
  w.Key("ApproximateCreationDateTime");
  w.Number(r.approximate_creation_date_time);
  w.Key("Keys");
  WriteAttributeMap(w, r.keys);
  if (r.new_image) {
    w.Key("NewImage");
    WriteAttributeMap(w, *r.new_image);
  }
  if (r.old_image) {
    w.Key("OldImage");
    WriteAttributeMap(w, *r.old_image);
  }
  w.Key("SequenceNumber");
  w.String(r.sequence_number);
  w.Key("SizeBytes");
  w.Int(r.size_bytes);
  w.Key("StreamViewType");
  w.String(EnumName(r.stream_view_type));
  w.EndObject();
}

// Deletions by Time to Live (developer guide, "Time to Live and DynamoDB Streams"). The
// Streams API names the members Type/PrincipalId; the Lambda event type/principalId.
void WriteTtlIdentity(JsonWriter& w, std::string_view type_key, std::string_view principal_key) {
  w.Key("userIdentity");
  w.BeginObject();
  w.Key(type_key);
  w.String("Service");
  w.Key(principal_key);
  w.String("dynamodb.amazonaws.com");
  w.EndObject();
}

}  // namespace

void WriteStreamRecord(JsonWriter& w, const StreamRecord& r) {
  w.BeginObject();
  WriteCommonMembers(w, r);
  if (r.by_time_to_live) WriteTtlIdentity(w, "Type", "PrincipalId");
  w.EndObject();
}

void WriteLambdaStreamRecord(JsonWriter& w, const StreamRecord& r,
                             std::string_view event_source_arn) {
  w.BeginObject();
  WriteCommonMembers(w, r);
  if (r.by_time_to_live) WriteTtlIdentity(w, "type", "principalId");
  w.Key("eventSourceARN");
  w.String(event_source_arn);
  w.EndObject();
}

void WriteKinesisTableChange(JsonWriter& w, const KinesisTableChange& c, std::string_view region) {
  const bool micro = c.precision == KinesisTimePrecision::kMicrosecond;
  w.BeginObject();
  w.Key("awsRegion");
  w.String(region);
  w.Key("eventID");
  w.String(c.event_id);
  w.Key("eventName");
  w.String(c.event_name);
  if (c.by_time_to_live) {
    WriteTtlIdentity(w, "type", "principalId");
  } else {
    w.Key("userIdentity");
    w.Null();
  }
  w.Key("recordFormat");
  w.String("application/json");
  w.Key("tableName");
  w.String(c.table_name);
  w.Key("dynamodb");
  w.BeginObject();
  w.Key("ApproximateCreationDateTime");
  w.Int(static_cast<int64_t>(micro ? c.creation_us : c.creation_us / 1000));
  w.Key("Keys");
  WriteAttributeMap(w, c.keys);
  if (c.new_image) {
    w.Key("NewImage");
    WriteAttributeMap(w, *c.new_image);
  }
  if (c.old_image) {
    w.Key("OldImage");
    WriteAttributeMap(w, *c.old_image);
  }
  w.Key("SizeBytes");
  w.Int(c.size_bytes);
  if (c.precision_set) {
    w.Key("ApproximateCreationDateTimePrecision");
    w.String(micro ? "MICROSECOND" : "MILLISECOND");
  }
  w.EndObject();
  w.Key("eventSource");
  w.String("aws:dynamodb");
  w.EndObject();
}

}  // namespace ddb::protocol
