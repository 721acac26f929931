#include "server/s3/s3_api.h"

#include <time.h>

#include <algorithm>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <charconv>
#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "server/auth/sigv4.h"
#include "server/auth/sigv4_verify.h"
#include "server/s3/s3_payload.h"
#include "server/url_coding.h"
#include "util/hex.h"
#include "util/iso8601.h"

namespace ddb::server {
namespace {

constexpr std::string_view kXmlHead = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
constexpr std::string_view kXmlns = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";
constexpr int kMaxListKeys = 1000;
constexpr size_t kMaxDeleteKeys = 1000;

// Query parameters that select no subresource: listing arguments, the SDKs' x-id, presigning.
bool IsPlainParameter(std::string_view name) {
  static constexpr std::string_view kPlain[] = {
      "x-id", "list-type", "prefix", "delimiter", "max-keys", "marker", "start-after",
      "encoding-type", "continuation-token", "fetch-owner", "partNumber", "uploadId", "uploads",
      "delete", "location",
      // SigV2 presigned URLs
      "AWSAccessKeyId", "Signature", "Expires"};
  if (name.starts_with("X-Amz-") || name.starts_with("response-")) return true;
  return std::find(std::begin(kPlain), std::end(kPlain), name) != std::end(kPlain);
}

void AppendXmlEscaped(std::string_view s, std::string* out) {
  for (unsigned char c : s) {
    switch (c) {
      case '&':
        *out += "&amp;";
        break;
      case '<':
        *out += "&lt;";
        break;
      case '>':
        *out += "&gt;";
        break;
      case '"':
        *out += "&quot;";
        break;
      case '\'':
        *out += "&apos;";
        break;
      default:
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          *out += "&#x";
          *out += util::kUpperHexDigits[c >> 4];
          *out += util::kUpperHexDigits[c & 15];
          *out += ';';
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
}

// <name>escaped value</name>
void AppendElement(std::string* out, std::string_view name, std::string_view value) {
  *out += '<';
  *out += name;
  *out += '>';
  AppendXmlEscaped(value, out);
  *out += "</";
  *out += name;
  *out += '>';
}

// "Tue, 01 Dec 2026 15:00:00 GMT"
std::string HttpTime(int64_t ms) {
  const time_t seconds = static_cast<time_t>(ms / 1000);
  struct tm tm;
  gmtime_r(&seconds, &tm);
  char buffer[64];
  return std::string(buffer, strftime(buffer, sizeof buffer, "%a, %d %b %Y %H:%M:%S GMT", &tm));
}

HttpResponse Xml(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/xml";
  response.body = std::move(body);
  return response;
}

HttpResponse Empty(int status) {
  HttpResponse response;
  response.status = status;
  response.content_type = "application/xml";
  return response;
}

HttpResponse ErrorResponse(const S3Error& error, std::string_view resource, bool head) {
  if (head) return Empty(error.status);  // HEAD answers carry no body
  std::string body(kXmlHead);
  body += "<Error>";
  AppendElement(&body, "Code", error.code);
  AppendElement(&body, "Message", error.message);
  AppendElement(&body, "Resource", resource);
  body += "</Error>";
  return Xml(error.status, std::move(body));
}

S3Error NotImplemented() {
  return S3Error{501, "NotImplemented",
                 "A header you provided implies functionality that is not implemented"};
}

S3Error MethodNotAllowed() {
  return S3Error{405, "MethodNotAllowed",
                 "The specified method is not allowed against this resource."};
}

S3Error MalformedXml() {
  return S3Error{400, "MalformedXML",
                 "The XML you provided was not well-formed or did not validate against our "
                 "published schema"};
}

S3Error InvalidArgument(std::string message) {
  return S3Error{400, "InvalidArgument", std::move(message)};
}

std::string_view Header(const HttpRequest& request, std::string_view name) {
  return FindHeader(request.headers, name).value_or(std::string_view());
}

void AddHeader(HttpResponse* response, std::string_view name, std::string_view value) {
  response->extra_headers += name;
  response->extra_headers += ": ";
  response->extra_headers += value;
  response->extra_headers += "\r\n";
}

void AddObjectHeaders(HttpResponse* response, const S3ObjectInfo& info) {
  AddHeader(response, "ETag", info.etag);
  AddHeader(response, "Last-Modified", HttpTime(info.modified_ms));
  AddHeader(response, "Accept-Ranges", "bytes");
}

// One request, decoded.
struct S3Call {
  std::string_view method;
  std::string bucket;  // "" for the service (ListBuckets)
  std::string key;     // "" for a bucket
  std::vector<QueryParam> query;
  std::string resource;  // "/bucket/key", for error documents
  std::string region;    // the credential scope's
  bool head = false;

  const std::string* Param(std::string_view name) const {
    const QueryParam* p = FindParam(query, name);
    return p ? &p->value : nullptr;
  }
};

S3Call ReadCall(const HttpRequest& request) {
  S3Call call;
  call.method = request.method;
  call.head = request.method == "HEAD";
  const size_t question = request.target.find('?');
  const std::string path = Decode(request.target.substr(0, question));
  if (question != std::string_view::npos)
    call.query = ParseQuery(request.target.substr(question + 1));
  std::string_view rest = path;
  if (rest.starts_with('/')) rest.remove_prefix(1);
  const size_t slash = rest.find('/');
  call.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) call.key = std::string(rest.substr(slash + 1));
  call.resource = path;
  if (request.authorization) call.region = ContextFromAuthorization(*request.authorization).region;
  if (call.region.empty()) call.region = "us-east-1";
  return call;
}

// --- buckets ---

HttpResponse ListBuckets(LocalS3Store& store) {
  std::string body(kXmlHead);
  body += "<ListAllMyBucketsResult";
  body += kXmlns;
  body += "><Owner><ID>ddb</ID><DisplayName>ddb</DisplayName></Owner><Buckets>";
  for (const S3BucketInfo& bucket : store.ListBuckets()) {
    body += "<Bucket>";
    AppendElement(&body, "Name", bucket.name);
    AppendElement(&body, "CreationDate", util::FormatIso8601Millis(bucket.created_ms));
    body += "</Bucket>";
  }
  body += "</Buckets></ListAllMyBucketsResult>";
  return Xml(200, std::move(body));
}

HttpResponse CreateBucket(LocalS3Store& store, const S3Call& call) {
  bool existed = false;
  if (S3Status created = store.CreateBucket(call.bucket, &existed); !created.ok()) {
    return ErrorResponse(created.error(), call.resource, false);
  }
  // us-east-1 answers its owner's second CreateBucket with 200; other regions with 409.
  if (existed && call.region != "us-east-1") {
    return ErrorResponse(S3Error{409, "BucketAlreadyOwnedByYou",
                                 "Your previous request to create the named bucket succeeded "
                                 "and you already own it."},
                         call.resource, false);
  }
  HttpResponse response = Empty(200);
  AddHeader(&response, "Location", "/" + call.bucket);
  return response;
}

// ListObjectsV2 (list-type=2) and ListObjects.
HttpResponse ListObjects(LocalS3Store& store, const S3Call& call) {
  const bool v2 = call.Param("list-type") && *call.Param("list-type") == "2";
  S3ListRequest list;
  if (const std::string* p = call.Param("prefix")) list.prefix = *p;
  if (const std::string* d = call.Param("delimiter")) list.delimiter = *d;
  int max_keys = kMaxListKeys;
  if (const std::string* m = call.Param("max-keys")) {
    long long value = 0;
    const auto [end, ec] = std::from_chars(m->data(), m->data() + m->size(), value);
    if (ec != std::errc() || end != m->data() + m->size() || value > INT32_MAX) {
      return ErrorResponse(InvalidArgument("Provided max-keys not an integer or within integer "
                                           "range"),
                           call.resource, false);
    }
    if (value < 0) {
      return ErrorResponse(
          InvalidArgument("Argument maxKeys must be an integer between 0 and 2147483647"),
          call.resource, false);
    }
    max_keys = static_cast<int>(value);
  }
  list.max_keys = std::min(max_keys, kMaxListKeys);
  const std::string* token = v2 ? call.Param("continuation-token") : nullptr;
  const std::string* start_after = call.Param(v2 ? "start-after" : "marker");
  if (start_after) list.after = *start_after;
  if (token) {
    // The token is the last key (or common prefix) of the page before, percent-encoded.
    if (token->empty()) {
      return ErrorResponse(InvalidArgument("The continuation token provided is incorrect"),
                           call.resource, false);
    }
    list.after = std::max(list.after, Decode(*token));
  }
  const std::string* encoding = call.Param("encoding-type");
  if (encoding && *encoding != "url") {
    return ErrorResponse(InvalidArgument("Invalid Encoding Method specified in Request"),
                         call.resource, false);
  }
  const bool url = encoding != nullptr;
  auto text = [url](std::string_view s) {
    if (!url) return std::string(s);
    std::string out;
    AppendEncoded(s, /*keep_slash=*/true, &out);
    return out;
  };

  S3ListResult result;
  if (S3Status listed = store.List(call.bucket, list, &result); !listed.ok()) {
    return ErrorResponse(listed.error(), call.resource, false);
  }
  std::string body(kXmlHead);
  body += "<ListBucketResult";
  body += kXmlns;
  body += '>';
  AppendElement(&body, "Name", call.bucket);
  AppendElement(&body, "Prefix", text(list.prefix));
  if (v2) {
    if (start_after) AppendElement(&body, "StartAfter", text(*start_after));
    if (token) AppendElement(&body, "ContinuationToken", *token);
    AppendElement(&body, "KeyCount",
                  std::to_string(result.objects.size() + result.common_prefixes.size()));
    if (result.truncated) {
      std::string next;
      AppendEncoded(result.last, /*keep_slash=*/false, &next);
      AppendElement(&body, "NextContinuationToken", next);
    }
  } else {
    AppendElement(&body, "Marker", text(start_after ? *start_after : ""));
    if (result.truncated && !list.delimiter.empty()) {
      AppendElement(&body, "NextMarker", text(result.last));
    }
  }
  AppendElement(&body, "MaxKeys", std::to_string(max_keys));
  if (!list.delimiter.empty()) AppendElement(&body, "Delimiter", text(list.delimiter));
  if (url) AppendElement(&body, "EncodingType", "url");
  AppendElement(&body, "IsTruncated", result.truncated ? "true" : "false");
  for (const S3ObjectInfo& object : result.objects) {
    body += "<Contents>";
    AppendElement(&body, "Key", text(object.key));
    AppendElement(&body, "LastModified", util::FormatIso8601Millis(object.modified_ms));
    AppendElement(&body, "ETag", object.etag);
    AppendElement(&body, "Size", std::to_string(object.size));
    if (!v2 || (call.Param("fetch-owner") && *call.Param("fetch-owner") == "true")) {
      body += "<Owner><ID>ddb</ID><DisplayName>ddb</DisplayName></Owner>";
    }
    AppendElement(&body, "StorageClass", "STANDARD");
    body += "</Contents>";
  }
  for (const std::string& prefix : result.common_prefixes) {
    body += "<CommonPrefixes>";
    AppendElement(&body, "Prefix", text(prefix));
    body += "</CommonPrefixes>";
  }
  body += "</ListBucketResult>";
  return Xml(200, std::move(body));
}

// The XML request body as a property tree, or nullopt when it does not parse.
std::optional<boost::property_tree::ptree> ParseXml(const std::string& body) {
  try {
    std::istringstream in(body);
    boost::property_tree::ptree tree;
    boost::property_tree::read_xml(in, tree);
    return tree;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

HttpResponse DeleteObjects(LocalS3Store& store, const S3Call& call, const S3Payload& payload) {
  if (!store.BucketExists(call.bucket)) {
    return ErrorResponse(NoSuchBucket(), call.resource, false);
  }
  std::optional<boost::property_tree::ptree> xml = ParseXml(payload.data);
  if (!xml || xml->count("Delete") != 1) return ErrorResponse(MalformedXml(), call.resource, false);
  const boost::property_tree::ptree& request = xml->get_child("Delete");
  std::vector<std::string> keys;
  for (const auto& [name, child] : request) {
    if (name != "Object") continue;
    const auto key = child.get_optional<std::string>("Key");
    if (!key) return ErrorResponse(MalformedXml(), call.resource, false);
    keys.push_back(*key);
  }
  if (keys.empty() || keys.size() > kMaxDeleteKeys) {
    return ErrorResponse(MalformedXml(), call.resource, false);
  }
  const bool quiet = request.get<std::string>("Quiet", "false") == "true";
  std::string body(kXmlHead);
  body += "<DeleteResult";
  body += kXmlns;
  body += '>';
  for (const std::string& key : keys) {
    S3Status deleted = store.DeleteObject(call.bucket, key);
    if (deleted.ok()) {
      if (quiet) continue;
      body += "<Deleted>";
      AppendElement(&body, "Key", key);
      body += "</Deleted>";
    } else {
      body += "<Error>";
      AppendElement(&body, "Key", key);
      AppendElement(&body, "Code", deleted.error().code);
      AppendElement(&body, "Message", deleted.error().message);
      body += "</Error>";
    }
  }
  body += "</DeleteResult>";
  return Xml(200, std::move(body));
}

HttpResponse ServeBucket(LocalS3Store& store, const S3Call& call, HttpRequest* request) {
  const std::string_view m = call.method;
  if (m == "PUT") return CreateBucket(store, call);
  if (m == "HEAD") {
    if (!store.BucketExists(call.bucket)) return Empty(404);
    HttpResponse response = Empty(200);
    AddHeader(&response, "x-amz-bucket-region", call.region);
    return response;
  }
  if (m == "DELETE") {
    S3Status deleted = store.DeleteBucket(call.bucket);
    return deleted.ok() ? Empty(204) : ErrorResponse(deleted.error(), call.resource, false);
  }
  if (m == "GET" && call.Param("location")) {
    if (!store.BucketExists(call.bucket))
      return ErrorResponse(NoSuchBucket(), call.resource, false);
    std::string body(kXmlHead);
    body += "<LocationConstraint";
    body += kXmlns;
    body += '>';
    if (call.region != "us-east-1") AppendXmlEscaped(call.region, &body);
    body += "</LocationConstraint>";
    return Xml(200, std::move(body));
  }
  if (m == "GET" && !call.Param("uploads")) return ListObjects(store, call);
  if (m == "POST" && call.Param("delete")) {
    S3Payload payload;
    if (S3Status read = ReadS3Payload(request->headers, std::move(request->body), &payload);
        !read.ok()) {
      return ErrorResponse(read.error(), call.resource, false);
    }
    return DeleteObjects(store, call, payload);
  }
  if (m == "GET" || m == "POST") return ErrorResponse(NotImplemented(), call.resource, false);
  return ErrorResponse(MethodNotAllowed(), call.resource, false);
}

// --- objects ---

// "bytes=a-b", "bytes=a-" or "bytes=-n" of an object of `size` bytes: [offset, offset+length).
// nullopt when the header is absent or not one range (S3 then sends the whole object);
// `unsatisfiable` when it starts past the end.
std::optional<std::pair<uint64_t, uint64_t>> ParseRange(std::string_view header, uint64_t size,
                                                        bool* unsatisfiable) {
  *unsatisfiable = false;
  if (!header.starts_with("bytes=")) return std::nullopt;
  header.remove_prefix(6);
  const size_t dash = header.find('-');
  if (dash == std::string_view::npos || header.find(',') != std::string_view::npos) {
    return std::nullopt;
  }
  auto number = [](std::string_view s) -> std::optional<uint64_t> {
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
  };
  const std::string_view first = header.substr(0, dash);
  const std::string_view last = header.substr(dash + 1);
  if (first.empty()) {  // the last n bytes
    const std::optional<uint64_t> n = number(last);
    if (!n) return std::nullopt;
    if (*n == 0) {
      *unsatisfiable = true;
      return std::nullopt;
    }
    const uint64_t take = std::min(*n, size);
    return std::make_pair(size - take, take);
  }
  const std::optional<uint64_t> from = number(first);
  if (!from) return std::nullopt;
  std::optional<uint64_t> to = last.empty() ? std::optional<uint64_t>(UINT64_MAX) : number(last);
  if (!to || *to < *from) return std::nullopt;
  if (*from >= size) {
    *unsatisfiable = true;
    return std::nullopt;
  }
  const uint64_t end = std::min(*to, size - 1);
  return std::make_pair(*from, end - *from + 1);
}

// If-Match / If-None-Match against the object's ETag: 412 / 304, or nullopt to go on.
std::optional<int> Precondition(const HttpRequest& request, const S3ObjectInfo& info) {
  auto matches = [&info](std::string_view list) {
    if (list == "*") return true;
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      if (comma == std::string_view::npos) comma = list.size();
      std::string_view tag = list.substr(start, comma - start);
      while (!tag.empty() && tag.front() == ' ') tag.remove_prefix(1);
      while (!tag.empty() && tag.back() == ' ') tag.remove_suffix(1);
      if (tag == info.etag || "\"" + std::string(tag) + "\"" == info.etag) return true;
      start = comma + 1;
    }
    return false;
  };
  if (std::optional<std::string_view> m = FindHeader(request.headers, "If-Match")) {
    if (!matches(*m)) return 412;
  }
  if (std::optional<std::string_view> m = FindHeader(request.headers, "If-None-Match")) {
    if (matches(*m)) return 304;
  }
  return std::nullopt;
}

HttpResponse GetObject(LocalS3Store& store, const S3Call& call, const HttpRequest& request) {
  S3ObjectInfo info;
  if (S3Status found = store.HeadObject(call.bucket, call.key, &info); !found.ok()) {
    return ErrorResponse(found.error(), call.resource, call.head);
  }
  if (std::optional<int> status = Precondition(request, info)) {
    if (*status == 304) {
      HttpResponse response = Empty(304);
      AddObjectHeaders(&response, info);
      return response;
    }
    return ErrorResponse(S3Error{412, "PreconditionFailed",
                                 "At least one of the pre-conditions you specified did not hold"},
                         call.resource, call.head);
  }
  bool unsatisfiable = false;
  const std::optional<std::pair<uint64_t, uint64_t>> range =
      ParseRange(Header(request, "Range"), info.size, &unsatisfiable);
  if (unsatisfiable) {
    HttpResponse response =
        ErrorResponse(S3Error{416, "InvalidRange", "The requested range is not satisfiable"},
                      call.resource, call.head);
    AddHeader(&response, "Content-Range", "bytes */" + std::to_string(info.size));
    return response;
  }
  HttpResponse response;
  response.status = range ? 206 : 200;
  response.content_type = "binary/octet-stream";
  AddObjectHeaders(&response, info);
  if (range) {
    AddHeader(&response, "Content-Range",
              "bytes " + std::to_string(range->first) + "-" +
                  std::to_string(range->first + range->second - 1) + "/" +
                  std::to_string(info.size));
  }
  const uint64_t length = range ? range->second : info.size;
  if (call.head) {
    response.head_content_length = length;
    return response;
  }
  if (S3Status got = store.ReadObject(call.bucket, call.key, info, range ? range->first : 0, length,
                                      &response.body);
      !got.ok()) {
    return ErrorResponse(got.error(), call.resource, false);
  }
  return response;
}

HttpResponse PutResponse(const std::string& etag, const S3Payload& payload) {
  HttpResponse response = Empty(200);
  AddHeader(&response, "ETag", etag);
  for (const auto& [name, value] : payload.checksums) AddHeader(&response, name, value);
  return response;
}

HttpResponse CopyObject(LocalS3Store& store, const S3Call& call, std::string_view source) {
  std::string decoded = Decode(source.substr(0, source.find('?')));
  std::string_view rest = decoded;
  if (rest.starts_with('/')) rest.remove_prefix(1);
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 == rest.size()) {
    return ErrorResponse(InvalidArgument("Copy Source must mention the source bucket and key: "
                                         "sourcebucket/sourcekey"),
                         call.resource, false);
  }
  S3ObjectInfo info;
  std::string data;
  if (S3Status got = store.GetObject(rest.substr(0, slash), rest.substr(slash + 1), 0, std::nullopt,
                                     &info, &data);
      !got.ok()) {
    return ErrorResponse(got.error(), call.resource, false);
  }
  std::string etag;
  if (S3Status put = store.PutObject(call.bucket, call.key, data, &etag); !put.ok()) {
    return ErrorResponse(put.error(), call.resource, false);
  }
  S3ObjectInfo copied;
  store.HeadObject(call.bucket, call.key, &copied);
  std::string body(kXmlHead);
  body += "<CopyObjectResult";
  body += kXmlns;
  body += '>';
  AppendElement(&body, "LastModified", util::FormatIso8601Millis(copied.modified_ms));
  AppendElement(&body, "ETag", etag);
  body += "</CopyObjectResult>";
  return Xml(200, std::move(body));
}

HttpResponse CompleteUpload(LocalS3Store& store, const S3Call& call, const HttpRequest& request,
                            const std::string& upload_id, const S3Payload& payload) {
  std::optional<boost::property_tree::ptree> xml = ParseXml(payload.data);
  if (!xml || xml->count("CompleteMultipartUpload") != 1) {
    return ErrorResponse(MalformedXml(), call.resource, false);
  }
  std::vector<LocalS3Store::CompletedPart> parts;
  for (const auto& [name, child] : xml->get_child("CompleteMultipartUpload")) {
    if (name != "Part") continue;
    const auto number = child.get_optional<int>("PartNumber");
    const auto etag = child.get_optional<std::string>("ETag");
    if (!number || !etag) return ErrorResponse(MalformedXml(), call.resource, false);
    parts.push_back({*number, *etag});
  }
  std::string etag;
  if (S3Status done = store.CompleteMultipartUpload(call.bucket, call.key, upload_id, parts, &etag);
      !done.ok()) {
    return ErrorResponse(done.error(), call.resource, false);
  }
  std::string body(kXmlHead);
  body += "<CompleteMultipartUploadResult";
  body += kXmlns;
  body += '>';
  AppendElement(&body, "Location", "http://" + std::string(request.host) + call.resource);
  AppendElement(&body, "Bucket", call.bucket);
  AppendElement(&body, "Key", call.key);
  AppendElement(&body, "ETag", etag);
  body += "</CompleteMultipartUploadResult>";
  return Xml(200, std::move(body));
}

HttpResponse ServeObject(LocalS3Store& store, const S3Call& call, HttpRequest* request) {
  const std::string_view m = call.method;
  const std::string* upload_id = call.Param("uploadId");
  if (m == "GET" || m == "HEAD") {
    if (upload_id) return ErrorResponse(NotImplemented(), call.resource, call.head);  // ListParts
    return GetObject(store, call, *request);
  }
  if (m == "DELETE") {
    S3Status done = upload_id ? store.AbortMultipartUpload(call.bucket, call.key, *upload_id)
                              : store.DeleteObject(call.bucket, call.key);
    return done.ok() ? Empty(204) : ErrorResponse(done.error(), call.resource, false);
  }
  if (m != "PUT" && m != "POST") return ErrorResponse(MethodNotAllowed(), call.resource, false);
  if (m == "POST" && call.Param("uploads")) {
    std::string id;
    if (S3Status created = store.CreateMultipartUpload(call.bucket, call.key, &id); !created.ok()) {
      return ErrorResponse(created.error(), call.resource, false);
    }
    std::string body(kXmlHead);
    body += "<InitiateMultipartUploadResult";
    body += kXmlns;
    body += '>';
    AppendElement(&body, "Bucket", call.bucket);
    AppendElement(&body, "Key", call.key);
    AppendElement(&body, "UploadId", id);
    body += "</InitiateMultipartUploadResult>";
    return Xml(200, std::move(body));
  }
  if (m == "POST" && !upload_id) return ErrorResponse(NotImplemented(), call.resource, false);
  const std::string_view copy_source = Header(*request, "x-amz-copy-source");
  if (!copy_source.empty()) {
    if (upload_id) return ErrorResponse(NotImplemented(), call.resource, false);  // UploadPartCopy
    return CopyObject(store, call, copy_source);
  }
  S3Payload payload;
  if (S3Status read = ReadS3Payload(request->headers, std::move(request->body), &payload);
      !read.ok()) {
    return ErrorResponse(read.error(), call.resource, false);
  }
  std::string etag;
  if (m == "POST") return CompleteUpload(store, call, *request, *upload_id, payload);
  if (upload_id) {
    const std::string* number = call.Param("partNumber");
    int part = 0;
    if (!number ||
        std::from_chars(number->data(), number->data() + number->size(), part).ec != std::errc()) {
      return ErrorResponse(
          InvalidArgument("Part number must be an integer between 1 and 10000, inclusive"),
          call.resource, false);
    }
    S3Status put = store.UploadPart(call.bucket, call.key, *upload_id, part, payload.data, &etag);
    return put.ok() ? PutResponse(etag, payload) : ErrorResponse(put.error(), call.resource, false);
  }
  // Conditional writes: If-None-Match: * refuses to replace an object (checked, then written:
  // two racing writers may both succeed).
  if (Header(*request, "If-None-Match") == "*") {
    S3ObjectInfo existing;
    if (store.HeadObject(call.bucket, call.key, &existing).ok()) {
      return ErrorResponse(S3Error{412, "PreconditionFailed",
                                   "At least one of the pre-conditions you specified did not hold"},
                           call.resource, false);
    }
  }
  S3Status put = store.PutObject(call.bucket, call.key, payload.data, &etag);
  return put.ok() ? PutResponse(etag, payload) : ErrorResponse(put.error(), call.resource, false);
}

// The verifier's refusal (DynamoDB's error codes) in S3's terms.
S3Error AuthError(const Error& error) {
  const std::string& m = error.message();
  switch (error.code()) {
    case ErrorCode::kMissingAuthenticationToken:
      return S3Error{403, "AccessDenied", "Access Denied"};
    case ErrorCode::kIncompleteSignature:
      return S3Error{400, "AuthorizationHeaderMalformed", m};
    case ErrorCode::kUnrecognizedClient:
      return S3Error{403, "InvalidAccessKeyId",
                     "The AWS Access Key Id you provided does not exist in our records."};
    default:
      break;
  }
  constexpr std::string_view kMismatch = "XAmzContentSHA256Mismatch: ";
  if (m.starts_with(kMismatch)) {
    return S3Error{400, "XAmzContentSHA256Mismatch", m.substr(kMismatch.size())};
  }
  if (m.starts_with("The request signature we calculated")) {
    return S3Error{403, "SignatureDoesNotMatch",
                   "The request signature we calculated does not match the signature you "
                   "provided. Check your key and signing method."};
  }
  if (m.starts_with("Signature expired") || m.starts_with("Signature not yet current")) {
    return S3Error{403, "RequestTimeTooSkewed",
                   "The difference between the request time and the current time is too large."};
  }
  return S3Error{403, "AccessDenied", m};
}

}  // namespace

bool IsS3Request(const HttpRequest& request) {
  return IsS3Signed(request.authorization, request.target);
}

bool IsS3Signed(std::optional<std::string_view> authorization, std::string_view target) {
  // "Credential=AKID/20261202/us-east-1/s3/aws4_request", in the header or (presigned) the
  // query's X-Amz-Credential (with '/' as %2F).
  // S3's older signatures count too ("AWS AKID:signature", and presigned URLs with
  // AWSAccessKeyId, as boto3 still makes by default): DynamoDB never had them. They are
  // refused under --auth verify, which checks SigV4 only (as S3 does for new buckets).
  if (authorization) {
    const std::string_view auth = *authorization;
    if (auth.starts_with("AWS ")) return true;
    if (!auth.starts_with("AWS4-HMAC-SHA256")) return false;
    // The scope is in the Credential parameter, which every SDK puts first: look no further
    // than its end (the rest is the signed headers and a signature, the longest part).
    constexpr std::string_view kCredentialFirst = "AWS4-HMAC-SHA256 Credential=";
    const std::string_view scope = auth.starts_with(kCredentialFirst)
                                       ? auth.substr(0, auth.find(',', kCredentialFirst.size()))
                                       : auth;
    return scope.find("/s3/aws4_request") != scope.npos;
  }
  const size_t question = target.find('?');
  if (question == std::string_view::npos) return false;
  const std::string_view query = target.substr(question);
  if (query.find("AWSAccessKeyId=") != query.npos && query.find("Signature=") != query.npos) {
    return true;
  }
  return query.find("X-Amz-Credential=") != query.npos &&
         (query.find("%2Fs3%2Faws4_request") != query.npos ||
          query.find("/s3/aws4_request") != query.npos);
}

HttpResponse ServeS3(LocalS3Store& store, HttpRequest* request, const SignatureVerifier* verifier) {
  const S3Call call = ReadCall(*request);
  if (verifier) {
    Result<VerifiedCaller> caller =
        verifier->Verify(SignedRequest{.method = request->method,
                                       .target = request->target,
                                       .headers = request->headers,
                                       .body = request->body},
                         std::chrono::system_clock::now(), SignedService::kS3);
    if (!caller.ok()) return ErrorResponse(AuthError(caller.error()), call.resource, call.head);
  }
  for (const QueryParam& p : call.query) {
    if (!IsPlainParameter(p.name)) return ErrorResponse(NotImplemented(), call.resource, call.head);
  }
  if (call.bucket.empty()) {
    if (request->method == "GET") return ListBuckets(store);
    return ErrorResponse(MethodNotAllowed(), call.resource, call.head);
  }
  if (call.key.empty()) return ServeBucket(store, call, request);
  if (!store.BucketExists(call.bucket))
    return ErrorResponse(NoSuchBucket(), call.resource, call.head);
  return ServeObject(store, call, request);
}

}  // namespace ddb::server
