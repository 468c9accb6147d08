#include "cli/version.h"

#include <llhttp.h>
#include <luajit.h>
#include <nghttp2/nghttp2.h>
#include <openssl/crypto.h>
#include <zlib.h>

#include "core/strings.h"
#include "hail_build_info.h"
#include "net/event_loop.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

std::string version_text() {
  const nghttp2_info* h2 = nghttp2_version(0);
  std::string out = string_printf("hail %s (commit %s, %s build)\n", HAIL_VERSION_STRING,
                                  HAIL_BUILD_COMMIT, HAIL_BUILD_TYPE);
  out += string_printf("  TLS:        %s (TLS 1.0-1.3, ALPN h2 and http/1.1)\n",
                       OpenSSL_version(OPENSSL_VERSION));
  out += string_printf("  HTTP/2:     nghttp2 %s\n", h2 != nullptr ? h2->version_str : "?");
  out += string_printf("  scripts:    %s (wrk-compatible Lua)\n", LUAJIT_VERSION);
  out += string_printf("  histograms: HdrHistogram V2 encoding, zlib %s\n", zlibVersion());
  const std::string& no_uring = uring_unavailable_reason();
  out += no_uring.empty()
             ? std::string("  I/O:        io_uring (--io auto) and epoll (--io epoll)\n")
             : "  I/O:        epoll (io_uring unavailable: " + no_uring + ")\n";
  out += string_printf("  server:     llhttp %d.%d.%d (hail serve)\n", LLHTTP_VERSION_MAJOR,
                       LLHTTP_VERSION_MINOR, LLHTTP_VERSION_PATCH);
  return out;
}

}  // namespace hail
