#include "engine/import_export/record_boundary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ddb {
namespace {

// Whether the record is open after each of `lines` (fed as the importer feeds them).
std::vector<bool> OpenAfter(InputFormat format, const std::vector<std::string>& lines) {
  RecordBoundary b(format);
  std::vector<bool> open;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) b.Feed("\n");
    b.Feed(lines[i]);
    open.push_back(b.Open());
  }
  return open;
}

TEST(RecordBoundaryTest, DynamoDbJsonBracketsOutsideStrings) {
  EXPECT_EQ(
      OpenAfter(InputFormat::kDynamoDbJson, {R"({"Item":{"pk":{"S":"a}]\"{"},)", R"("l":{"L":[)",
                                             R"({"N":"1"},)", R"({"N":"2"}]}}})"}),
      (std::vector<bool>{true, true, true, false}));
}

TEST(RecordBoundaryTest, IonStringsSymbolsLongStringsAndComments) {
  EXPECT_EQ(OpenAfter(InputFormat::kIon,
                      {"{Item:{pk:\"a}\", s:'b}', // }", "t:'''x}''', /* } */ l:[1,", "(2)]}}"}),
            (std::vector<bool>{true, true, false}));
  EXPECT_EQ(OpenAfter(InputFormat::kIon, {"{Item:{b:{{ aGVsbG8= }}", "}}"}),
            (std::vector<bool>{true, false}));
}

TEST(RecordBoundaryTest, CsvQuotedFields) {
  EXPECT_EQ(OpenAfter(InputFormat::kCsv, {"a,\"b", "c\"\"d", "e\",f"}),
            (std::vector<bool>{true, true, false}));
}

TEST(RecordBoundaryTest, ResetStartsOver) {
  RecordBoundary b(InputFormat::kDynamoDbJson);
  b.Feed("{\"a");
  EXPECT_TRUE(b.Open());
  b.Reset();
  EXPECT_FALSE(b.Open());
}

}  // namespace
}  // namespace ddb
