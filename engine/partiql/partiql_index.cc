#include "engine/partiql/partiql_index.h"

#include <algorithm>
#include <string>

namespace ddb::partiql {
namespace {

bool Projects(const TableDescription& table, const SecondaryIndexDefinition& index,
              const std::string& name) {
  const IndexProjection& p = index.projection;
  if (p.projection_type == ProjectionType::kAll) return true;
  for (const auto* schema : {&table.key_schema, &index.key_schema}) {
    for (const KeySchemaElement& k : *schema) {
      if (k.attribute_name == name) return true;
    }
  }
  return p.projection_type == ProjectionType::kInclude &&
         std::find(p.non_key_attributes.begin(), p.non_key_attributes.end(), name) !=
             p.non_key_attributes.end();
}

// The top-level attributes "e" refers to, each once, in order of appearance.
void AttributesOf(const Expr& e, std::vector<std::string>* out) {
  if (e.kind == Expr::Kind::kPath && !e.path.empty()) {
    const std::string& name = e.path[0].name;
    if (std::find(out->begin(), out->end(), name) == out->end()) out->push_back(name);
  }
  for (const Expr& arg : e.args) AttributesOf(arg, out);
}

// "a, b": the names the index does not project.
std::string Unprojected(const TableDescription& table, const SecondaryIndexDefinition& index,
                        const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!Projects(table, index, name)) out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace

Status CheckIndexRead(const TableDescription& table, const Statement& st, bool consistent_read,
                      const std::vector<const Expr*>* keyed_filter) {
  const SecondaryIndexDefinition* index = nullptr;
  bool global = false;
  for (const auto* list : {&table.local_secondary_indexes, &table.global_secondary_indexes}) {
    for (const SecondaryIndexDefinition& i : *list) {
      if (i.index_name == *st.index) {
        index = &i;
        global = list == &table.global_secondary_indexes;
      }
    }
  }
  // Query's and Scan's answers append the name; PartiQL's does not.
  if (!index) return Error::Validation("The table does not have the specified index");
  if (global && consistent_read) {
    return Error::Validation(
        "Strongly consistent read is not supported on Global Secondary Indexes");
  }
  const std::string prefix = "One or more parameter values were invalid: ";
  if (global) {
    std::vector<std::string> selected;
    for (const DocumentPath& p : st.projection) {
      if (std::find(selected.begin(), selected.end(), p[0].name) == selected.end()) {
        selected.push_back(p[0].name);
      }
    }
    const std::string missing = Unprojected(table, *index, selected);
    if (!missing.empty()) {
      return Error::Validation(prefix + "Global secondary index " + index->index_name +
                               " does not project [" + missing + "]");
    }
  }
  if (keyed_filter) {
    std::vector<std::string> filtered;
    for (const Expr* term : *keyed_filter) AttributesOf(*term, &filtered);
    const std::string missing = Unprojected(table, *index, filtered);
    if (!missing.empty()) {
      return Error::Validation(prefix + "Secondary index " + index->index_name +
                               " does not project one or more filter attributes: [" + missing +
                               "]");
    }
  }
  return Status::Ok();
}

}  // namespace ddb::partiql
