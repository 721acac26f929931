// See loadgen_tables.h.
#include "loadgen_tables.h"

#include <cinttypes>
#include <cstdio>

namespace ddb::bench {
namespace {

constexpr int64_t kFarFutureSeconds = int64_t{10} * 365 * 24 * 3600;  // ~10 years

// A value in [0, 1) from a hash.
double Unit(uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

std::string Numbered(char prefix, uint64_t n, int digits) {
  char text[32];
  std::snprintf(text, sizeof(text), "%c%0*" PRIu64, prefix, digits, n);
  return text;
}

// Appends ,"name":{"S":"value"} and returns its DynamoDB size.
int64_t AppendS(std::string* out, std::string_view name, const std::string& value) {
  *out += ",\"";
  *out += name;
  *out += R"(":{"S":")";
  *out += value;
  *out += "\"}";
  return static_cast<int64_t>(name.size() + value.size());
}

// Sizes are the attribute name plus the value; an N of d digits takes about d / 2 + 1 bytes.
int64_t AppendN(std::string* out, std::string_view name, int64_t value) {
  const std::string text = std::to_string(value);
  *out += ",\"";
  *out += name;
  *out += R"(":{"N":")";
  *out += text;
  *out += "\"}";
  return static_cast<int64_t>(name.size() + text.size() / 2 + 1);
}

std::string G1pk(uint64_t h) { return "a" + std::to_string(h % kGsi1Pks); }
std::string G2pk(uint64_t h) { return "b" + std::to_string(h % kGsi2Pks); }
std::string Lsk(uint64_t h) { return Numbered('l', h % 1000000, 6); }

std::string KeyElement(const char* name, const char* type) {
  return std::string(R"({"AttributeName":")") + name + R"(","KeyType":")" + type + "\"}";
}
std::string Definition(const char* name) {
  return std::string(R"({"AttributeName":")") + name + R"(","AttributeType":"S"})";
}
std::string Index(const char* name, const char* hash, const char* range) {
  return std::string(R"({"IndexName":")") + name + R"(","KeySchema":[)" + KeyElement(hash, "HASH") +
         "," + KeyElement(range, "RANGE") + R"(],"Projection":{"ProjectionType":"ALL"}})";
}

// The raw JSON string value after `"member":` starting the search at *pos, or empty; advances
// *pos past it.
std::string_view NextStringMember(std::string_view body, std::string_view quoted_member,
                                  size_t* pos) {
  size_t at = body.find(quoted_member, *pos);
  if (at == std::string_view::npos) {
    *pos = std::string_view::npos;
    return {};
  }
  at = body.find('"', at + quoted_member.size());
  if (at == std::string_view::npos) {
    *pos = std::string_view::npos;
    return {};
  }
  const size_t end = body.find('"', at + 1);
  if (end == std::string_view::npos) {
    *pos = std::string_view::npos;
    return {};
  }
  *pos = end + 1;
  return body.substr(at + 1, end - at - 1);
}

}  // namespace

std::string TableShape::Describe() const {
  std::string d;
  auto add = [&d](const std::string& part) { d += (d.empty() ? "" : " ") + part; };
  if (gsis > 0) add("gsis=" + std::to_string(gsis));
  if (lsi) add("lsi");
  if (stream) add("stream=NEW_AND_OLD_IMAGES");
  if (!ttl_attribute.empty()) {
    char text[96];
    std::snprintf(text, sizeof(text), "ttl=%s(%.0f%% within %.0fs)", ttl_attribute.c_str(),
                  expiring_fraction * 100, expire_after);
    add(text);
  }
  if (HasIndexes()) {
    char text[64];
    std::snprintf(text, sizeof(text), "index-move-fraction=%.2f", index_move_fraction);
    add(text);
  }
  if (gsi_query_fraction > 0) {
    char text[64];
    std::snprintf(text, sizeof(text), "gsi-query-fraction=%.2f", gsi_query_fraction);
    add(text);
  }
  return d.empty() ? "plain" : d;
}

std::string CreateTableBody(const std::string& table, const TableShape& shape) {
  std::string b = R"({"TableName":")" + table + R"(","AttributeDefinitions":[)" + Definition("pk") +
                  "," + Definition("sk");
  if (shape.gsis >= 1) b += "," + Definition("g1pk") + "," + Definition("g1sk");
  if (shape.gsis >= 2) b += "," + Definition("g2pk") + "," + Definition("g2sk");
  if (shape.lsi) b += "," + Definition("lsk");
  b += R"(],"KeySchema":[)" + KeyElement("pk", "HASH") + "," + KeyElement("sk", "RANGE") + "]";
  if (shape.gsis >= 1) {
    b += R"(,"GlobalSecondaryIndexes":[)" + Index("gsi1", "g1pk", "g1sk");
    if (shape.gsis >= 2) b += "," + Index("gsi2", "g2pk", "g2sk");
    b += "]";
  }
  if (shape.lsi) b += R"(,"LocalSecondaryIndexes":[)" + Index("lsi1", "pk", "lsk") + "]";
  if (shape.stream) {
    b += R"(,"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"})";
  }
  return b + R"(,"BillingMode":"PAY_PER_REQUEST"})";
}

std::string UpdateTimeToLiveBody(const std::string& table, const TableShape& shape) {
  return R"({"TableName":")" + table + R"(","TimeToLiveSpecification":{"Enabled":true,)" +
         R"("AttributeName":")" + shape.ttl_attribute + R"("}})";
}

bool TableAndIndexesActive(std::string_view body) {
  size_t pos = 0;
  const std::string_view table = NextStringMember(body, "\"TableStatus\"", &pos);
  if (pos == std::string_view::npos) return true;  // no TableStatus at all
  if (table != "ACTIVE") return false;
  pos = 0;
  while (true) {
    const std::string_view index = NextStringMember(body, "\"IndexStatus\"", &pos);
    if (pos == std::string_view::npos) return true;
    if (index != "ACTIVE") return false;
  }
}

int64_t AppendShapeAttributes(std::string* out, const TableShape& shape, int64_t item,
                              int64_t now) {
  const auto n = static_cast<uint64_t>(item);
  int64_t size = 0;
  if (shape.gsis >= 1) {
    size += AppendS(out, "g1pk", G1pk(Mix64(n ^ 0x6731)));
    size += AppendS(out, "g1sk", Numbered('t', n, 9));
  }
  if (shape.gsis >= 2) {
    size += AppendS(out, "g2pk", G2pk(Mix64(n ^ 0x6732)));
    size += AppendS(out, "g2sk", Numbered('u', n, 9));
  }
  if (shape.lsi) size += AppendS(out, "lsk", Lsk(Mix64(n ^ 0x6c73)));
  if (!shape.ttl_attribute.empty()) {
    int64_t expires = now + kFarFutureSeconds;
    if (Unit(Mix64(n ^ 0x7474)) < shape.expiring_fraction) {
      expires = now + 1 + static_cast<int64_t>(Unit(Mix64(n ^ 0x7475)) * shape.expire_after);
    }
    size += AppendN(out, shape.ttl_attribute, expires);
  }
  return size;
}

void AppendUpdateMembers(std::string* out, const TableShape& shape, uint64_t random) {
  const bool move = shape.HasIndexes() && Unit(Mix64(random)) < shape.index_move_fraction;
  if (!move) {
    *out += R"(,"UpdateExpression":"ADD #n :one","ExpressionAttributeNames":{"#n":"n"},)"
            R"("ExpressionAttributeValues":{":one":{"N":"1"}}})";
    return;
  }
  std::string set;
  std::string values = R"(":one":{"N":"1"})";
  auto assign = [&](const char* attr, const char* placeholder, const std::string& value) {
    set += std::string(set.empty() ? " SET " : ", ") + attr + " = " + placeholder;
    values += std::string(",\"") + placeholder + R"(":{"S":")" + value + "\"}";
  };
  const uint64_t h = Mix64(random ^ 0x6d6f7665);
  if (shape.gsis >= 1) assign("g1pk", ":g1", G1pk(h));
  if (shape.gsis >= 2) assign("g2pk", ":g2", G2pk(h >> 16));
  if (shape.lsi) assign("lsk", ":l", Lsk(h >> 32));
  *out += R"(,"UpdateExpression":"ADD #n :one)" + set +
          R"(","ExpressionAttributeNames":{"#n":"n"},"ExpressionAttributeValues":{)" + values +
          "}}";
}

std::string QueryGsiBody(const std::string& table, uint64_t gsi_pk, int limit) {
  return R"({"TableName":")" + table +
         R"(","IndexName":"gsi1","KeyConditionExpression":"g1pk = :p",)"
         R"("ExpressionAttributeValues":{":p":{"S":")" +
         G1pk(gsi_pk) + R"("}},"Limit":)" + std::to_string(limit) + "}";
}

}  // namespace ddb::bench
