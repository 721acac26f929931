#include "util/uuid.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

namespace ddb::util {
namespace {

TEST(Uuid, IsARandomVersion4Uuid) {
  const std::regex shape("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = NewUuid();
    ASSERT_TRUE(std::regex_match(id, shape)) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace ddb::util
