#include "server/reply.h"

#include <unistd.h>

#include <utility>

#include "core/clock.h"
#include "server/response_head.h"
#include "server/session_env.h"
#include "server/static_root.h"

namespace hail {

namespace {

constexpr std::string_view kTextPlain = "text/plain; charset=utf-8";

void set_text(Reply* reply, int status, std::string_view content_type, std::string text) {
  reply->status = status;
  reply->content_type = content_type;
  reply->length = text.size();
  reply->text = std::move(text);
  reply->body = Reply::Body::kText;
}

// "404 Not Found\n" as text/plain (no body for 204 and 304).
void set_error(Reply* reply, int status, std::string_view allow) {
  reply->status = status;
  reply->allow = allow;
  if (!status_has_no_body(status)) set_text(reply, status, kTextPlain, status_body(status));
}

}  // namespace

Reply::~Reply() {
  if (fd_ >= 0) close(fd_);
}

Reply::Reply(Reply&& other) noexcept
    : status(other.status),
      content_type(other.content_type),
      allow(other.allow),
      body(other.body),
      length(other.length),
      text(std::move(other.text)),
      ready_at_ns(other.ready_at_ns),
      counted(other.counted),
      fd_(std::exchange(other.fd_, -1)) {}

Reply& Reply::operator=(Reply&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    status = other.status;
    content_type = other.content_type;
    allow = other.allow;
    body = other.body;
    length = other.length;
    text = std::move(other.text);
    ready_at_ns = other.ready_at_ns;
    counted = other.counted;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

int Reply::take_fd() {
  return std::exchange(fd_, -1);
}

void Reply::set_file(int fd, uint64_t size) {
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  body = Body::kFile;
  length = size;
}

Reply error_reply(int status, std::string_view allow) {
  Reply reply;
  set_error(&reply, status, allow);
  return reply;
}

std::string stats_json(const ServerStats& stats) {
  return "{\"requests\": " + std::to_string(stats.requests) +
         ", \"connections\": " + std::to_string(stats.connections) +
         ", \"bytes_sent\": " + std::to_string(stats.bytes_sent) +
         ", \"rejected_connections\": " + std::to_string(stats.rejected_connections) +
         ", \"tls_handshakes\": " + std::to_string(stats.tls_handshakes) +
         ", \"tls_resumed\": " + std::to_string(stats.tls_resumed) +
         ", \"h2_connections\": " + std::to_string(stats.h2_connections) +
         ", \"h2_streams\": " + std::to_string(stats.h2_streams) + "}\n";
}

void make_reply(const SessionEnv& env, const ReplyRequest& request, Reply* reply) {
  const Route& route = request.route;
  switch (route.endpoint) {
    case Endpoint::kBytes:
      reply->content_type = "application/octet-stream";
      reply->body = Reply::Body::kPattern;
      reply->length = route.number;
      return;
    case Endpoint::kDelay:
      set_text(reply, 200, kTextPlain, "ok\n");
      // The delay counts from the request's arrival; a 0 ms delay is no delay.
      if (route.number > 0) reply->ready_at_ns = request.now_ns + route.number * kNsPerMs;
      return;
    case Endpoint::kStatus:
      set_error(reply, static_cast<int>(route.number), {});
      return;
    case Endpoint::kEcho:
      reply->content_type = request.content_type;
      reply->body = Reply::Body::kText;
      if (request.body != nullptr) reply->text.swap(*request.body);
      reply->length = reply->text.size();
      return;
    case Endpoint::kStats: {
      const ServerStats stats = env.stats != nullptr ? env.stats(env.stats_ctx) : ServerStats{};
      set_text(reply, 200, "application/json", stats_json(stats));
      reply->counted = false;
      return;
    }
    case Endpoint::kStatic: {
      if (env.root == nullptr) {
        set_error(reply, 404, {});
        return;
      }
      StaticRoot::File file;
      const int status = env.root->open_file(request.path, &file);
      if (status != 200) {
        set_error(reply, status, {});
        return;
      }
      reply->content_type = file.is_index ? std::string_view("text/html; charset=utf-8")
                                          : content_type_for_path(request.path);
      reply->set_file(file.fd, file.size);
      return;
    }
    case Endpoint::kError:
      break;
  }
  set_error(reply, route.error_status, route.allow);
}

}  // namespace hail
