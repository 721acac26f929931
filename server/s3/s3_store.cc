#include "server/s3/s3_store.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <system_error>

#include "util/digest.h"
#include "util/hex.h"

namespace ddb::server {
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxKeyBytes = 1024;
constexpr int kMaxPartNumber = 10000;
constexpr uint64_t kMinPartBytes = 5ull * 1024 * 1024;
constexpr size_t kMaxCachedETags = 100000;
constexpr std::string_view kTempDirName = ".ddb-tmp";

S3Error Internal(std::string what) {
  return S3Error{500, "InternalError",
                 "We encountered an internal error. Please try again. (" + std::move(what) + ")"};
}

S3Error InvalidArgument(std::string message) {
  return S3Error{400, "InvalidArgument", std::move(message)};
}

// The hex MD5 of a file's bytes, read in pieces; each piece is also written to `copy` when
// given. nullopt when it cannot be read (or `copy` written).
std::optional<std::string> StreamMd5(const fs::path& path, std::ofstream* copy = nullptr) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_md5(), nullptr);
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), got);
    if (copy && !copy->write(buffer.data(), static_cast<std::streamsize>(got))) {
      return std::nullopt;
    }
  }
  if (in.bad()) return std::nullopt;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &size);
  return util::Hex(std::string_view(reinterpret_cast<const char*>(digest), size));
}

int64_t ToMillis(fs::file_time_type t) {
  // file_time_type's clock is the system clock's on libstdc++ (same epoch since GCC 9).
  const auto system = std::chrono::file_clock::to_sys(t);
  return std::chrono::duration_cast<std::chrono::milliseconds>(system.time_since_epoch()).count();
}

int64_t ToNanos(fs::file_time_type t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

bool ReadRange(const fs::path& path, uint64_t offset, uint64_t length, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(static_cast<std::streamoff>(offset));
  out->resize(length);
  in.read(out->data(), static_cast<std::streamsize>(length));
  return static_cast<uint64_t>(in.gcount()) == length;
}

bool SyncPath(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), (directory ? O_DIRECTORY : 0) | O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// The keys (relative paths with '/') of the regular files under `dir`, which is
// `base`/`relative_dir`, with their prefix `relative_dir`.
void CollectKeys(const fs::path& dir, const std::string& relative_dir,
                 std::vector<std::string>* keys) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    keys->push_back(relative_dir + fs::relative(it->path(), dir, ec).generic_string());
  }
}

}  // namespace

S3Error NoSuchBucket() {
  return S3Error{404, "NoSuchBucket", "The specified bucket does not exist"};
}
S3Error NoSuchKey() { return S3Error{404, "NoSuchKey", "The specified key does not exist."}; }
S3Error NoSuchUpload() {
  return S3Error{404, "NoSuchUpload",
                 "The specified upload does not exist. The upload ID may be invalid, or the "
                 "upload may have been aborted or completed."};
}

S3Status CheckBucketName(std::string_view name) {
  // The general purpose bucket naming rules: 3-63 characters of [a-z0-9.-], starting and
  // ending with a letter or digit, no "..", not an IPv4 address.
  const S3Error invalid{400, "InvalidBucketName", "The specified bucket is not valid."};
  if (name.size() < 3 || name.size() > 63) return invalid;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) {
      return invalid;
    }
  }
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front()) || !alnum(name.back())) return invalid;
  if (name.find("..") != std::string_view::npos) return invalid;
  if (std::all_of(name.begin(), name.end(),
                  [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
      std::count(name.begin(), name.end(), '.') == 3) {
    return invalid;
  }
  return {};
}

S3Status CheckObjectKey(std::string_view key) {
  if (key.empty()) return InvalidArgument("Object key must not be empty");
  if (key.size() > kMaxKeyBytes) return S3Error{400, "KeyTooLongError", "Your key is too long"};
  if (key.find('\0') != std::string_view::npos) {
    return InvalidArgument("ddb's local S3 cannot store a key with a NUL character");
  }
  // Each '/'-separated segment becomes a path component; the last may be empty (a folder).
  size_t start = 0;
  while (true) {
    const size_t slash = key.find('/', start);
    const std::string_view segment = key.substr(start, slash - start);
    const bool last = slash == std::string_view::npos;
    if ((segment.empty() && !last) || segment == "." || segment == "..") {
      return InvalidArgument(
          "ddb's local S3 stores objects as files: a key may not have an empty, '.' or '..' "
          "path segment: " +
          std::string(key));
    }
    if (last) break;
    start = slash + 1;
  }
  return {};
}

LocalS3Store::LocalS3Store(fs::path root, bool sync)
    : root_(std::move(root)), temp_dir_(root_ / kTempDirName), sync_(sync) {
  // Half-written objects a crash left behind (their writer's pid is in the name): never
  // renamed into place, so nobody reads them.
  const std::string mine = "put-" + std::to_string(::getpid()) + "-";
  std::error_code ec;
  for (fs::directory_iterator it(temp_dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("put-") && !name.starts_with(mine)) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

fs::path LocalS3Store::BucketPath(std::string_view bucket) const { return root_ / bucket; }

fs::path LocalS3Store::UploadPath(std::string_view upload_id) const {
  return temp_dir_ / "uploads" / upload_id;
}

bool LocalS3Store::BucketExists(std::string_view bucket) const {
  std::error_code ec;
  return CheckBucketName(bucket).ok() && fs::is_directory(BucketPath(bucket), ec);
}

S3Status LocalS3Store::CreateBucket(std::string_view bucket, bool* already_existed) {
  if (S3Status valid = CheckBucketName(bucket); !valid.ok()) return valid;
  std::error_code ec;
  fs::create_directories(root_, ec);
  const bool created = fs::create_directory(BucketPath(bucket), ec);
  if (ec) return Internal("cannot create the bucket's directory: " + ec.message());
  *already_existed = !created;
  if (created && sync_) SyncPath(root_, /*directory=*/true);
  return {};
}

S3Status LocalS3Store::DeleteBucket(std::string_view bucket) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  std::error_code ec;
  for (fs::recursive_directory_iterator it(BucketPath(bucket), ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_directory(ec)) {
      return S3Error{409, "BucketNotEmpty", "The bucket you tried to delete is not empty"};
    }
  }
  // Only empty directories (folders) are left.
  fs::remove_all(BucketPath(bucket), ec);
  if (ec) return Internal("cannot remove the bucket's directory: " + ec.message());
  return {};
}

std::vector<S3BucketInfo> LocalS3Store::ListBuckets() const {
  std::vector<S3BucketInfo> buckets;
  std::error_code ec;
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_directory(ec) || !CheckBucketName(name).ok()) continue;
    buckets.push_back({name, ToMillis(it->last_write_time(ec))});
  }
  std::sort(buckets.begin(), buckets.end(),
            [](const S3BucketInfo& a, const S3BucketInfo& b) { return a.name < b.name; });
  return buckets;
}

S3Status LocalS3Store::MoveIntoPlace(const fs::path& temp, const fs::path& target) {
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) {
    fs::remove(temp, ec);
    return InvalidArgument(
        "ddb's local S3 stores objects as files: a prefix of this key is already an object");
  }
  if (fs::is_directory(target, ec)) {
    fs::remove(temp, ec);
    return InvalidArgument(
        "ddb's local S3 stores objects as files: this key is a prefix of other objects' keys");
  }
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return Internal("cannot move the object into place: " + ec.message());
  }
  if (sync_) SyncPath(target.parent_path(), /*directory=*/true);
  ForgetETag(target);
  return {};
}

fs::path LocalS3Store::NewTempPath() {
  std::error_code ec;
  fs::create_directories(temp_dir_, ec);
  std::lock_guard<std::mutex> lock(mu_);
  return temp_dir_ / ("put-" + std::to_string(::getpid()) + "-" + std::to_string(next_temp_++));
}

S3Status LocalS3Store::FinishTempFile(const fs::path& temp, std::ofstream* out,
                                      const fs::path& target) {
  out->close();
  std::error_code ec;
  if (!*out) {
    fs::remove(temp, ec);
    return Internal("cannot write the object");
  }
  if (sync_ && !SyncPath(temp, /*directory=*/false)) {
    fs::remove(temp, ec);
    return Internal("cannot sync the object");
  }
  return MoveIntoPlace(temp, target);
}

S3Status LocalS3Store::WriteAtomically(const fs::path& target, std::string_view data) {
  const fs::path temp = NewTempPath();
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  return FinishTempFile(temp, &out, target);
}

S3Status LocalS3Store::PutObject(std::string_view bucket, std::string_view key,
                                 std::string_view data, std::string* etag) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  if (S3Status valid = CheckObjectKey(key); !valid.ok()) return valid;
  const fs::path target = BucketPath(bucket) / key;
  if (key.back() == '/') {
    if (!data.empty()) {
      return InvalidArgument(
          "ddb's local S3 stores a key ending in '/' as a directory: its body must be empty");
    }
    std::error_code ec;
    fs::create_directories(target, ec);
    if (ec) return InvalidArgument("ddb's local S3: a prefix of this key is already an object");
    *etag = '"' + util::Md5Hex("") + '"';
    return {};
  }
  if (S3Status written = WriteAtomically(target, data); !written.ok()) return written;
  *etag = '"' + util::Md5Hex(data) + '"';
  return {};
}

std::string LocalS3Store::ETagOf(const fs::path& path, uint64_t size, int64_t modified_ns) {
  const std::string name = path.string();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = etags_.find(name);
    if (it != etags_.end() && it->second.size == size && it->second.modified_ns == modified_ns) {
      return it->second.etag;
    }
  }
  const std::optional<std::string> md5 = StreamMd5(path);
  if (!md5) return "\"\"";
  std::string etag = '"' + *md5 + '"';
  std::lock_guard<std::mutex> lock(mu_);
  if (etags_.size() >= kMaxCachedETags) etags_.clear();
  etags_[name] = CachedETag{size, modified_ns, etag};
  return etag;
}

void LocalS3Store::ForgetETag(const fs::path& path) {
  std::lock_guard<std::mutex> lock(mu_);
  etags_.erase(path.string());
}

S3Status LocalS3Store::HeadObject(std::string_view bucket, std::string_view key,
                                  S3ObjectInfo* info) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  if (!CheckObjectKey(key).ok()) return NoSuchKey();
  const fs::path path = BucketPath(bucket) / key;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec) return NoSuchKey();
  const fs::file_time_type modified = fs::last_write_time(path, ec);
  if (ec) return NoSuchKey();
  info->key = std::string(key);
  info->modified_ms = ToMillis(modified);
  if (fs::is_directory(status)) {
    // A folder key ("dir/") reads back empty; "dir" without the slash is not an object.
    if (key.back() != '/') return NoSuchKey();
    info->size = 0;
    info->etag = '"' + util::Md5Hex("") + '"';
    return {};
  }
  if (!fs::is_regular_file(status) || key.back() == '/') return NoSuchKey();
  info->size = fs::file_size(path, ec);
  if (ec) return NoSuchKey();
  info->etag = ETagOf(path, info->size, ToNanos(modified));
  return {};
}

S3Status LocalS3Store::GetObject(std::string_view bucket, std::string_view key, uint64_t offset,
                                 std::optional<uint64_t> length, S3ObjectInfo* info,
                                 std::string* data) {
  if (S3Status found = HeadObject(bucket, key, info); !found.ok()) return found;
  return ReadObject(bucket, key, *info, offset, length, data);
}

S3Status LocalS3Store::ReadObject(std::string_view bucket, std::string_view key,
                                  const S3ObjectInfo& info, uint64_t offset,
                                  std::optional<uint64_t> length, std::string* data) {
  data->clear();
  if (info.size == 0 || offset >= info.size) return {};
  const uint64_t take = std::min(length.value_or(info.size), info.size - offset);
  if (!ReadRange(BucketPath(bucket) / key, offset, take, data)) {
    return Internal("cannot read the object");
  }
  return {};
}

S3Status LocalS3Store::DeleteObject(std::string_view bucket, std::string_view key) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  if (!CheckObjectKey(key).ok()) return {};  // nothing can be stored there
  const fs::path bucket_path = BucketPath(bucket);
  fs::path path = bucket_path / key;
  std::error_code ec;
  if (key.back() == '/') {
    fs::remove(path, ec);  // only if empty
  } else if (fs::is_regular_file(path, ec)) {
    fs::remove(path, ec);
    ForgetETag(path);
  } else {
    return {};
  }
  // Prune the directories the object leaves empty, as S3 has no directories to leave.
  for (path = path.parent_path(); path != bucket_path && path.has_relative_path();
       path = path.parent_path()) {
    if (!fs::is_empty(path, ec) || ec || !fs::remove(path, ec)) break;
  }
  return {};
}

S3Status LocalS3Store::List(std::string_view bucket, const S3ListRequest& request,
                            S3ListResult* result) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  // Walk only the directory the prefix names (up to its last '/'), not the whole bucket.
  const size_t slash = request.prefix.rfind('/');
  const std::string prefix_dir =
      slash == std::string::npos ? std::string() : request.prefix.substr(0, slash + 1);
  std::vector<std::string> keys;
  if (prefix_dir.empty() || CheckObjectKey(prefix_dir).ok()) {
    std::error_code ec;
    const fs::path dir = BucketPath(bucket) / prefix_dir;
    if (fs::is_directory(dir, ec)) CollectKeys(dir, prefix_dir, &keys);
  }
  std::sort(keys.begin(), keys.end());
  result->objects.clear();
  result->common_prefixes.clear();
  result->truncated = false;
  const int max_keys = std::max(0, request.max_keys);
  int count = 0;
  auto it = std::upper_bound(keys.begin(), keys.end(), request.after);
  for (; it != keys.end(); ++it) {
    const std::string& key = *it;
    if (!key.starts_with(request.prefix)) {
      if (key > request.prefix) break;  // sorted: nothing further matches
      continue;
    }
    std::string common;
    if (!request.delimiter.empty()) {
      const size_t at = key.find(request.delimiter, request.prefix.size());
      if (at != std::string::npos) common = key.substr(0, at + request.delimiter.size());
    }
    if (!common.empty() && !result->common_prefixes.empty() &&
        result->common_prefixes.back() == common) {
      continue;  // already reported
    }
    if (!common.empty() && common <= request.after) continue;  // a page ended inside it
    if (count == max_keys) {
      result->truncated = true;
      break;
    }
    ++count;
    if (!common.empty()) {
      result->common_prefixes.push_back(common);
      result->last = common;
      continue;
    }
    S3ObjectInfo info;
    if (!HeadObject(bucket, key, &info).ok()) {
      --count;  // deleted meanwhile
      continue;
    }
    result->objects.push_back(std::move(info));
    result->last = key;
  }
  return {};
}

S3Status LocalS3Store::CreateMultipartUpload(std::string_view bucket, std::string_view key,
                                             std::string* upload_id) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  if (S3Status valid = CheckObjectKey(key); !valid.ok()) return valid;
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device random;
  upload_id->clear();
  for (int i = 0; i < 32; ++i) upload_id->push_back(kChars[random() % 36]);
  std::error_code ec;
  const fs::path dir = UploadPath(*upload_id);
  fs::create_directories(dir, ec);
  if (ec) return Internal("cannot create the upload's directory: " + ec.message());
  // The upload remembers what it is for: Complete must name the same bucket and key.
  std::ofstream(dir / "target", std::ios::binary) << bucket << '/' << key;
  return {};
}

namespace {

// Whether `dir` is the upload of bucket/key.
bool UploadIsFor(const fs::path& dir, std::string_view bucket, std::string_view key) {
  std::ifstream in(dir / "target", std::ios::binary);
  if (!in) return false;
  const std::string target((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return target == std::string(bucket) + '/' + std::string(key);
}

bool ValidUploadId(std::string_view id) {
  return id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
         });
}

std::string Unquoted(std::string_view etag) {
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return std::string(etag);
}

}  // namespace

S3Status LocalS3Store::UploadPart(std::string_view bucket, std::string_view key,
                                  std::string_view upload_id, int part_number,
                                  std::string_view data, std::string* etag) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  if (part_number < 1 || part_number > kMaxPartNumber) {
    return InvalidArgument("Part number must be an integer between 1 and 10000, inclusive");
  }
  const fs::path dir = UploadPath(upload_id);
  if (!ValidUploadId(upload_id) || !UploadIsFor(dir, bucket, key)) return NoSuchUpload();
  const fs::path part = dir / ("part-" + std::to_string(part_number));
  if (S3Status written = WriteAtomically(part, data); !written.ok()) return written;
  *etag = '"' + util::Md5Hex(data) + '"';
  return {};
}

S3Status LocalS3Store::CompleteMultipartUpload(std::string_view bucket, std::string_view key,
                                               std::string_view upload_id,
                                               const std::vector<CompletedPart>& parts,
                                               std::string* etag) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  const fs::path dir = UploadPath(upload_id);
  if (!ValidUploadId(upload_id) || !UploadIsFor(dir, bucket, key)) return NoSuchUpload();
  if (parts.empty()) {
    return S3Error{400, "MalformedXML",
                   "The XML you provided was not well-formed or did not validate against our "
                   "published schema"};
  }
  const S3Error invalid_part{
      400, "InvalidPart",
      "One or more of the specified parts could not be found.  The part may not have been "
      "uploaded, or the specified entity tag may not match the part's entity tag."};
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].part_number <= parts[i - 1].part_number) {
      return S3Error{400, "InvalidPartOrder",
                     "The list of parts was not in ascending order. Parts must be ordered by "
                     "part number."};
    }
  }
  // The parts are checked and copied in one pass into the object's temporary file.
  const fs::path temp = NewTempPath();
  std::ofstream out(temp, std::ios::binary | std::ios::trunc);
  auto fail = [&](S3Error error) -> S3Status {
    out.close();
    std::error_code ignored;
    fs::remove(temp, ignored);
    return error;
  };
  for (size_t i = 0; i < parts.size(); ++i) {
    const fs::path part = dir / ("part-" + std::to_string(parts[i].part_number));
    std::error_code ec;
    const uint64_t size = fs::file_size(part, ec);
    if (ec) return fail(invalid_part);
    if (i + 1 < parts.size() && size < kMinPartBytes) {
      return fail(S3Error{400, "EntityTooSmall",
                          "Your proposed upload is smaller than the minimum allowed object size."});
    }
    const std::optional<std::string> md5 = StreamMd5(part, &out);
    if (!md5 || Unquoted(parts[i].etag) != *md5) return fail(invalid_part);
  }
  if (S3Status written = FinishTempFile(temp, &out, BucketPath(bucket) / key); !written.ok()) {
    return written;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  S3ObjectInfo info;
  if (S3Status found = HeadObject(bucket, key, &info); !found.ok()) return found;
  *etag = info.etag;
  return {};
}

S3Status LocalS3Store::AbortMultipartUpload(std::string_view bucket, std::string_view key,
                                            std::string_view upload_id) {
  if (!BucketExists(bucket)) return NoSuchBucket();
  const fs::path dir = UploadPath(upload_id);
  if (!ValidUploadId(upload_id) || !UploadIsFor(dir, bucket, key)) return NoSuchUpload();
  std::error_code ec;
  fs::remove_all(dir, ec);
  return {};
}

}  // namespace ddb::server
