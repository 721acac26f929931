// A DynamoDB stream record on the wire, as GetRecords answers it and as a Lambda event
// carries it (protocol/lambda.h): one writer, so that the two cannot drift apart; and the
// record a Kinesis streaming destination writes, which shares its parts.
// Internal to protocol/. Thread safety: pure functions.
#pragma once

#include <string_view>

#include "ddb/types.h"
#include "protocol/json_writer.h"

namespace ddb::protocol {

// GetRecords' record: eventID ... dynamodb, then userIdentity {"Type","PrincipalId"} for a
// deletion by Time to Live.
void WriteStreamRecord(JsonWriter& w, const StreamRecord& r);

// A Lambda event's record: the same members, with userIdentity spelled as the event spells
// it ({"type","principalId"}), then eventSourceARN.
void WriteLambdaStreamRecord(JsonWriter& w, const StreamRecord& r,
                             std::string_view event_source_arn);

// The record a table's Kinesis streaming destination puts in its stream (the Data of a
// Kinesis record): the service's format, members in its order, ApproximateCreationDateTime
// an integer of milliseconds or, at MICROSECOND precision, microseconds.
void WriteKinesisTableChange(JsonWriter& w, const KinesisTableChange& c, std::string_view region);

}  // namespace ddb::protocol
