#include "engine/storage/store_format.h"

#include "engine/storage/coding.h"

namespace ddb {
namespace {

constexpr std::string_view kFormatKey = "format";
constexpr std::string_view kWriter = "ddb " DDB_VERSION;

}  // namespace

Error NewerFormat(const std::string& what, int64_t found, int64_t known) {
  return Error::Internal(what + " has on-disk format " + std::to_string(found) +
                         ", newer than this build reads (" + std::to_string(known) +
                         "): open it with the newer ddb that wrote it");
}

Status CheckStoreFormat(Storage* storage) {
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> record, storage->Get(Cf::kMeta, kFormatKey));
  if (record) {
    std::string_view in = *record;
    uint64_t format = 0;
    if (!GetFixedBE(&in, 4, &format)) return Error::Internal("unreadable store format record");
    if (format > kStoreFormat) {
      return NewerFormat("the store (written by '" + std::string(in) + "')",
                         static_cast<int64_t>(format), kStoreFormat);
    }
    if (format == kStoreFormat) return Status::Ok();
  }
  // No record (a new store, or format 1) or an older one: today's record. Format 1 reads as 2
  // as it is: its change records are told apart by their first byte (change_log.h); format
  // 2 reads as 3 as it is: it has no history and no backups.
  std::string value;
  PutFixed32BE(&value, kStoreFormat);
  value.append(kWriter);
  Storage::Batch batch(*storage);
  batch.Put(Cf::kMeta, kFormatKey, value);
  return storage->Write(batch);
}

}  // namespace ddb
