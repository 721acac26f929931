// The import/export record codecs: DynamoDB JSON lines, Ion text, CSV.
#include <gtest/gtest.h>

#include "engine/import_export/csv_reader.h"
#include "engine/import_export/dynamodb_json.h"
#include "engine/import_export/ion_text.h"

namespace ddb {
namespace {

Item Rich() {
  Item item;
  item["pk"] = AttributeValue::S("a\"b\\c\n\xc3\xa9");
  item["n"] = AttributeValue::N("-17.5");
  item["b"] = AttributeValue::B(std::string("\x00\x01\xfe", 3));
  item["t"] = AttributeValue::Bool(true);
  item["z"] = AttributeValue::Null();
  item["ss"] = AttributeValue::SS({"x", "y"});
  item["ns"] = AttributeValue::NS({"-2", "1"});
  item["bs"] = AttributeValue::BS({std::string("\x00", 1), "\x01"});
  item["l"] = AttributeValue::L({AttributeValue::S("s"), AttributeValue::M({})});
  item["m"] = AttributeValue::M({{"a.b", AttributeValue::N("1")}, {"Item", AttributeValue::L({})}});
  return item;
}

TEST(DynamoDbJson, RoundTrip) {
  std::string line;
  AppendDynamoDbJsonItem(&line, Rich());
  Item back;
  std::string error;
  ASSERT_EQ(ParseDynamoDbJsonLine(line, &back, &error), ParseOutcome::kItem) << error;
  EXPECT_EQ(back, Rich());
}

TEST(DynamoDbJson, Outcomes) {
  Item item;
  std::string error;
  EXPECT_EQ(ParseDynamoDbJsonLine("   ", &item, &error), ParseOutcome::kNothing);
  EXPECT_EQ(ParseDynamoDbJsonLine("{\"Item\": {\"a\":", &item, &error), ParseOutcome::kIncomplete);
  EXPECT_EQ(ParseDynamoDbJsonLine("{\"NotAnItem\": {}}", &item, &error), ParseOutcome::kError);
  EXPECT_EQ(ParseDynamoDbJsonLine("{\"Item\":{\"s\":{\"SS\":[\"a\",\"a\"]}}}", &item, &error),
            ParseOutcome::kError);
  EXPECT_EQ(
      ParseDynamoDbJsonLine("{\"Item\":{\"n\":{\"N\":\"1e3\"},\"u\":{\"S\":\"\\ud83e\\udd91\"}}}",
                            &item, &error),
      ParseOutcome::kItem);
  EXPECT_EQ(item.at("n").scalar(), "1000");
  EXPECT_EQ(item.at("u").scalar(), "\xf0\x9f\xa6\x91");
}

TEST(IonText, RoundTrip) {
  std::string line;
  AppendIonItem(&line, Rich());
  Item back;
  std::string error;
  ASSERT_EQ(ParseIonItem(line, &back, &error), ParseOutcome::kItem) << error << " in " << line;
  EXPECT_EQ(back, Rich());
}

TEST(IonText, ReadsTheServiceMapping) {
  Item item;
  std::string error;
  ASSERT_EQ(ParseIonItem("$ion_1_0 {Item:{'pk':\"x\", i:103., d:6d2, f:1.5e0, n:null.string,"
                         " s:$dynamodb_NS::[1,2.], l:[1,2,], // comment\n b:{{AAE=}}}}",
                         &item, &error),
            ParseOutcome::kItem)
      << error;
  EXPECT_EQ(item.at("i").scalar(), "103");
  EXPECT_EQ(item.at("d").scalar(), "600");
  EXPECT_EQ(item.at("f").scalar(), "1.5");
  EXPECT_EQ(item.at("n").type(), AttributeType::kNull);
  EXPECT_EQ(item.at("s").set().size(), 2u);
  EXPECT_EQ(item.at("b").scalar(), std::string("\x00\x01", 2));
  EXPECT_EQ(ParseIonItem("$ion_1_0", &item, &error), ParseOutcome::kNothing);
  EXPECT_EQ(ParseIonItem("{Item:{a:\"x\"", &item, &error), ParseOutcome::kIncomplete);
  EXPECT_EQ(ParseIonItem("{Item:{a:2020-01-01T}}", &item, &error), ParseOutcome::kError);
}

TEST(Csv, SplitsAndTypesKeys) {
  std::vector<std::string> fields;
  std::string error;
  ASSERT_EQ(SplitCsvRecord("a,\"b, \"\"c\"\"\",", ',', &fields, &error), ParseOutcome::kItem);
  EXPECT_EQ(fields, (std::vector<std::string>{"a", "b, \"c\"", ""}));
  EXPECT_EQ(SplitCsvRecord("a,\"open", ',', &fields, &error), ParseOutcome::kIncomplete);
  ASSERT_EQ(SplitCsvRecord("x|1|", '|', &fields, &error), ParseOutcome::kItem);
  Item item;
  std::map<std::string, ScalarType> keys{{"pk", ScalarType::kS}, {"sk", ScalarType::kN}};
  ASSERT_EQ(CsvItem({"pk", "sk", "v"}, fields, keys, &item, &error), ParseOutcome::kItem);
  EXPECT_EQ(item.at("sk").type(), AttributeType::kN);
  EXPECT_EQ(item.count("v"), 0u);  // an empty cell gives no attribute
  EXPECT_EQ(CsvItem({"pk", "sk"}, fields, keys, &item, &error), ParseOutcome::kError);
}

}  // namespace
}  // namespace ddb
