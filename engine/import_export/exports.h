// ExportTableToPointInTime's jobs and records (engine/import_export/exports.cc), and TableReaderAt,
// the one way an export reads a table. An export record lives in the meta family under
// "export/<id>" (an item with a Format attribute). The output is the service's layout
// (docs/architecture/import-export.md).
// Thread safety: all members may be used concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ddb/import_export.h"
#include "engine/catalog.h"
#include "engine/storage/storage.h"

namespace ddb {

class EngineImpl;

// What an export job reads, as the lines of its data files. Holds a pin on the table's
// history at the export's (start) time while it lives (backup_registry.h), so that trimming
// cannot take what a running export, or one resumed after a restart, reads.
class ExportReader {
 public:
  virtual ~ExportReader();
  // Calls fn(record, billed bytes) for each record in `format` (one line, no newline), until
  // fn returns false. Errors: kInternal.
  virtual Status ForEachRecord(ExportFormat format,
                               const std::function<bool(std::string_view, int64_t)>& fn) = 0;

 protected:
  ExportReader(EngineImpl* impl, uint32_t table_id, uint64_t pin_ms);
  EngineImpl* impl_;
  uint32_t table_id_;
  std::shared_ptr<const Storage::Snapshot> snapshot_;

 private:
  uint64_t pin_ms_;
};

// A table's items as of one instant: `{"Item":{...}}` records (a full export).
class TableReader : public ExportReader {
 public:
  // The instant read (ms): every change committed at or before it, none after.
  virtual uint64_t as_of_ms() const = 0;
  // Calls fn(item key, encoded item) for each item, in key order, until fn returns false.
  // Errors: kInternal.
  virtual Status ForEachItem(
      const std::function<bool(std::string_view key, std::string_view item)>& fn) = 0;
  Status ForEachRecord(ExportFormat format,
                       const std::function<bool(std::string_view, int64_t)>& fn) override;

 protected:
  using ExportReader::ExportReader;
};

// How close to now an ExportTime counts as now (a client's clock and rounding; the snapshot
// is taken when the request is served).
inline constexpr double kExportNowSlackSeconds = 2.0;

// The items of `table` as of `as_of_ms`, read from a RocksDB snapshot taken by this call
// (after every item writer has committed once). nullopt: now, which is
// HistoryClock::Mark(), so that reading the history as of that time later (an export
// resumed after a restart) gives the same items. An earlier time is read through the
// table's point-in-time history (ItemsAsOf), and must lie in its recovery window
// (EngineImpl::PitrWindowOf), checked once the history is pinned. Errors:
// kInvalidExportTime (outside the window, or point-in-time recovery off), kInternal.
Result<std::unique_ptr<TableReader>> TableReaderAt(EngineImpl& impl, const TableInfo& table,
                                                   std::optional<uint64_t> as_of_ms);

// The changes of `table` in [from_ms, to_ms) as an incremental export writes them: one
// record per item changed then, `{"Metadata":{"WriteTimestampMicros":{"N":..}},"Keys":{..},
// "NewImage":{..},"OldImage":{..}}` (the images at the window's end and start; OldImage only
// with NEW_AND_OLD_IMAGES; no record for an item that neither had), in item-key order.
// *to_ms is cut to the present (HistoryClock::Mark() + 1): what commits later is not in the
// snapshot. Errors as TableReaderAt's, for the window's start.
Result<std::unique_ptr<ExportReader>> ChangeReaderAt(EngineImpl& impl, const TableInfo& table,
                                                     uint64_t from_ms, uint64_t* to_ms,
                                                     ExportViewType view);

class Exports {
 public:
  explicit Exports(EngineImpl* impl);
  ~Exports();
  // Loads the records. An export left IN_PROGRESS by the last run starts again when its
  // table's history still covers its time (TableReaderAt, ChangeReaderAt), else it ends
  // FAILED (ExportInterrupted).
  Status Load();
  Result<ExportDescription> Start(const RequestContext& ctx, const ExportTableRequest& req);
  Result<ExportDescription> Describe(const RequestContext& ctx, const std::string& arn);
  Result<ListExportsResult> List(const RequestContext& ctx, const ListExportsRequest& req);

 private:
  struct Job;
  void Run(std::shared_ptr<Job> job, std::shared_ptr<ExportReader> reader);
  Status Persist(const Job& job);
  ExportDescription DescribeJob(const RequestContext& ctx, const Job& job);

  EngineImpl* impl_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;  // by id; guarded by mu_
  std::map<std::string, std::string> tokens_;         // ClientToken -> id; guarded by mu_
};

}  // namespace ddb
