#include "util/arn.h"

namespace ddb::util {
namespace {

std::string Join(std::string_view a, std::string_view b, std::string_view c) {
  std::string out;
  out.reserve(a.size() + b.size() + c.size());
  out.append(a).append(b).append(c);
  return out;
}

}  // namespace

std::string Arn(std::string_view service, std::string_view region, std::string_view account,
                std::string_view resource) {
  std::string out = "arn:aws:";
  out.append(service).append(":").append(region).append(":").append(account).append(":");
  out.append(resource);
  return out;
}

std::string DynamoDbArn(std::string_view region, std::string_view account,
                        std::string_view resource) {
  return Arn("dynamodb", region, account, resource);
}

std::string TableArn(std::string_view region, std::string_view account, std::string_view table) {
  std::string out(kDynamoDbArnPrefix);
  out.append(region).append(":").append(account).append(":table/").append(table);
  return out;
}

std::string IndexArn(std::string_view table_arn, std::string_view index) {
  return Join(table_arn, "/index/", index);
}
std::string StreamArn(std::string_view table_arn, std::string_view label) {
  return Join(table_arn, "/stream/", label);
}
std::string BackupArn(std::string_view table_arn, std::string_view backup_id) {
  return Join(table_arn, "/backup/", backup_id);
}
std::string ExportArn(std::string_view table_arn, std::string_view export_id) {
  return Join(table_arn, "/export/", export_id);
}
std::string ImportArn(std::string_view table_arn, std::string_view import_id) {
  return Join(table_arn, "/import/", import_id);
}

std::string AccountRootArn(std::string_view account) { return Arn("iam", "", account, "root"); }

std::string KmsKeyArn(std::string_view table_arn, std::string_view key) {
  const size_t end = table_arn.find(":table/");
  const std::string_view region_account =
      table_arn.starts_with(kDynamoDbArnPrefix) && end != std::string_view::npos
          ? table_arn.substr(kDynamoDbArnPrefix.size(), end - kDynamoDbArnPrefix.size())
          : "us-east-1:000000000000";
  std::string out = "arn:aws:kms:";
  out.append(region_account).append(":").append(key);
  return out;
}

std::optional<ArnParts> ParseArn(std::string_view arn) {
  if (!arn.starts_with("arn:")) return std::nullopt;
  std::string_view rest = arn.substr(4);
  ArnParts parts;
  std::string_view* const in_order[4] = {&parts.partition, &parts.service, &parts.region,
                                         &parts.account};
  for (std::string_view* field : in_order) {
    const size_t colon = rest.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    *field = rest.substr(0, colon);
    rest.remove_prefix(colon + 1);
  }
  parts.resource = rest;
  return parts;
}

std::optional<std::string_view> DynamoDbArnParts::Child(std::string_view kind) const {
  if (rest.size() < kind.size() + 2 || rest[0] != '/' || rest.substr(1, kind.size()) != kind ||
      rest[kind.size() + 1] != '/') {
    return std::nullopt;
  }
  return rest.substr(kind.size() + 2);
}

std::optional<DynamoDbArnParts> ParseDynamoDbArn(std::string_view arn) {
  std::optional<ArnParts> parts = ParseArn(arn);
  if (!parts || parts->partition != "aws" || parts->service != "dynamodb") return std::nullopt;
  DynamoDbArnParts out;
  out.region = parts->region;
  out.account = parts->account;
  out.resource = parts->resource;
  const size_t type_end = out.resource.find('/');
  out.resource_type = out.resource.substr(0, type_end);
  if (type_end != std::string_view::npos) {
    const std::string_view path = out.resource.substr(type_end + 1);
    const size_t name_end = path.find('/');
    out.table = path.substr(0, name_end);
    if (name_end != std::string_view::npos) out.rest = path.substr(name_end);
  }
  return out;
}

}  // namespace ddb::util
