// Amazon Resource Names, built and read in one place. DynamoDB's are
//   arn:aws:dynamodb:<region>:<account>:table/<table>[/<kind>/<id>]
// with kind index (<index name>), stream (<stream label>), backup, export or import (<id>).
// The builders join what they are given, unchecked; the parsers split, and leave to their
// callers what else a part must satisfy (empty parts are returned as they are).
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ddb::util {

inline constexpr std::string_view kDynamoDbArnPrefix = "arn:aws:dynamodb:";

// arn:aws:<service>:<region>:<account>:<resource> ("arn:aws:iam::<account>:user/alice" with
// an empty region).
std::string Arn(std::string_view service, std::string_view region, std::string_view account,
                std::string_view resource);
// arn:aws:dynamodb:<region>:<account>:<resource>
std::string DynamoDbArn(std::string_view region, std::string_view account,
                        std::string_view resource);
// arn:aws:dynamodb:<region>:<account>:table/<table>
std::string TableArn(std::string_view region, std::string_view account, std::string_view table);

// A table's parts, from its ARN: <table_arn>/index/<index>, <table_arn>/stream/<label>,
// <table_arn>/backup/<id>, <table_arn>/export/<id>, <table_arn>/import/<id>.
std::string IndexArn(std::string_view table_arn, std::string_view index);
std::string StreamArn(std::string_view table_arn, std::string_view label);
std::string BackupArn(std::string_view table_arn, std::string_view backup_id);
std::string ExportArn(std::string_view table_arn, std::string_view export_id);
std::string ImportArn(std::string_view table_arn, std::string_view import_id);

// arn:aws:iam::<account>:root, the principal an account's own credentials stand for.
std::string AccountRootArn(std::string_view account);

// The ARN of a KMS key id or alias ("key/<id>", "alias/<name>") in the region and account of
// the table ARN `table_arn` (arn:aws:kms:<region>:<account>:<key>); in us-east-1 and account
// 000000000000 when `table_arn` is not one.
std::string KmsKeyArn(std::string_view table_arn, std::string_view key);

// An ARN split at its first five ':' (the resource may hold more).
struct ArnParts {
  std::string_view partition;  // "aws"
  std::string_view service;    // "dynamodb", "iam", ...
  std::string_view region;
  std::string_view account;
  std::string_view resource;  // "table/T/stream/2026-11-30T13:47:12.053"
};
// nullopt unless `arn` starts with "arn:" and has five ':'.
std::optional<ArnParts> ParseArn(std::string_view arn);

// A DynamoDB ARN's parts.
struct DynamoDbArnParts {
  std::string_view region;
  std::string_view account;
  std::string_view resource;       // all after the account ("table/T/stream/<label>")
  std::string_view resource_type;  // the resource up to its first '/' ("table")
  std::string_view table;          // after that '/', up to the next one ("T"); "" with none
  std::string_view rest;           // from that next '/' on ("/stream/<label>"), "" with none

  // What follows "/<kind>/" when `rest` starts with it ("stream": the label); else nullopt.
  std::optional<std::string_view> Child(std::string_view kind) const;
};
// nullopt unless `arn` is arn:aws:dynamodb:<region>:<account>:<resource>.
std::optional<DynamoDbArnParts> ParseDynamoDbArn(std::string_view arn);

}  // namespace ddb::util
