#include "engine/storage.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/merge_operator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace ddb {
namespace {

constexpr const char* kCfNames[] = {"default", "items", "changes", "meta", "indexes", "streams"};
constexpr size_t kCfCount = 6;

std::string EncodeInt64(int64_t v) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &v, 8);
  return s;
}

int64_t DecodeInt64(const rocksdb::Slice& s) {
  int64_t v = 0;
  if (s.size() == 8) std::memcpy(&v, s.data(), 8);
  return v;
}

std::string EncodePair(int64_t a, int64_t b) { return EncodeInt64(a) + EncodeInt64(b); }

std::pair<int64_t, int64_t> DecodePair(const rocksdb::Slice& s) {
  if (s.size() != 16) return {0, 0};
  return {DecodeInt64(rocksdb::Slice(s.data(), 8)), DecodeInt64(rocksdb::Slice(s.data() + 8, 8))};
}

// Counters (item counts and sizes of tables and indexes, the table-id sequence) are merged,
// not read-modify-written, so writers of different items never contend on them. A value of
// 8 bytes is one int64; of 16 bytes, a pair added element-wise.
class Int64AddOperator : public rocksdb::AssociativeMergeOperator {
 public:
  bool Merge(const rocksdb::Slice&, const rocksdb::Slice* existing, const rocksdb::Slice& value,
             std::string* new_value, rocksdb::Logger*) const override {
    if (value.size() == 16) {
      auto base = existing ? DecodePair(*existing) : std::pair<int64_t, int64_t>{0, 0};
      auto delta = DecodePair(value);
      *new_value = EncodePair(base.first + delta.first, base.second + delta.second);
      return true;
    }
    int64_t base = existing ? DecodeInt64(*existing) : 0;
    *new_value = EncodeInt64(base + DecodeInt64(value));
    return true;
  }
  const char* Name() const override { return "ddb.Int64Add"; }
};

Error ToError(const rocksdb::Status& s, const char* what) {
  std::fprintf(stderr, "ddb storage: %s failed: %s\n", what, s.ToString().c_str());
  return Error::Internal("Internal server error");
}

}  // namespace

struct Storage::Batch::Rep {
  rocksdb::WriteBatch batch;
  const std::vector<rocksdb::ColumnFamilyHandle*>* cfs;
  rocksdb::ColumnFamilyHandle* Handle(Cf cf) const { return (*cfs)[static_cast<size_t>(cf)]; }
};

struct Storage::Rep {
  std::unique_ptr<rocksdb::Env> mem_env;  // outlives db
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> cfs;
  rocksdb::WriteOptions write_options;

  ~Rep() {
    if (db) {
      for (auto* cf : cfs) db->DestroyColumnFamilyHandle(cf);
      db->Close().PermitUncheckedError();
      db.reset();
    }
  }
};

Storage::Batch::Batch(Storage& storage) : rep_(std::make_unique<Rep>()) {
  rep_->cfs = &storage.rep_->cfs;
}
Storage::Batch::~Batch() = default;

void Storage::Batch::Put(Cf cf, std::string_view key, std::string_view value) {
  rep_->batch
      .Put(rep_->Handle(cf), rocksdb::Slice(key.data(), key.size()),
           rocksdb::Slice(value.data(), value.size()))
      .PermitUncheckedError();
}

void Storage::Batch::Delete(Cf cf, std::string_view key) {
  rep_->batch.Delete(rep_->Handle(cf), rocksdb::Slice(key.data(), key.size()))
      .PermitUncheckedError();
}

void Storage::Batch::DeleteRange(Cf cf, std::string_view begin, std::string_view end) {
  rep_->batch
      .DeleteRange(rep_->Handle(cf), rocksdb::Slice(begin.data(), begin.size()),
                   rocksdb::Slice(end.data(), end.size()))
      .PermitUncheckedError();
}

void Storage::Batch::AddToCounter(std::string_view key, int64_t delta) {
  rep_->batch
      .Merge(rep_->Handle(Cf::kMeta), rocksdb::Slice(key.data(), key.size()), EncodeInt64(delta))
      .PermitUncheckedError();
}

void Storage::Batch::SetCounter(std::string_view key, int64_t value) {
  rep_->batch
      .Put(rep_->Handle(Cf::kMeta), rocksdb::Slice(key.data(), key.size()), EncodeInt64(value))
      .PermitUncheckedError();
}

void Storage::Batch::AddToStats(std::string_view key, int64_t items, int64_t bytes) {
  rep_->batch
      .Merge(rep_->Handle(Cf::kMeta), rocksdb::Slice(key.data(), key.size()),
             EncodePair(items, bytes))
      .PermitUncheckedError();
}

void Storage::Batch::SetStats(std::string_view key, int64_t items, int64_t bytes) {
  rep_->batch
      .Put(rep_->Handle(Cf::kMeta), rocksdb::Slice(key.data(), key.size()),
           EncodePair(items, bytes))
      .PermitUncheckedError();
}

Storage::Storage(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Storage::~Storage() = default;

Result<std::unique_ptr<Storage>> Storage::Open(const StorageOptions& options) {
  auto rep = std::make_unique<Rep>();
  rocksdb::DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.IncreaseParallelism(2);
  // Bounds that hold over hours of churn: all memtables together stay under 256 MB (the
  // largest is flushed first), and WAL files are recycled once they pass 256 MB in all, by
  // flushing the families that pin the oldest one. RocksDB's defaults (no memtable cap; WAL
  // up to four times the sum of all write buffers) let a busy server's WAL reach ~3 GB and
  // an in-memory server's memtables most of a gigabyte.
  db_options.db_write_buffer_size = 256 << 20;
  db_options.max_total_wal_size = 256 << 20;
  std::string path = options.path;
  if (options.in_memory) {
    rep->mem_env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
    db_options.env = rep->mem_env.get();
    path = "/ddb-in-memory";
    rep->write_options.disableWAL = true;  // nothing survives the process anyway
  }

  rocksdb::ColumnFamilyOptions cf_options;
  rocksdb::BlockBasedTableOptions table_options;
  table_options.whole_key_filtering = true;
  // Point reads (GetItem, the old item of every write) skip SST files without the key.
  table_options.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  cf_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table_options));
  rocksdb::ColumnFamilyOptions meta_options = cf_options;
  meta_options.merge_operator = std::make_shared<Int64AddOperator>();
  // Every write merges into its table's stats key; folding the operands as they pile up
  // keeps a later read of that key (DescribeTable, /metrics) from walking thousands.
  meta_options.max_successive_merges = 64;

  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (size_t i = 0; i < kCfCount; ++i) {
    descriptors.emplace_back(kCfNames[i],
                             i == static_cast<size_t>(Cf::kMeta) ? meta_options : cf_options);
  }
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(db_options, path, descriptors, &rep->cfs, &raw);
  if (!s.ok()) return ToError(s, "open");
  rep->db.reset(raw);
  return std::unique_ptr<Storage>(new Storage(std::move(rep)));
}

Result<std::optional<std::string>> Storage::Get(Cf cf, std::string_view key) {
  std::string value;
  rocksdb::Status s = rep_->db->Get(rocksdb::ReadOptions(), rep_->cfs[static_cast<size_t>(cf)],
                                    rocksdb::Slice(key.data(), key.size()), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return ToError(s, "get");
  return std::optional<std::string>(std::move(value));
}

Result<std::optional<std::string>> Storage::LastKey(Cf cf, std::string_view lower) {
  std::optional<std::string> last;
  DDB_RETURN_IF_ERROR(ForEach(
      cf, lower, "",
      [&](std::string_view key, std::string_view) {
        last = std::string(key);
        return false;
      },
      /*reverse=*/true));
  return last;
}

Result<std::pair<int64_t, int64_t>> Storage::GetStats(std::string_view key) {
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> v, Get(Cf::kMeta, key));
  if (!v) return std::pair<int64_t, int64_t>{0, 0};
  return DecodePair(rocksdb::Slice(*v));
}

Result<int64_t> Storage::GetCounter(std::string_view key) {
  DDB_ASSIGN_OR_RETURN(std::optional<std::string> v, Get(Cf::kMeta, key));
  return v ? DecodeInt64(*v) : int64_t{0};
}

Status Storage::Write(Batch& batch) {
  rocksdb::Status s = rep_->db->Write(rep_->write_options, &batch.rep_->batch);
  if (!s.ok()) return ToError(s, "write");
  return Status::Ok();
}

Status Storage::DeleteRange(Cf cf, std::string_view begin, std::string_view end) {
  rocksdb::Status s = rep_->db->DeleteRange(rep_->write_options, rep_->cfs[static_cast<size_t>(cf)],
                                            rocksdb::Slice(begin.data(), begin.size()),
                                            rocksdb::Slice(end.data(), end.size()));
  if (!s.ok()) return ToError(s, "delete range");
  return Status::Ok();
}

Status Storage::ForEach(Cf cf, std::string_view begin, std::string_view end,
                        const std::function<bool(std::string_view, std::string_view)>& fn,
                        bool reverse) {
  rocksdb::ReadOptions read_options;
  rocksdb::Slice lower(begin.data(), begin.size());
  rocksdb::Slice upper(end.data(), end.size());
  read_options.iterate_lower_bound = &lower;
  if (!end.empty()) read_options.iterate_upper_bound = &upper;
  // The change log is trimmed with range deletions of applied records only, all below any
  // reader's lower bound (the applier's watermark): its readers need not look at them, and
  // so never pay for fragmenting them (index_maintenance.h).
  if (cf == Cf::kChanges) read_options.ignore_range_deletions = true;
  std::unique_ptr<rocksdb::Iterator> it(
      rep_->db->NewIterator(read_options, rep_->cfs[static_cast<size_t>(cf)]));
  if (reverse) {
    it->SeekToLast();
  } else {
    it->Seek(lower);
  }
  for (; it->Valid(); reverse ? it->Prev() : it->Next()) {
    if (!fn(std::string_view(it->key().data(), it->key().size()),
            std::string_view(it->value().data(), it->value().size()))) {
      break;
    }
  }
  if (!it->status().ok()) return ToError(it->status(), "iterate");
  return Status::Ok();
}

}  // namespace ddb
