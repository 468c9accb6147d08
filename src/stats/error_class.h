// The error classes every request or connection attempt can end in. A request gets exactly one
// outcome: completed, or one of the request classes below, or still in flight when the run stops.
// Plain constants: any thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hail {

enum class ErrorClass : uint8_t {
  kConnect,  // a connection attempt failed (carries no request)
  kRead,     // the connection failed or closed while a request was in flight
  kWrite,    // writing the request failed
  kTimeout,  // no complete response within --timeout; the connection was closed
  kParse,    // malformed response (HTTP/2: a connection error); the connection was closed
  kStream,   // HTTP/2: the server reset the stream (RST_STREAM) or refused it (GOAWAY)
  kCount,
};

inline constexpr size_t kErrorClassCount = static_cast<size_t>(ErrorClass::kCount);

inline const char* error_class_name(ErrorClass c) {
  switch (c) {
    case ErrorClass::kConnect:
      return "connect";
    case ErrorClass::kRead:
      return "read";
    case ErrorClass::kWrite:
      return "write";
    case ErrorClass::kTimeout:
      return "timeout";
    case ErrorClass::kParse:
      return "parse";
    case ErrorClass::kStream:
      return "stream";
    case ErrorClass::kCount:
      break;
  }
  return "?";
}

// Classes that consume a request (everything but connect).
inline constexpr bool is_request_error(ErrorClass c) {
  return c != ErrorClass::kConnect;
}

}  // namespace hail
