// The local stand-in for Amazon S3 that ImportTable reads and exports write
// (EngineOptions::s3_dir): bucket B is the directory <s3_dir>/B, the object with key K the
// file <s3_dir>/B/K. Object keys are paths relative to the bucket, '/'-separated; a prefix
// matches keys by string prefix, as in S3 (so "data/x" matches "data/x1.csv" and
// "data/x/1.csv"). Files whose names start with '.' (and ".tmp-" files being written) are
// not objects. Objects are written whole, to a temporary name then renamed, so a reader never
// sees half of one. Also: streaming decompression of objects (GZIP with zlib, ZSTD with
// libzstd) and gzip compression for exports.
// Thread safety: LocalS3 is immutable; readers and writers are used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ddb/error.h"
#include "ddb/import_export.h"

namespace ddb {

class LocalS3 {
 public:
  explicit LocalS3(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  bool BucketExists(const std::string& bucket) const;
  // Keys of the bucket's objects that start with `prefix`, in byte order. Errors: kInternal.
  Result<std::vector<std::string>> List(const std::string& bucket, const std::string& prefix) const;
  std::string PathOf(const std::string& bucket, const std::string& key) const;
  // Writes the object (creating the directories its key names). Errors: kInternal.
  Status Put(const std::string& bucket, const std::string& key, std::string_view bytes) const;

 private:
  std::string root_;
};

// Whether `key` may name a local file: no empty, "." or ".." segment, not absolute. (S3
// allows any key; a local directory cannot hold those safely.)
bool SafeObjectKey(std::string_view key);

// The decompressed bytes of one object, a chunk at a time.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // Appends up to about `max` decompressed bytes to *out; returns false at the end of the
  // object. Errors: kInternal (I/O), kValidation (not GZIP/ZSTD data), with the reason.
  virtual Result<bool> Read(std::string* out, size_t max) = 0;
};
Result<std::unique_ptr<ObjectReader>> OpenObject(const std::string& path,
                                                 InputCompression compression);

// A gzip member built in memory (exports' data files).
class GzipWriter {
 public:
  GzipWriter();
  ~GzipWriter();
  void Append(std::string_view bytes);
  // The compressed bytes; the writer is then spent.
  std::string Finish();
  size_t compressed_size() const { return out_.size(); }

 private:
  void Pump(int flush);
  struct State;
  std::unique_ptr<State> state_;
  std::string out_;
};

}  // namespace ddb
