// ImportTable's jobs and records (engine/import_export/imports.cc), and what exports share with
// them: the ids and ARNs of import and export tasks and the S3 checks. An import record lives in
// the meta family under "import/<id>" (an item, item-codec encoded, with a Format attribute) from
// the request until forever (the service lists imports of the last 90 days; ddb keeps them);
// the job's live counters are in memory and written with the final status.
// Thread safety: all members may be used concurrently.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "ddb/import_export.h"
#include "engine/import_export/local_s3.h"

namespace ddb {

class EngineImpl;

// The version of import and export records (their Format attribute; absent: 1).
inline constexpr int64_t kImportRecordFormat = 1;
inline constexpr int64_t kExportRecordFormat = 1;

// "<14-digit epoch ms>-<8 hex>", as the service's import and export ids.
std::string NewTaskId();
// The table name and task id of "arn:aws:dynamodb:<region>:<account>:table/<name>/<kind>/<id>"
// (kind "import" or "export"); false when it is not of that shape.
bool ParseTaskArn(const std::string& arn, const std::string& kind, std::string* table,
                  std::string* id);
// The table name of a table ARN (or a bare name); false when malformed.
bool TableNameOfArn(const std::string& arn, std::string* table);
// The S3 error that fails a task whose bucket does not exist (the service answers a bucket
// it cannot reach the same way): FailureCode S3NoSuchBucket.
inline const char kNoSuchBucketCode[] = "S3NoSuchBucket";
inline const char kNoSuchBucketMessage[] = "The specified bucket does not exist";

class Imports {
 public:
  explicit Imports(EngineImpl* impl);
  ~Imports();
  // Loads the records; imports left IN_PROGRESS by the last run start over (their tables'
  // contents are dropped first). Errors: kInternal.
  Status Load();

  Result<ImportDescription> Start(const RequestContext& ctx, const ImportTableRequest& req);
  Result<ImportDescription> Describe(const RequestContext& ctx, const std::string& arn);
  Result<ListImportsResult> List(const RequestContext& ctx, const ListImportsRequest& req);

 private:
  struct Job;
  // Runs on a job thread: reads every object, writes the items, records the outcome.
  void Run(std::shared_ptr<Job> job);
  Status Persist(const Job& job);
  ImportDescription DescribeJob(const RequestContext& ctx, const Job& job);
  Status Launch(std::shared_ptr<Job> job, bool restart);

  EngineImpl* impl_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Job>> jobs_;  // by id; guarded by mu_
  std::map<std::string, std::string> tokens_;         // ClientToken -> id; guarded by mu_
};

}  // namespace ddb
