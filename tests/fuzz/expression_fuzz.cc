// The expression language: compile (parse + resolve placeholders) and evaluate. Input:
//   byte 0   the kind: condition, update, projection, key condition (pk S + sk N; id B
//            alone; two HASH and two RANGE attributes)
//   line 1   the expression text
//   lines    "#name=attribute" and ":name=<DynamoDB JSON value>" placeholders, on top of
//            the fixed ones below
// Conditions are evaluated against a fixed item and a missing one; updates applied to the
// fixed item and to a bare key, and what they make must keep AttributeValue's invariants and
// survive the stored form; projections applied to the fixed item.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "ddb/stored_item.h"
#include "engine/expression/expression.h"
#include "protocol/attribute_value_json.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/value_invariants.h"

namespace {

using ddb::AttributeType;
using ddb::AttributeValue;
using ddb::Item;
using ddb::Result;

simdjson::dom::parser& Parser() {
  static simdjson::dom::parser parser;
  return parser;
}

Result<Item> ItemFromJson(std::string_view json) {
  simdjson::dom::element element;
  if (Parser().parse(json.data(), json.size()).get(element) != simdjson::SUCCESS) {
    return ddb::Error::Serialization("not JSON");
  }
  return ddb::protocol::ParseAttributeMap(element);
}

Item MustItemFromJson(std::string_view json) {
  Result<Item> item = ItemFromJson(json);
  DDB_FUZZ_CHECK(item.ok());
  return std::move(item).value();
}

const Item& FixedItem() {
  static const Item item = MustItemFromJson(R"({"pk":{"S":"a"},"sk":{"N":"1"},"a":{"S":"x"},
    "b":{"N":"2"},"n":{"N":"-1.5E+3"},"big":{"N":"9.9999999999999999999999999999999999999E+125"},
    "m":{"M":{"k":{"L":[{"N":"1"},{"S":"s"},{"M":{"d":{"N":"2"}}}]},"e":{"S":""}}},
    "l":{"L":[{"N":"1"},{"N":"2"},{"L":[{"BOOL":true}]}]},"ss":{"SS":["p","q"]},
    "ns":{"NS":["1","20"]},"bs":{"BS":["AA==","AQ=="]},"t":{"BOOL":false},"z":{"NULL":true},
    "bin":{"B":"AAEC"},"status":{"S":"on"}})");
  return item;
}

const std::map<std::string, std::string>& FixedNames() {
  static const std::map<std::string, std::string> names = {
      {"#a", "a"},   {"#b", "b"},   {"#n", "n"},      {"#m", "m"},     {"#l", "l"},
      {"#pk", "pk"}, {"#sk", "sk"}, {"#s", "status"}, {"#dot", "a.b"}, {"#e", ""},
  };
  return names;
}

const Item& FixedValues() {
  static const Item values = MustItemFromJson(R"({":s":{"S":"x"},":e":{"S":""},":n":{"N":"1"},
    ":z":{"N":"0"},":big":{"N":"9.9999999999999999999999999999999999999E+125"},
    ":tiny":{"N":"1E-130"},":b":{"B":"AAE="},":t":{"BOOL":true},":null":{"NULL":true},
    ":l":{"L":[{"N":"1"},{"S":"x"}]},":m":{"M":{"k":{"N":"3"}}},":ss":{"SS":["p","r"]},
    ":ns":{"NS":["1","-2"]},":bs":{"BS":["AQ=="]}})");
  return values;
}

enum Kind : uint8_t {
  kCondition,
  kUpdate,
  kProjection,
  kKeyCondition,
  kHashOnlyKeyCondition,
  kMultiAttributeKeyCondition,
  kKindCount
};

void CheckMadeItem(const Item& item) {
  DDB_FUZZ_CHECK(ddb::fuzz::HoldsInvariants(item));
  std::string encoded;
  ddb::EncodeItem(item, &encoded);
  Item decoded;
  DDB_FUZZ_CHECK(ddb::DecodeItem(encoded, &decoded) && decoded == item);
}

void Run(Kind kind, std::string_view text, ddb::Placeholders* placeholders) {
  const Item& item = FixedItem();
  switch (kind) {
    case kCondition: {
      auto condition = ddb::CompileCondition(text, "ConditionExpression", placeholders);
      if (!condition.ok()) return;
      ddb::EvaluateCondition(**condition, &item);
      ddb::EvaluateCondition(**condition, nullptr);
      ddb::ConditionReferences(**condition, "pk");
      ddb::ConditionAttributeNames(**condition);
      break;
    }
    case kUpdate: {
      auto update = ddb::CompileUpdate(text, placeholders);
      if (!update.ok()) return;
      ddb::UpdatedPaths(**update);
      ddb::UpdateOnlyRemoves(**update);
      ddb::UpdateActionsCost(**update);
      Item updated = item;
      if (ddb::ApplyUpdate(**update, &updated).ok()) CheckMadeItem(updated);
      Item created = {{"pk", item.at("pk")}, {"sk", item.at("sk")}};
      if (ddb::ApplyUpdate(**update, &created).ok()) CheckMadeItem(created);
      break;
    }
    case kProjection: {
      auto projection = ddb::CompileProjection(text, placeholders);
      if (!projection.ok()) return;
      CheckMadeItem(ddb::ApplyProjection(*projection, item));
      break;
    }
    case kKeyCondition: {
      const std::string range = "sk";
      (void)ddb::CompileKeyCondition(text, "pk", AttributeType::kS, &range, AttributeType::kN,
                                     placeholders);
      break;
    }
    case kHashOnlyKeyCondition:
      (void)ddb::CompileKeyCondition(text, "bin", AttributeType::kB, nullptr, AttributeType::kS,
                                     placeholders);
      break;
    case kMultiAttributeKeyCondition:
      (void)ddb::CompileKeyCondition(text, {{"pk", AttributeType::kS}, {"b", AttributeType::kN}},
                                     {{"a", AttributeType::kS}, {"sk", AttributeType::kN}},
                                     placeholders);
      break;
    case kKindCount:
      break;
  }
  (void)ddb::CheckAllPlaceholdersUsed(*placeholders);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Kind kind = static_cast<Kind>(data[0] % kKindCount);
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t end = input.find('\n');
  std::string_view text = input.substr(0, end);
  std::map<std::string, std::string> names = FixedNames();
  Item values = FixedValues();
  while (end != std::string_view::npos) {
    input.remove_prefix(end + 1);
    end = input.find('\n');
    std::string_view line = input.substr(0, end);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string name(line.substr(0, eq));
    std::string_view definition = line.substr(eq + 1);
    if (name.starts_with('#')) {
      names[name] = std::string(definition);
    } else if (Result<Item> value = ItemFromJson("{\"v\":" + std::string(definition) + "}");
               value.ok()) {
      values[name] = value->at("v");
    }
  }
  ddb::Placeholders placeholders;
  placeholders.names = &names;
  placeholders.values = &values;
  Run(kind, text, &placeholders);
  return 0;
}
