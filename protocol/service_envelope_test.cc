#include "protocol/service_envelope.h"

#include <gtest/gtest.h>

namespace ddb::protocol {
namespace {

std::string Answer(std::string_view operation, std::string message) {
  return InServiceEnvelope(operation, Error::Validation(std::move(message))).message();
}

TEST(ServiceEnvelope, FamiliesAreEnvelopedWhereTheServiceDoes) {
  const std::string empty = "Invalid ConditionExpression: The expression can not be empty;";
  EXPECT_EQ(Answer("PutItem", empty), "1 validation error detected: " + empty);
  EXPECT_EQ(Answer("DeleteItem", empty), "1 validation error detected: " + empty);
  EXPECT_EQ(Answer("TransactWriteItems", empty), empty);

  const std::string unused =
      "Value provided in ExpressionAttributeValues unused in expressions: "
      "keys: {:v}";
  EXPECT_EQ(Answer("UpdateItem", unused), "1 validation error detected: " + unused);
  EXPECT_EQ(Answer("Scan", unused), "1 validation error detected: " + unused);
  EXPECT_EQ(Answer("Query", unused), unused);
  EXPECT_EQ(Answer("TransactWriteItems", unused), unused);
}

TEST(ServiceEnvelope, PrefixOnlyFamiliesDropTheRest) {
  EXPECT_EQ(Answer("PutItem",
                   "ExpressionAttributeValues can only be specified when using expressions: "
                   "ConditionExpression is null"),
            "1 validation error detected: ExpressionAttributeValues can only be specified when "
            "using expressions");
  const std::string query =
      "ExpressionAttributeValues can only be specified when using expressions: FilterExpression "
      "and KeyConditionExpression are null";
  EXPECT_EQ(Answer("Query", query), query);
}

TEST(ServiceEnvelope, OtherErrorsPassUnchanged) {
  const std::string key =
      "One or more parameter values were invalid: Cannot update attribute "
      "pk. This attribute is part of the key";
  EXPECT_EQ(Answer("UpdateItem", key), key);
  const std::string listed =
      "1 validation error detected: Value null at 'key' failed to "
      "satisfy constraint: Member must not be null";
  EXPECT_EQ(Answer("PutItem", listed), listed);
  Error not_found(ErrorCode::kResourceNotFound, "Requested resource not found");
  EXPECT_EQ(InServiceEnvelope("PutItem", not_found).code(), ErrorCode::kResourceNotFound);
}

}  // namespace
}  // namespace ddb::protocol
