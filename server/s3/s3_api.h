// The S3 API on ddb's own port, over the directory that stands in for S3 (--s3-dir,
// server/s3/s3_store.h): so that what S3 clients put there (fixtures for ImportTable) and what
// exports write can be reached with the AWS SDKs' and CLI's S3 clients pointed at ddb's
// endpoint with path-style addressing, as emulators that co-locate services are used.
// A request is an S3 one when its SigV4 credential scope names the service "s3" (the
// Authorization header's or a presigned URL's X-Amz-Credential); DynamoDB's never do.
// Operations: ListBuckets, CreateBucket, HeadBucket, DeleteBucket, GetBucketLocation,
// ListObjectsV2, ListObjects, PutObject, CopyObject, GetObject (one byte range, If-Match,
// If-None-Match), HeadObject, DeleteObject, DeleteObjects, CreateMultipartUpload, UploadPart,
// CompleteMultipartUpload, AbortMultipartUpload. Any other subresource or operation answers
// 501 NotImplemented. Errors are S3's XML documents with its codes and messages.
// Under --auth verify, signatures are checked as S3 checks them (SignedService::kS3), before
// anything else.
// An S3 request body may be as large as --max-body-memory (256 MiB by default), not 16 MiB
// as a DynamoDB request's; larger objects go up in parts, as the SDKs' and CLI's uploaders
// do by themselves.
// Thread safety: ServeS3 may be called concurrently.
#pragma once

#include "server/http_server.h"
#include "server/s3/s3_store.h"

namespace ddb::server {

class SignatureVerifier;

// Whether `request` is signed for S3 (see above).
bool IsS3Request(const HttpRequest& request);
// The same from the Authorization header (nullopt: absent) and the target alone, for the
// session to choose a body limit once the header is in.
bool IsS3Signed(std::optional<std::string_view> authorization, std::string_view target);

// Answers an S3 request. May move request->body. `verifier`: under --auth verify, to check
// the signature; nullptr otherwise.
HttpResponse ServeS3(LocalS3Store& store, HttpRequest* request, const SignatureVerifier* verifier);

}  // namespace ddb::server
