// Fuzzes parse_url: it never crashes, errors are one printable line, and every accepted URL is
// well-formed and survives to_string() -> parse_url() unchanged.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/url.h"

namespace {

void check(bool ok, const char* what, std::string_view input) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_url: %s for input %s\n", what, hail::quote(input).c_str());
  std::abort();
}

bool is_one_printable_line(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  }
  return !s.empty();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto parsed = hail::parse_url(input);
  if (!parsed) {
    check(is_one_printable_line(parsed.error().message), "error is not one printable line", input);
    return 0;
  }
  const hail::Url& url = parsed.value();
  check(url.scheme == "http" || url.scheme == "https", "bad scheme", input);
  check(!url.host.empty(), "empty host", input);
  check(url.port != 0, "port 0", input);
  check(!url.path.empty() && url.path[0] == '/', "path does not start with '/'", input);
  check(url.path.find('#') == std::string::npos, "fragment kept", input);
  check(url.host_is_ipv6 == (url.host.find(':') != std::string::npos), "ipv6 flag", input);
  check(is_one_printable_line(url.authority()), "authority not printable", input);
  for (char c : url.to_string()) check(c > 0x20 && c < 0x7f, "space or control in URL", input);

  const std::string rendered = url.to_string();
  auto again = hail::parse_url(rendered);
  check(again.ok(), "rendered URL does not parse", input);
  check(again.value() == url, "rendered URL parses differently", input);
  check(again.value().to_string() == rendered, "rendering is not stable", input);
  return 0;
}
