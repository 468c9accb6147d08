// The reasons hail reports for HTTP/2 error codes (RFC 9113 §7): static strings, one table per
// way a stream or connection can end, so that counting a reason never allocates. Constants only:
// any thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace hail {

// Reasons per HTTP/2 error code (RFC 9113 §7), as static strings: one table per prefix, in code
// order, with a last entry for unknown codes.
// clang-format off
#define HAIL_H2_ERROR_CODES(X)                                                                  \
  X(NO_ERROR) X(PROTOCOL_ERROR) X(INTERNAL_ERROR) X(FLOW_CONTROL_ERROR) X(SETTINGS_TIMEOUT)     \
  X(STREAM_CLOSED) X(FRAME_SIZE_ERROR) X(REFUSED_STREAM) X(CANCEL) X(COMPRESSION_ERROR)         \
  X(CONNECT_ERROR) X(ENHANCE_YOUR_CALM) X(INADEQUATE_SECURITY) X(HTTP_1_1_REQUIRED)
// clang-format on
#define HAIL_PEER_RESET(name) "stream reset: " #name,
#define HAIL_LOCAL_RESET(name) "stream error: " #name,
#define HAIL_CONNECTION_ERROR(name) "connection error: " #name,
inline constexpr uint32_t kKnownCodes = 14;
// The server reset the stream (RST_STREAM).
inline constexpr const char* kPeerReset[] = {
    HAIL_H2_ERROR_CODES(HAIL_PEER_RESET) "stream reset: unknown error code"};
// nghttp2 reset the stream because its response was malformed (RFC 9113 §8.1.1).
inline constexpr const char* kLocalReset[] = {
    HAIL_H2_ERROR_CODES(HAIL_LOCAL_RESET) "stream error: unknown error code"};
// nghttp2 ended the connection (its GOAWAY carries this code): the server broke the protocol.
inline constexpr const char* kConnectionError[] = {
    HAIL_H2_ERROR_CODES(HAIL_CONNECTION_ERROR) "connection error: unknown error code"};
#undef HAIL_CONNECTION_ERROR
#undef HAIL_LOCAL_RESET
#undef HAIL_PEER_RESET
#undef HAIL_H2_ERROR_CODES
static_assert(std::size(kPeerReset) == kKnownCodes + 1 &&
              std::size(kLocalReset) == kKnownCodes + 1 &&
              std::size(kConnectionError) == kKnownCodes + 1);
inline constexpr const char* kRefusedByGoaway = "refused by GOAWAY";
inline constexpr const char* kNoFinalStatus = "stream error: response ended without a final status";

inline const char* code_reason(const char* const (&table)[kKnownCodes + 1], uint32_t code) {
  return table[std::min(code, kKnownCodes)];
}

}  // namespace hail
