// A test fixture that parses request bodies for tests of protocol/ code. It owns the JSON
// text: ParseBody's element lives until the next parse on this thread.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "protocol/json_reader.h"

namespace ddb::protocol {

class JsonTest : public ::testing::Test {
 protected:
  JsonObject Parse(std::string json) {
    body_ = std::move(json);
    Result<JsonObject> obj = ParseBody(body_);
    EXPECT_TRUE(obj.ok());
    return obj.ok() ? obj.value() : JsonObject();
  }

 private:
  std::string body_;
};

}  // namespace ddb::protocol
