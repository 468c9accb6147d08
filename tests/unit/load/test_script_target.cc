// script_target(): what a wrk script sees in its `wrk` table. wrk takes scheme, host and port from
// the URL as typed: wrk.port is the typed port (nil when the URL names none, "80" when it says
// :80), which also decides whether wrk's default Host header carries a port.
#include <gtest/gtest.h>

#include <string>

#include "load/script_run.h"

namespace hail {
namespace {

ScriptTarget target_of(const std::string& text, bool keep_text = true) {
  RunOptions options;
  auto url = parse_url(text);
  EXPECT_TRUE(url.ok()) << text;
  if (url.ok()) options.url = url.value();
  if (keep_text) options.url_text = text;
  return script_target(options);
}

TEST(ScriptTarget, PortIsTheTypedOne) {
  const struct {
    const char* url;
    const char* port;
  } cases[] = {
      {"http://127.0.0.1/", ""},      {"http://127.0.0.1", ""},
      {"http://127.0.0.1:80/", "80"}, {"http://127.0.0.1:8080/x:y", "8080"},
      {"https://example.test/", ""},  {"https://example.test:443/", "443"},
      {"http://[::1]/", ""},          {"http://[::1]:9000/", "9000"},
      {"http://[::1]/a:b", ""},       {"http://h:81?q=1:2", "81"},
      {"http://h#x:1", ""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(target_of(c.url).port, c.port) << c.url;
  }
}

TEST(ScriptTarget, WithoutTheTextADefaultPortCountsAsNone) {
  EXPECT_EQ(target_of("http://127.0.0.1:80/", false).port, "");
  EXPECT_EQ(target_of("http://127.0.0.1:8080/", false).port, "8080");
  EXPECT_EQ(target_of("https://h:443/", false).port, "");
}

TEST(ScriptTarget, HostSchemeAndPathFromTheUrl) {
  const ScriptTarget t = target_of("http://[::1]:9000/p?q=1");
  EXPECT_EQ(t.scheme, "http");
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.path, "/p?q=1");
}

}  // namespace
}  // namespace hail
