#include "script/request_count.h"

#include <llhttp.h>

#include <string>

namespace hail {
namespace {

struct Counts {
  size_t begun = 0;
  size_t completed = 0;
};

int on_begin(llhttp_t* parser) {
  ++static_cast<Counts*>(parser->data)->begun;
  return 0;
}

int on_complete(llhttp_t* parser) {
  ++static_cast<Counts*>(parser->data)->completed;
  return 0;
}

// 1-based line and column of `offset`, counted the way wrk reports a bad request.
std::string line_column(std::string_view bytes, size_t offset) {
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < offset && i < bytes.size(); ++i) {
    ++column;
    if (bytes[i] == '\n') {
      column = 1;
      ++line;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

Result<size_t> count_requests(std::string_view bytes) {
  llhttp_settings_t settings;
  llhttp_settings_init(&settings);
  settings.on_message_begin = on_begin;
  settings.on_message_complete = on_complete;
  llhttp_t parser;
  llhttp_init(&parser, HTTP_REQUEST, &settings);
  Counts counts;
  parser.data = &counts;
  const llhttp_errno_t rc = llhttp_execute(&parser, bytes.data(), bytes.size());
  // An Upgrade or CONNECT request ends the parse; what follows belongs to another protocol.
  if (rc == HPE_PAUSED_UPGRADE && counts.completed > 0) return counts.completed;
  if (rc != HPE_OK) {
    const char* position = llhttp_get_error_pos(&parser);
    const size_t offset = position != nullptr && position >= bytes.data()
                              ? static_cast<size_t>(position - bytes.data())
                              : 0;
    const char* reason = llhttp_get_error_reason(&parser);
    return make_error(std::string("invalid request: ") +
                      (reason != nullptr ? reason : llhttp_errno_name(rc)) + " at " +
                      line_column(bytes, offset));
  }
  if (counts.completed == 0 || counts.begun != counts.completed) {
    return make_error("incomplete request at " + line_column(bytes, bytes.size()));
  }
  return counts.completed;
}

}  // namespace hail
