// The local directory that stands in for S3 (--s3-dir; the engine's imports read it and its
// exports write it), seen as buckets and objects for the S3 API on ddb's own port
// (server/s3/s3_api.h): bucket B is the directory <root>/B, object key K the file <root>/B/K, so
// what an S3 client puts is what ImportTable reads, and an export's files are objects.
// Keys are paths: '/' separates directories, so a key may not have an empty, "." or ".."
// segment, and "a" and "a/b" cannot both be objects (the second is refused). A key ending in
// '/' (a console's "folder") makes the directory and is not listed. Objects carry no
// metadata beyond their bytes and modification time (Content-Type reads back as the service's
// default, binary/octet-stream); ETags are MD5s, cached by size and modification time.
// Writes go to <root>/.ddb-tmp and are renamed into place, so a reader never sees half an
// object; with `sync` (--durability fsync) the file and its directory are fsynced first.
// Construction removes the temporary files of earlier processes (a crash's leftovers).
// Multipart uploads keep their parts under <root>/.ddb-tmp/uploads/<upload id>/.
// Thread safety: every member may be called concurrently; concurrent writes of one key end
// with one of them whole.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ddb::server {

// An S3 error: its HTTP status, code and message as the service sends them.
struct S3Error {
  int status = 500;
  std::string code;
  std::string message;
};

// Ok, or an S3Error.
class S3Status {
 public:
  S3Status() = default;
  S3Status(S3Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  bool ok() const { return !error_; }
  const S3Error& error() const { return *error_; }

 private:
  std::optional<S3Error> error_;
};

struct S3BucketInfo {
  std::string name;
  int64_t created_ms = 0;  // the directory's modification time
};

struct S3ObjectInfo {
  std::string key;
  uint64_t size = 0;
  int64_t modified_ms = 0;
  std::string etag;  // quoted hex MD5 of the bytes (of a multipart upload's object too)
};

struct S3ListRequest {
  std::string prefix;
  std::string delimiter;  // "" for none
  std::string after;      // list keys strictly after this one (StartAfter, marker, token)
  int max_keys = 1000;
};

struct S3ListResult {
  std::vector<S3ObjectInfo> objects;
  std::vector<std::string> common_prefixes;
  bool truncated = false;
  std::string last;  // the last key or common prefix returned (where the next page starts)
};

// Validation of names, as S3 checks them (errors: InvalidBucketName, KeyTooLongError,
// InvalidArgument for keys this store cannot hold as paths).
S3Status CheckBucketName(std::string_view name);
S3Status CheckObjectKey(std::string_view key);

// Standard S3 errors.
S3Error NoSuchBucket();
S3Error NoSuchKey();
S3Error NoSuchUpload();

class LocalS3Store {
 public:
  LocalS3Store(std::filesystem::path root, bool sync);

  S3Status CreateBucket(std::string_view bucket, bool* already_existed);
  S3Status DeleteBucket(std::string_view bucket);  // NoSuchBucket, BucketNotEmpty
  bool BucketExists(std::string_view bucket) const;
  std::vector<S3BucketInfo> ListBuckets() const;

  // Writes the object whole (replacing one of that key); `etag` gets its quoted MD5.
  S3Status PutObject(std::string_view bucket, std::string_view key, std::string_view data,
                     std::string* etag);
  // Reads [offset, offset + length) of the object (length clipped to its end) into `data`;
  // `info` gets its size, time and ETag.
  S3Status GetObject(std::string_view bucket, std::string_view key, uint64_t offset,
                     std::optional<uint64_t> length, S3ObjectInfo* info, std::string* data);
  S3Status HeadObject(std::string_view bucket, std::string_view key, S3ObjectInfo* info);
  // GetObject's read, for a caller that has HeadObject's `info` for the key already.
  S3Status ReadObject(std::string_view bucket, std::string_view key, const S3ObjectInfo& info,
                      uint64_t offset, std::optional<uint64_t> length, std::string* data);
  // Deleting a key that is not there succeeds, as on S3. Empty directories left behind are
  // removed up to the bucket.
  S3Status DeleteObject(std::string_view bucket, std::string_view key);
  S3Status List(std::string_view bucket, const S3ListRequest& request, S3ListResult* result);

  // Multipart uploads: parts are numbered 1..10000; Complete joins the listed parts (each but
  // the last at least 5 MiB, as S3 requires) in order into the object.
  S3Status CreateMultipartUpload(std::string_view bucket, std::string_view key,
                                 std::string* upload_id);
  S3Status UploadPart(std::string_view bucket, std::string_view key, std::string_view upload_id,
                      int part_number, std::string_view data, std::string* etag);
  struct CompletedPart {
    int part_number = 0;
    std::string etag;  // as the client sends it, quoted or not
  };
  S3Status CompleteMultipartUpload(std::string_view bucket, std::string_view key,
                                   std::string_view upload_id,
                                   const std::vector<CompletedPart>& parts, std::string* etag);
  S3Status AbortMultipartUpload(std::string_view bucket, std::string_view key,
                                std::string_view upload_id);

 private:
  std::filesystem::path BucketPath(std::string_view bucket) const;
  std::filesystem::path UploadPath(std::string_view upload_id) const;
  // A fresh file name under .ddb-tmp (the directory made if need be).
  std::filesystem::path NewTempPath();
  // Closes `out` (writing `temp`), syncs it under sync_ and renames it to `target`.
  S3Status FinishTempFile(const std::filesystem::path& temp, std::ofstream* out,
                          const std::filesystem::path& target);
  // Writes `data` to a fresh file under .ddb-tmp and renames it to `target`.
  S3Status WriteAtomically(const std::filesystem::path& target, std::string_view data);
  S3Status MoveIntoPlace(const std::filesystem::path& temp, const std::filesystem::path& target);
  std::string ETagOf(const std::filesystem::path& path, uint64_t size, int64_t modified_ns);
  void ForgetETag(const std::filesystem::path& path);

  const std::filesystem::path root_;
  const std::filesystem::path temp_dir_;
  const bool sync_;

  struct CachedETag {
    uint64_t size;
    int64_t modified_ns;
    std::string etag;
  };
  std::mutex mu_;
  std::unordered_map<std::string, CachedETag> etags_;  // by path; guarded by mu_
  uint64_t next_temp_ = 0;                             // guarded by mu_
};

}  // namespace ddb::server
