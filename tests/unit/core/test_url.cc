#include <gtest/gtest.h>

#include <string>

#include "core/url.h"

namespace hail {
namespace {

struct Good {
  const char* text;
  const char* scheme;
  const char* host;
  uint16_t port;
  const char* path;
  bool ipv6;
  const char* authority;
  const char* canonical;  // to_string()
};

TEST(ParseUrl, AcceptsValidUrls) {
  const Good cases[] = {
      {"http://example.com", "http", "example.com", 80, "/", false, "example.com",
       "http://example.com/"},
      {"http://example.com/", "http", "example.com", 80, "/", false, "example.com",
       "http://example.com/"},
      {"https://example.com", "https", "example.com", 443, "/", false, "example.com",
       "https://example.com/"},
      {"http://example.com:8080/a/b?x=1&y=2", "http", "example.com", 8080, "/a/b?x=1&y=2", false,
       "example.com:8080", "http://example.com:8080/a/b?x=1&y=2"},
      {"http://example.com:80/", "http", "example.com", 80, "/", false, "example.com",
       "http://example.com/"},
      {"https://example.com:443/", "https", "example.com", 443, "/", false, "example.com",
       "https://example.com/"},
      {"https://example.com:80/", "https", "example.com", 80, "/", false, "example.com:80",
       "https://example.com:80/"},
      {"http://example.com:443/", "http", "example.com", 443, "/", false, "example.com:443",
       "http://example.com:443/"},
      {"HTTP://Example.COM/Path", "http", "Example.COM", 80, "/Path", false, "Example.COM",
       "http://Example.COM/Path"},
      {"HtTpS://h", "https", "h", 443, "/", false, "h", "https://h/"},
      {"http://127.0.0.1:8080", "http", "127.0.0.1", 8080, "/", false, "127.0.0.1:8080",
       "http://127.0.0.1:8080/"},
      {"http://[::1]:8080/x", "http", "::1", 8080, "/x", true, "[::1]:8080", "http://[::1]:8080/x"},
      {"http://[::1]/", "http", "::1", 80, "/", true, "[::1]", "http://[::1]/"},
      {"https://[2001:db8::1]", "https", "2001:db8::1", 443, "/", true, "[2001:db8::1]",
       "https://[2001:db8::1]/"},
      {"http://[::ffff:192.0.2.1]:1/", "http", "::ffff:192.0.2.1", 1, "/", true,
       "[::ffff:192.0.2.1]:1", "http://[::ffff:192.0.2.1]:1/"},
      {"http://h?q=1", "http", "h", 80, "/?q=1", false, "h", "http://h/?q=1"},
      {"http://h/p#frag", "http", "h", 80, "/p", false, "h", "http://h/p"},
      {"http://h#frag", "http", "h", 80, "/", false, "h", "http://h/"},
      {"http://h/p?q#f?g", "http", "h", 80, "/p?q", false, "h", "http://h/p?q"},
      {"http://h/a%20b/%E2%82%AC?x=%2F", "http", "h", 80, "/a%20b/%E2%82%AC?x=%2F", false, "h",
       "http://h/a%20b/%E2%82%AC?x=%2F"},
      {"http://h:65535/", "http", "h", 65535, "/", false, "h:65535", "http://h:65535/"},
      {"http://h:008080/", "http", "h", 8080, "/", false, "h:8080", "http://h:8080/"},
      {"http://my-host_1.local~x/", "http", "my-host_1.local~x", 80, "/", false,
       "my-host_1.local~x", "http://my-host_1.local~x/"},
      {"http://h//double//slash", "http", "h", 80, "//double//slash", false, "h",
       "http://h//double//slash"},
      {"http://h/@x:y", "http", "h", 80, "/@x:y", false, "h", "http://h/@x:y"},
  };
  for (const Good& c : cases) {
    auto r = parse_url(c.text);
    ASSERT_TRUE(r.ok()) << c.text << ": " << r.error().message;
    const Url& u = r.value();
    EXPECT_EQ(u.scheme, c.scheme) << c.text;
    EXPECT_EQ(u.host, c.host) << c.text;
    EXPECT_EQ(u.port, c.port) << c.text;
    EXPECT_EQ(u.path, c.path) << c.text;
    EXPECT_EQ(u.host_is_ipv6, c.ipv6) << c.text;
    EXPECT_EQ(u.authority(), c.authority) << c.text;
    EXPECT_EQ(u.to_string(), c.canonical) << c.text;
    auto again = parse_url(u.to_string());
    ASSERT_TRUE(again.ok()) << u.to_string();
    EXPECT_EQ(again.value(), u) << c.text;
  }
}

struct Bad {
  const char* text;
  const char* message;
};

TEST(ParseUrl, RejectsInvalidUrlsWithOneLineMessages) {
  const Bad cases[] = {
      {"", "URL must start with http:// or https://: \"\""},
      {"example.com", "URL must start with http:// or https://: \"example.com\""},
      {"localhost:8080/x", "URL must start with http:// or https://: \"localhost:8080/x\""},
      {"http:/x", "URL must start with http:// or https://: \"http:/x\""},
      {"://h/", "URL must start with http:// or https://: \"://h/\""},
      {"1http://h/", "URL must start with http:// or https://: \"1http://h/\""},
      {"ftp://h/", "invalid URL \"ftp://h/\": unsupported scheme \"ftp\" (use http or https)"},
      {"ws://h/", "invalid URL \"ws://h/\": unsupported scheme \"ws\" (use http or https)"},
      {"http:///x", "invalid URL \"http:///x\": empty host"},
      {"http://", "invalid URL \"http://\": empty host"},
      {"http://:80/", "invalid URL \"http://:80/\": empty host"},
      {"http://[]/", "invalid URL \"http://[]/\": empty host"},
      {"http://h:0/", "invalid URL \"http://h:0/\": port 0 is not allowed"},
      {"http://h:65536/",
       "invalid URL \"http://h:65536/\": port \"65536\" is out of range (1-65535)"},
      {"http://h:99999999999999999999/",
       "invalid URL \"http://h:99999999999999999999/\": port \"99999999999999999999\" is out of "
       "range (1-65535)"},
      {"http://h:8o/", "invalid URL \"http://h:8o/\": port \"8o\" is not a number"},
      {"http://h:-1/", "invalid URL \"http://h:-1/\": port \"-1\" is not a number"},
      {"http://h:/", "invalid URL \"http://h:/\": missing port number after ':'"},
      {"http://h/a b",
       "invalid URL \"http://h/a b\": contains a space or control character "
       "(percent-encode it)"},
      {"http://h/\n",
       "invalid URL \"http://h/\\x0a\": contains a space or control character "
       "(percent-encode it)"},
      {"http://h/\x7f",
       "invalid URL \"http://h/\\x7f\": contains a space or control character "
       "(percent-encode it)"},
      {" http://h/",
       "invalid URL \" http://h/\": contains a space or control character "
       "(percent-encode it)"},
      {"http://h/\xc3\xa9",
       "invalid URL \"http://h/\\xc3\\xa9\": contains a non-ASCII character "
       "(percent-encode it)"},
      {"http://user:pw@h/",
       "invalid URL \"http://user:pw@h/\": user info (user:password@) is not "
       "supported; send an Authorization header"},
      {"http://@h/",
       "invalid URL \"http://@h/\": user info (user:password@) is not supported; "
       "send an Authorization header"},
      {"http://::1/",
       "invalid URL \"http://::1/\": IPv6 addresses must be in brackets, as in "
       "http://[::1]:8080/"},
      {"http://h:1:2/",
       "invalid URL \"http://h:1:2/\": IPv6 addresses must be in brackets, as in "
       "http://[::1]:8080/"},
      {"http://[::1/", "invalid URL \"http://[::1/\": missing ']' after IPv6 address"},
      {"http://[::1]x/", "invalid URL \"http://[::1]x/\": unexpected \"x\" after IPv6 address"},
      {"http://[::1]:/", "invalid URL \"http://[::1]:/\": missing port number after ':'"},
      {"http://[::1]:0/", "invalid URL \"http://[::1]:0/\": port 0 is not allowed"},
      {"http://[nope]/", "invalid URL \"http://[nope]/\": invalid IPv6 address \"nope\""},
      {"http://[127.0.0.1]/",
       "invalid URL \"http://[127.0.0.1]/\": invalid IPv6 address "
       "\"127.0.0.1\""},
      {"http://[fe80::1%25eth0]/",
       "invalid URL \"http://[fe80::1%25eth0]/\": invalid IPv6 "
       "address \"fe80::1%25eth0\""},
      {"http://h%41/", "invalid URL \"http://h%41/\": invalid character \"%\" in host"},
      {"http://a<b/", "invalid URL \"http://a<b/\": invalid character \"<\" in host"},
      {"http://a[b]/", "invalid URL \"http://a[b]/\": invalid character \"[\" in host"},
  };
  for (const Bad& c : cases) {
    auto r = parse_url(c.text);
    ASSERT_FALSE(r.ok()) << c.text << " parsed as " << r.value().to_string();
    EXPECT_EQ(r.error().message, c.message);
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  }
}

TEST(ParseUrl, LongValuesAreCutShortInMessages) {
  const std::string text = "ftp://" + std::string(10'000, 'a');
  auto r = parse_url(text);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(r.error().message.size(), 300u);
}

TEST(Url, AuthorityOfHandBuiltUrl) {
  Url u;
  u.scheme = "https";
  u.host = "fe80::1";
  u.host_is_ipv6 = true;
  u.port = 443;
  u.path = "/";
  EXPECT_EQ(u.authority(), "[fe80::1]");
  u.port = 8443;
  EXPECT_EQ(u.authority(), "[fe80::1]:8443");
  EXPECT_EQ(u.to_string(), "https://[fe80::1]:8443/");
}

}  // namespace
}  // namespace hail
