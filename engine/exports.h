// ExportTableToPointInTime's jobs and records (engine/exports.cc), and TableReaderAt, the one
// way an export reads a table. An export record lives in the meta family under
// "export/<id>" (an item with a Format attribute). The output is the service's layout
// (docs/ARCHITECTURE.md, "Import and export").
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
#include "engine/storage.h"

namespace ddb {

class EngineImpl;

// A table's items as of one instant.
class TableReader {
 public:
  virtual ~TableReader() = default;
  // Calls fn(item key, encoded item) for each item, in key order, until fn returns false.
  // Errors: kInternal.
  virtual Status ForEachItem(
      const std::function<bool(std::string_view key, std::string_view item)>& fn) = 0;
};

// How close to now an ExportTime counts as now (a client's clock and rounding; the snapshot
// is taken when the request is served).
inline constexpr double kExportNowSlackSeconds = 2.0;

// The items of `table` as of `time` (epoch seconds). nullopt: now, a consistent RocksDB
// snapshot taken by this call. Any other time needs point-in-time history, which this build
// does not keep: kInvalidExportTime. (After the PITR history lands, an earlier time reads it
// here; nothing else in the export changes.)
Result<std::unique_ptr<TableReader>> TableReaderAt(EngineImpl& impl, const TableInfo& table,
                                                   std::optional<double> time);

class Exports {
 public:
  explicit Exports(EngineImpl* impl);
  ~Exports();
  // Loads the records. An export left IN_PROGRESS by the last run is resumed when its table
  // can be read as of its ExportTime (TableReaderAt), else FAILED (its snapshot is gone).
  Status Load();
  Result<ExportDescription> Start(const RequestContext& ctx, const ExportTableRequest& req);
  Result<ExportDescription> Describe(const RequestContext& ctx, const std::string& arn);
  Result<ListExportsResult> List(const RequestContext& ctx, const ListExportsRequest& req);

 private:
  struct Job;
  void Run(std::shared_ptr<Job> job, std::shared_ptr<TableReader> reader);
  Status Persist(const Job& job);
  ExportDescription DescribeJob(const RequestContext& ctx, const Job& job);

  EngineImpl* impl_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;  // by id; guarded by mu_
  std::map<std::string, std::string> tokens_;         // ClientToken -> id; guarded by mu_
};

}  // namespace ddb
