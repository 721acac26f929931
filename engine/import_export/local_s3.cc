#include "engine/import_export/local_s3.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

namespace ddb {
namespace fs = std::filesystem;

bool SafeObjectKey(std::string_view key) {
  if (key.empty() || key.front() == '/') return false;
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find('/', start);
    if (end == std::string_view::npos) end = key.size();
    std::string_view seg = key.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == "..") return false;
    start = end + 1;
  }
  return true;
}

bool LocalS3::BucketExists(const std::string& bucket) const {
  std::error_code ec;
  return fs::is_directory(fs::path(root_) / bucket, ec);
}

std::string LocalS3::PathOf(const std::string& bucket, const std::string& key) const {
  return (fs::path(root_) / bucket / key).string();
}

Result<std::vector<std::string>> LocalS3::List(const std::string& bucket,
                                               const std::string& prefix) const {
  std::vector<std::string> keys;
  const fs::path base = fs::path(root_) / bucket;
  std::error_code ec;
  fs::recursive_directory_iterator it(base, fs::directory_options::skip_permission_denied, ec);
  if (ec) return Error::Internal("cannot list " + base.string() + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Error::Internal("cannot list " + base.string() + ": " + ec.message());
    const std::string name = it->path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    std::string key = it->path().lexically_relative(base).generic_string();
    if (key.compare(0, prefix.size(), prefix) == 0) keys.push_back(std::move(key));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

Status LocalS3::Put(const std::string& bucket, const std::string& key,
                    std::string_view bytes) const {
  const fs::path path = fs::path(root_) / bucket / key;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return Error::Internal("cannot create " + path.parent_path().string() + ": " + ec.message());
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  const fs::path tmp = path.parent_path() / (".tmp-" + std::to_string(rng()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) return Error::Internal("cannot write " + tmp.string());
  }
  fs::rename(tmp, path, ec);
  if (ec) return Error::Internal("cannot rename to " + path.string() + ": " + ec.message());
  return Status::Ok();
}

namespace {

constexpr size_t kFileChunk = 1 << 20;

class FileReader {
 public:
  explicit FileReader(std::FILE* f) : f_(f) {}
  ~FileReader() {
    if (f_) std::fclose(f_);
  }
  // Appends up to n raw bytes; 0 at the end.
  Result<size_t> Read(std::string* out, size_t n) {
    size_t old = out->size();
    out->resize(old + n);
    size_t got = std::fread(out->data() + old, 1, n, f_);
    out->resize(old + got);
    if (got == 0 && std::ferror(f_)) return Error::Internal("read error");
    return got;
  }

 private:
  std::FILE* f_;
};

class PlainReader : public ObjectReader {
 public:
  explicit PlainReader(std::FILE* f) : file_(f) {}
  Result<bool> Read(std::string* out, size_t max) override {
    DDB_ASSIGN_OR_RETURN(size_t got, file_.Read(out, max));
    return got > 0;
  }

 private:
  FileReader file_;
};

class GzipReader : public ObjectReader {
 public:
  explicit GzipReader(std::FILE* f) : file_(f) {
    // 15 + 32: zlib or gzip headers, detected; concatenated gzip members are read on.
    ok_ = inflateInit2(&z_, 15 + 32) == Z_OK;
  }
  ~GzipReader() override { inflateEnd(&z_); }
  Result<bool> Read(std::string* out, size_t max) override {
    if (!ok_) return Error::Internal("zlib init failed");
    if (done_) return false;
    const size_t old = out->size();
    out->resize(old + max);
    z_.next_out = reinterpret_cast<Bytef*>(out->data() + old);
    z_.avail_out = static_cast<uInt>(max);
    while (z_.avail_out > 0) {
      if (z_.avail_in == 0) {
        in_.clear();
        DDB_ASSIGN_OR_RETURN(size_t got, file_.Read(&in_, kFileChunk));
        if (got == 0) {
          if (!finished_member_) {
            out->resize(old);
            return Error::Validation("The GZIP data ends before its end");
          }
          done_ = true;
          break;
        }
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(in_.size());
      }
      finished_member_ = false;
      int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        finished_member_ = true;
        inflateReset(&z_);  // another member may follow
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        out->resize(old);
        return Error::Validation(std::string("Not GZIP data: ") + (z_.msg ? z_.msg : "inflate"));
      }
    }
    out->resize(old + (max - z_.avail_out));
    return out->size() > old || !done_;
  }

 private:
  FileReader file_;
  z_stream z_{};
  std::string in_;
  bool ok_ = false;
  bool done_ = false;
  bool finished_member_ = true;  // an empty file is an empty object
};

class ZstdReader : public ObjectReader {
 public:
  explicit ZstdReader(std::FILE* f) : file_(f), z_(ZSTD_createDStream()) {}
  ~ZstdReader() override { ZSTD_freeDStream(z_); }
  Result<bool> Read(std::string* out, size_t max) override {
    if (done_) return false;
    const size_t old = out->size();
    out->resize(old + max);
    ZSTD_outBuffer o{out->data() + old, max, 0};
    while (o.pos < o.size) {
      if (pos_ == in_.size()) {
        in_.clear();
        pos_ = 0;
        DDB_ASSIGN_OR_RETURN(size_t got, file_.Read(&in_, kFileChunk));
        if (got == 0) {
          if (!frame_done_) {
            out->resize(old);
            return Error::Validation("The ZSTD data ends before its end");
          }
          done_ = true;
          break;
        }
      }
      ZSTD_inBuffer i{in_.data(), in_.size(), pos_};
      size_t rc = ZSTD_decompressStream(z_, &o, &i);
      pos_ = i.pos;
      if (ZSTD_isError(rc)) {
        out->resize(old);
        return Error::Validation(std::string("Not ZSTD data: ") + ZSTD_getErrorName(rc));
      }
      frame_done_ = rc == 0;
    }
    out->resize(old + o.pos);
    return o.pos > 0 || !done_;
  }

 private:
  FileReader file_;
  ZSTD_DStream* z_;
  std::string in_;
  size_t pos_ = 0;
  bool done_ = false;
  bool frame_done_ = true;
};

}  // namespace

Result<std::unique_ptr<ObjectReader>> OpenObject(const std::string& path,
                                                 InputCompression compression) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Error::Internal("cannot open " + path);
  switch (compression) {
    case InputCompression::kGzip:
      return std::unique_ptr<ObjectReader>(new GzipReader(f));
    case InputCompression::kZstd:
      return std::unique_ptr<ObjectReader>(new ZstdReader(f));
    case InputCompression::kNone:
      break;
  }
  return std::unique_ptr<ObjectReader>(new PlainReader(f));
}

struct GzipWriter::State {
  z_stream z{};
};

GzipWriter::GzipWriter() : state_(std::make_unique<State>()) {
  // Level 1: exports favour speed; any gzip reader reads it. 15 + 16: a gzip header.
  deflateInit2(&state_->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

GzipWriter::~GzipWriter() { deflateEnd(&state_->z); }

void GzipWriter::Pump(int flush) {
  z_stream& z = state_->z;
  while (true) {
    const size_t old = out_.size();
    out_.resize(old + 64 * 1024);
    z.next_out = reinterpret_cast<Bytef*>(out_.data() + old);
    z.avail_out = 64 * 1024;
    int rc = deflate(&z, flush);
    out_.resize(old + (64 * 1024 - z.avail_out));
    if (flush == Z_FINISH ? rc == Z_STREAM_END : (z.avail_in == 0 && z.avail_out > 0)) break;
  }
}

void GzipWriter::Append(std::string_view bytes) {
  state_->z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  state_->z.avail_in = static_cast<uInt>(bytes.size());
  Pump(Z_NO_FLUSH);
}

std::string GzipWriter::Finish() {
  state_->z.next_in = nullptr;
  state_->z.avail_in = 0;
  Pump(Z_FINISH);
  return std::move(out_);
}

}  // namespace ddb
