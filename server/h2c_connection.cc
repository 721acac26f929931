#include "server/h2c_connection.h"

#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <ctime>
#include <map>
#include <memory>
#include <vector>

#include "server/url_coding.h"
#include "util/ascii.h"

namespace ddb::server {

namespace {
constexpr size_t kMaxHeaderFields = 200;       // per request; more resets the stream
constexpr size_t kMaxHeaderBytes = 64 * 1024;  // likewise
constexpr size_t kUnbudgetedBody = 64 * 1024;  // as HTTP/1.1's (http_server.cc)
constexpr size_t kBudgetStep = 1024 * 1024;    // a body reserves ahead in steps of this
constexpr uint32_t kMaxConcurrentStreams = 100;
}  // namespace

struct H2cConnection::Stream {
  std::string method, path, authority;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  size_t header_bytes = 0;
  size_t reserved = 0;  // of the body budget
  bool too_large = false;
  bool busy = false;  // the body budget could not take it
  std::string response_body;
  size_t sent = 0;
};

struct H2cConnection::Session {
  nghttp2_session* s = nullptr;
  std::map<int32_t, std::unique_ptr<Stream>> streams;
  std::vector<int32_t> ready;  // streams whose request is complete
  size_t body_limit = 0;
  ByteBudget* budget = nullptr;

  void Release(Stream* stream) {
    if (stream->reserved == 0) return;
    budget->Release(stream->reserved);
    stream->reserved = 0;
  }
  ~Session() {
    for (auto& [id, stream] : streams) Release(stream.get());
  }

  Stream* Find(int32_t id) {
    auto it = streams.find(id);
    return it == streams.end() ? nullptr : it->second.get();
  }
};

namespace {

using Session = H2cConnection::Session;
using Stream = H2cConnection::Stream;

int OnBeginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* session = static_cast<Session*>(user);
  if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
    session->streams[frame->hd.stream_id] = std::make_unique<Stream>();
  }
  return 0;
}

int OnHeader(nghttp2_session* s, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
             const uint8_t* value, size_t valuelen, uint8_t, void* user) {
  auto* session = static_cast<Session*>(user);
  Stream* stream = session->Find(frame->hd.stream_id);
  if (!stream) return 0;
  const std::string_view n(reinterpret_cast<const char*>(name), namelen);
  std::string v(reinterpret_cast<const char*>(value), valuelen);
  if (n == ":method") {
    stream->method = std::move(v);
  } else if (n == ":path") {
    stream->path = std::move(v);
  } else if (n == ":authority") {
    stream->authority = std::move(v);
  } else if (!n.starts_with(":")) {
    stream->header_bytes += namelen + valuelen;
    if (stream->headers.size() >= kMaxHeaderFields || stream->header_bytes > kMaxHeaderBytes) {
      nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                NGHTTP2_ENHANCE_YOUR_CALM);
      return 0;
    }
    stream->headers.emplace_back(std::string(n), std::move(v));
  }
  return 0;
}

int OnDataChunk(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len,
                void* user) {
  auto* session = static_cast<Session*>(user);
  Stream* stream = session->Find(stream_id);
  if (!stream || stream->too_large || stream->busy) return 0;
  const size_t size = stream->body.size() + len;
  if (size > session->body_limit) {
    stream->too_large = true;  // answered 413 once the request ends
    stream->body = std::string();
    session->Release(stream);
    return 0;
  }
  if (size > kUnbudgetedBody && size > stream->reserved) {
    const size_t need = std::min(size + kBudgetStep, session->body_limit);
    if (!session->budget->TryReserve(need - stream->reserved)) {
      stream->busy = true;  // answered 503 once the request ends
      stream->body = std::string();
      session->Release(stream);
      return 0;
    }
    stream->reserved = need;
  }
  stream->body.append(reinterpret_cast<const char*>(data), len);
  return 0;
}

int OnFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
  auto* session = static_cast<Session*>(user);
  const bool request_part = frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA;
  if (request_part && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) &&
      session->Find(frame->hd.stream_id)) {
    session->ready.push_back(frame->hd.stream_id);
  }
  return 0;
}

int OnStreamClose(nghttp2_session*, int32_t stream_id, uint32_t, void* user) {
  auto* session = static_cast<Session*>(user);
  if (Stream* stream = session->Find(stream_id)) session->Release(stream);
  session->streams.erase(stream_id);
  return 0;
}

ssize_t ReadBody(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                 nghttp2_data_source* source, void*) {
  auto* stream = static_cast<Stream*>(source->ptr);
  const size_t n = std::min(length, stream->response_body.size() - stream->sent);
  std::copy_n(stream->response_body.data() + stream->sent, n, buf);
  stream->sent += n;
  if (stream->sent == stream->response_body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

bool WriteAll(int fd, const uint8_t* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string HttpDate() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

// The response's header fields as HTTP/2 sends them: lower-case names, no connection-level
// fields; the same ones the HTTP/1.1 session writes.
std::vector<std::pair<std::string, std::string>> ResponseFields(const HttpResponse& r) {
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back(":status", std::to_string(r.status));
  f.emplace_back("server", "Server");
  if (!r.content_type.empty()) f.emplace_back("content-type", std::string(r.content_type));
  f.emplace_back("x-amzn-requestid", NewRequestId());
  if (r.crc32) {
    f.emplace_back("x-amz-crc32",
                   std::to_string(crc32_z(0, reinterpret_cast<const unsigned char*>(r.body.data()),
                                          r.body.size())));
  }
  if (!r.content_encoding.empty()) {
    f.emplace_back("content-encoding", std::string(r.content_encoding));
  }
  if (!r.allow.empty()) f.emplace_back("allow", std::string(r.allow));
  f.emplace_back("date", HttpDate());
  std::string_view extra = r.extra_headers;
  while (!extra.empty()) {
    const size_t end = extra.find("\r\n");
    const std::string_view line = extra.substr(0, end);
    extra = end == std::string_view::npos ? std::string_view() : extra.substr(end + 2);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name = util::AsciiLowerCopy(line.substr(0, colon));
    if (name == "connection" || name == "keep-alive" || name == "transfer-encoding") continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    f.emplace_back(std::move(name), std::string(value));
  }
  f.emplace_back("content-length", std::to_string(r.head_content_length.value_or(r.body.size())));
  return f;
}

std::string_view Field(const Stream& s, std::string_view name) {
  for (const auto& [n, v] : s.headers) {
    if (n == name) return v;
  }
  return {};
}

}  // namespace

H2cConnection::H2cConnection(int fd, std::string received, bool from_loopback, Handler handler,
                             size_t body_limit, ByteBudget* budget,
                             std::chrono::milliseconds idle_timeout)
    : fd_(fd),
      received_(std::move(received)),
      from_loopback_(from_loopback),
      handler_(std::move(handler)),
      body_limit_(body_limit),
      budget_(budget),
      idle_timeout_(idle_timeout) {}

H2cConnection::~H2cConnection() { ::close(fd_); }

void H2cConnection::Close() {
  closed_ = true;
  ::shutdown(fd_, SHUT_RDWR);  // wakes Serve's poll or recv
}

void H2cConnection::Serve() {
  Session session;
  session.body_limit = body_limit_;
  session.budget = budget_;
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) return;
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, OnBeginHeaders);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, OnHeader);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, OnDataChunk);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, OnFrameRecv);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, OnStreamClose);
  const int created = nghttp2_session_server_new(&session.s, callbacks, &session);
  nghttp2_session_callbacks_del(callbacks);
  if (created != 0) return;
  std::unique_ptr<nghttp2_session, decltype(&nghttp2_session_del)> owned(session.s,
                                                                         nghttp2_session_del);
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, kMaxConcurrentStreams}};
  nghttp2_submit_settings(session.s, NGHTTP2_FLAG_NONE, settings, 1);
  auto feed = [&](const char* data, size_t n) {
    return nghttp2_session_mem_recv(session.s, reinterpret_cast<const uint8_t*>(data), n) >= 0;
  };
  if (!feed(received_.data(), received_.size())) return;
  received_ = std::string();
  std::string buffer(64 * 1024, '\0');
  while (true) {
    // Answers the requests that are complete, one after another.
    for (int32_t id : session.ready) {
      Stream* stream = session.Find(id);
      if (!stream) continue;
      HttpResponse response;
      if (stream->too_large) {
        response.status = 413;
        response.content_type = "text/plain; charset=utf-8";
        response.body = "Request Entity Too Large: the body limit is " +
                        std::to_string(body_limit_) + " bytes\n";
      } else if (stream->busy) {
        response = DynamoErrorResponse(
            Error(ErrorCode::kServiceUnavailable,
                  "The server is holding as many request bodies as --max-body-memory allows; "
                  "retry"),
            Field(*stream, "content-type"));
      } else {
        std::vector<HeaderField> fields;
        fields.reserve(stream->headers.size() + 1);
        bool has_host = false;
        for (const auto& [n, v] : stream->headers) {
          fields.push_back({n, v});
          has_host = has_host || n == "host";
        }
        // HTTP/2 carries Host as :authority; a signature covers it as "host".
        if (!has_host && !stream->authority.empty()) fields.push_back({"host", stream->authority});
        HttpRequest request;
        request.method = stream->method;
        request.target = stream->path;
        request.host = stream->authority;
        request.content_type = Field(*stream, "content-type");
        request.amz_target = Field(*stream, "x-amz-target");
        for (const auto& [n, v] : stream->headers) {
          if (n == "authorization") request.authorization = std::string_view(v);
        }
        request.origin = Field(*stream, "origin");
        request.content_encoding = Field(*stream, "content-encoding");
        request.accept_encoding = Field(*stream, "accept-encoding");
        request.headers = fields;
        request.body = std::move(stream->body);
        request.from_loopback = from_loopback_;
        response = handler_(&request);
        stream->body = std::move(request.body);  // freed with the stream
      }
      session.Release(stream);
      const bool head = stream->method == "HEAD";
      stream->response_body = head ? std::string() : std::move(response.body);
      response.body.clear();
      if (!head) response.head_content_length = stream->response_body.size();
      std::vector<std::pair<std::string, std::string>> fields = ResponseFields(response);
      std::vector<nghttp2_nv> nva;
      nva.reserve(fields.size());
      for (auto& [n, v] : fields) {
        nva.push_back({reinterpret_cast<uint8_t*>(n.data()), reinterpret_cast<uint8_t*>(v.data()),
                       n.size(), v.size(), NGHTTP2_NV_FLAG_NONE});
      }
      nghttp2_data_provider provider{};
      provider.source.ptr = stream;
      provider.read_callback = ReadBody;
      nghttp2_submit_response(session.s, id, nva.data(), nva.size(),
                              stream->response_body.empty() ? nullptr : &provider);
    }
    session.ready.clear();
    // Sends what nghttp2 has queued (settings, answers, window updates).
    while (true) {
      const uint8_t* data = nullptr;
      const ssize_t n = nghttp2_session_mem_send(session.s, &data);
      if (n < 0) return;
      if (n == 0) break;
      if (!WriteAll(fd_, data, static_cast<size_t>(n))) return;
    }
    if (closed_ ||
        (!nghttp2_session_want_read(session.s) && !nghttp2_session_want_write(session.s))) {
      return;
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(idle_timeout_.count()));
    if (ready == 0) {
      // Idle past the read timeout: GOAWAY, as an HTTP/1.1 connection would be closed.
      nghttp2_session_terminate_session(session.s, NGHTTP2_NO_ERROR);
      const uint8_t* data = nullptr;
      const ssize_t n = nghttp2_session_mem_send(session.s, &data);
      if (n > 0) WriteAll(fd_, data, static_cast<size_t>(n));
      return;
    }
    if (ready < 0) return;
    const ssize_t got = ::recv(fd_, buffer.data(), buffer.size(), 0);
    if (got <= 0 || !feed(buffer.data(), static_cast<size_t>(got))) return;
  }
}

}  // namespace ddb::server
